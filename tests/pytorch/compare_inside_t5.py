#!/usr/bin/python3
"""The dump's scores on a T5 model are still exactly the softmax's input (issue 25).

    compare_inside_t5.py --minimt build/minimt

T5 adds a relative-position bias to q.k and does not divide by sqrt(d_k). On a random T5
checkpoint in the Hugging Face layout (tests/families/make_checkpoint.py, d_kv 6 with d_model 32
and 4 heads), converted by tools/convert_hf.py, two sentences translated in one batch with
--dump-scores --dump-vectors: for every type, layer and head, softmax of each row's non-null
scores is that row of the weights (1e-5), and score - q.k (from the dumped q and k, unscaled)
depends only on the key's distance from the query in self-attention (the bias) and is 0 in
cross-attention (T5 has none there), within 2e-5. Ends with "N passed, N failed".
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

ROOT = support.ROOT

TYPES = (("encoder_self", "encoder_self_attention"), ("decoder_self", "decoder_self_attention"),
         ("cross", "cross_attention"))


def bias_spread(score_minus_qk, self_attention):
    """The largest spread of score - q.k among cells at the same key - query distance (self), or
    its largest magnitude (cross). diff: [L, H, rows, cols], NaN where masked."""
    if not self_attention:
        kept = score_minus_qk[~torch.isnan(score_minus_qk)]
        return kept.abs().max().item() if kept.numel() else 0.0
    worst = 0.0
    rows, cols = score_minus_qk.shape[-2:]
    for distance in range(-rows + 1, cols):
        cells = torch.diagonal(score_minus_qk, offset=distance, dim1=-2, dim2=-1)  # [L, H, n]
        for values in cells.reshape(-1, cells.shape[-1]):
            values = values[~torch.isnan(values)]
            if values.numel() > 1:
                worst = max(worst, (values.max() - values.min()).item())
    return worst


def main():
    minimt = support.minimt_path(__doc__)
    tally = support.Tally()
    with support.scratch("inside-t5") as scratch:
        hf, model = os.path.join(scratch, "hf"), os.path.join(scratch, "model")
        for command in ([sys.executable, os.path.join(ROOT, "tests", "families", "make_checkpoint.py"),
                         "t5", hf, "--seed", "16"],
                        [sys.executable, os.path.join(ROOT, "tools", "convert_hf.py"), hf, model, "--quiet"]):
            done = support.run(command, timeout=600)
            if not tally.check(done.returncode == 0, "%s: %s" % (command[1], done.stderr[-400:])):
                return tally.finish()
        dump = os.path.join(scratch, "dump.json")
        done = support.run([minimt, "translate", "--model", model, "--max-length", "12",
                            "--dump-attention", dump, "--dump-scores", "--dump-vectors",
                            "the house is small and the cat is black", "a b c"])
        tally.check(done.returncode == 0, "translate: exit %d %s" % (done.returncode, done.stderr[-400:]))
        with open(dump, encoding="utf-8") as f:
            sentences = json.load(f)["sentences"]
        tally.check(len(sentences[0]["encoder_self_queries"][0][0][0]) == 6, "d_k is not 6")
        for n, s in enumerate(sentences):
            for prefix, key in TYPES:
                scores = torch.tensor([[[[float("nan") if x is None else x for x in row] for row in head]
                                        for head in layer] for layer in s[prefix + "_scores"]],
                                      dtype=torch.float64)
                weights = torch.tensor(s[key], dtype=torch.float64)
                gap = (torch.softmax(scores.nan_to_num(nan=float("-inf")), -1) - weights).abs().max().item()
                tally.check(gap <= 1e-5, "sentence %d %s: softmax of the scores differs from the "
                            "weights by %.3g" % (n, prefix, gap))
                q = torch.tensor(s[prefix + "_queries"], dtype=torch.float64)
                k = torch.tensor(s[prefix + "_keys"], dtype=torch.float64)
                spread = bias_spread(scores - q @ k.transpose(-1, -2), prefix != "cross")
                tally.check(spread <= 2e-5, "sentence %d %s: score - q.k varies by %.3g at one "
                            "distance (cross: is %.3g, want 0)" % (n, prefix, spread, spread))
                print("sentence %d %s: softmax gap %.2e, bias spread %.2e" % (n, prefix, gap, spread))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
