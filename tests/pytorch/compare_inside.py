#!/usr/bin/python3
"""Compare the attention dump's extras (issue 25) with PyTorch computations of their definitions.

  compare_inside.py --minimt build/minimt [--workdir DIR] [--keep] [--only NAME]
                    [--checks extras,selection,score] [--default-only]

On random models of several shapes (d_k != d_model / H, pre- and post-norm, one and three
decoder layers, tied and untied output with a bias) each check prints one PASS/FAIL line.
The expected values come from tests/pytorch/inside_formulas.py: the definitions computed in
float64 on one padded batch of every sentence, from the reference model's weights and the inputs
its attention layers receive (not from minimt's code). Numbers agree within 1e-4 relative or
2e-5 absolute.
  extras     translate --batch-size 32 (30 sentences of different lengths, a blank one and one
             cut at max_positions, decoded in one batch) with --dump-scores --dump-vectors
             --dump-norms --logit-lens 4: every key of every sentence against the definitions:
             scores with null exactly above the diagonal of decoder self-scores, softmax of a
             row's non-null scores = that row of the weights (1e-5), queries, keys, values,
             weighted norms (0 above the diagonal), head norms, and the logit lens (each token's
             probability, the K best in order); the last layer's lists = alternatives[:K];
             the blank sentence (not searched: eos alone, read by the model) checked as the
             others are; stdout and every existing key byte-identical to
             a run without the flags;
  selection  --dump-types decoder,cross --dump-layers -1 --dump-heads 1,0 --mask-heads SPEC:
             only the kept types, layers and heads, in that order; a masked head's scores as
             without the mask (the mask acts after the softmax), its weights and norms 0; the
             lens of the last layer only; --logit-lens 7 beyond the 5 alternatives;
  score      minimt score with the four flags: the same keys against the definitions on the
             given targets.
Each minimt command runs under each of minimt's kernels this CPU runs and must give the default's
bytes (tests/kernel_settings.py; --default-only runs the default alone). Ends with "N passed,
N failed"; exits 1 on any failure.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import compare_head_mask as chm  # noqa: E402
import compare_search as cs  # noqa: E402  (puts tools/reference on the path)
import compare_with_reference as cwr  # noqa: E402
from inside_formulas import TYPES, extras_of_batch  # noqa: E402

Mismatch = cwr.Mismatch
RELATIVE, ABSOLUTE = 1e-4, 2e-5
ROW_SOFTMAX = 1e-5
FLAGS = ["--dump-scores", "--dump-vectors", "--dump-norms"]
SUFFIXES = ("_scores", "_queries", "_keys", "_values", "_weighted_norms", "_head_norms")
LENS = "decoder_layer_predictions"

# (name, compare_with_reference model, extra random-model arguments: later ones win): d_k 5
# with d_model 16 and 3 heads (post), d_k 6 with d_model 8 and 4 heads (pre, learned positions,
# untied), pre with one decoder layer and an output bias, post with 2 heads, and a 64-wide 3+3
# pre-norm model with 200 target pieces. The eos boosts end the outputs at many lengths.
MODELS = [
    ("post-headdim5-3heads", "post-headdim5-3heads-silu-f16",
     ["--final-logits-bias", "--eos-boost", "4.5"]),
    ("pre-wide-heads-8x4x6", "wide-heads-8x4x6-pre-learned-untied-f16",
     ["--final-logits-bias", "--eos-boost", "3"]),
    ("pre-1dec-untied-bias", "pre-3enc-1dec-untied-bias-eps1e-3", []),
    ("post-2heads-tied", "post-sinusoidal-relu-tied-f32", ["--final-logits-bias", "--eos-boost", "3"]),
    ("pre-64x4-3+3", "larger-64x4-3+3-pre-vocab64to200", []),
]
WEIGHTS = {"encoder": "encoder_self_attention", "decoder": "decoder_self_attention",
           "cross": "cross_attention"}


def tensor(value, what):
    """A nested list (None as NaN) as a float64 tensor."""
    def clean(x):
        return [clean(y) for y in x] if isinstance(x, list) else (float("nan") if x is None else x)
    try:
        return torch.tensor(clean(value), dtype=torch.float64)
    except (ValueError, TypeError) as e:
        raise Mismatch("%s is not a rectangular array: %s" % (what, e))


def compare(label, got, want):
    """got: minimt's list; want: the definition's tensor (NaN: null). Returns the worst gap."""
    a = tensor(got, label)
    if a.numel() == 0 and want.numel() == 0:
        return 0.0
    if tuple(a.shape) != tuple(want.shape):
        raise Mismatch("%s: shape %s, the definition's %s" % (label, list(a.shape), list(want.shape)))
    if not torch.equal(torch.isnan(a), torch.isnan(want)):
        where = torch.nonzero(torch.isnan(a) != torch.isnan(want))[0].tolist()
        raise Mismatch("%s: null at %s in one and not the other" % (label, where))
    kept = ~torch.isnan(want)
    gap = (a - want).abs()
    bad = kept & (gap > ABSOLUTE) & (gap > RELATIVE * want.abs())
    if bad.any():
        where = torch.nonzero(bad)[0].tolist()
        raise Mismatch("%s differs at %s: minimt %.7g, definition %.7g"
                       % (label, where, a[tuple(where)].item(), want[tuple(where)].item()))
    return gap[kept].max().item() if kept.any() else 0.0


def strip_extras(text):
    """The dump without the extras' keys (each written on a line of its own)."""
    keys = "|".join(prefix + suffix for _, prefix, _ in TYPES for suffix in SUFFIXES) + "|" + LENS
    return re.sub(r',\n "(?:%s)":\[[^\n]*\]' % keys, "", text)


def run_dump(ctx, command, lines, options):
    path = ctx.path("json")
    out = ctx.run(command, lines, list(options) + ["--dump-attention", path])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return out, text, json.loads(text)


def check_sentence(ctx, label, sentence, want, layers, heads, types, lens_k, masked=()):
    """One sentence of a dump against the definitions `want` (inside_formulas), for the kept
    `layers` ({"encoder": [...], "decoder": [...]}), `heads` and `types`."""
    worst = 0.0
    for kind, prefix, causal in TYPES:
        present = [k for k in sentence if k.startswith(prefix + "_") and k.endswith(SUFFIXES)]
        if kind not in types:
            if present:
                raise Mismatch("%s: %s not kept but the dump has %s" % (label, kind, present))
            continue
        stack = layers["encoder" if kind == "encoder" else "decoder"]
        for suffix in SUFFIXES:
            key = prefix + suffix
            if key not in sentence:
                raise Mismatch("%s: no %s" % (label, key))
            expected = want[key][stack][:, heads]
            worst = max(worst, compare("%s %s" % (label, key), sentence[key], expected))
        weights = tensor(sentence[WEIGHTS[kind]], label)
        scores = tensor(sentence[prefix + "_scores"], label)
        for li, layer in enumerate(stack):
            for hi, head in enumerate(heads):
                if (kind, layer, head) in masked:
                    norms = tensor(sentence[prefix + "_weighted_norms"], label)[li, hi]
                    if weights[li, hi].abs().max() > 0 or norms.abs().max() > 0 or \
                            tensor(sentence[prefix + "_head_norms"], label)[li, hi].abs().max() > 0:
                        raise Mismatch("%s: masked %s %d:%d has a weight or norm above 0"
                                       % (label, kind, layer, head))
                    continue
                row = torch.softmax(scores[li, hi].nan_to_num(nan=float("-inf")), dim=-1)
                gap = (row - weights[li, hi]).abs().max().item() if row.numel() else 0.0
                if gap > ROW_SOFTMAX:
                    raise Mismatch("%s: %s layer %d head %d: softmax of the scores differs from "
                                   "the weights by %.3g" % (label, kind, layer, head, gap))
    if lens_k:
        worst = max(worst, check_lens(ctx, label, sentence, want["lens"], layers["decoder"], lens_k))
    elif LENS in sentence:
        raise Mismatch("%s: a lens without --logit-lens" % label)
    return worst


def check_lens(ctx, label, sentence, probabilities, layers, k):
    lens = sentence.get(LENS)
    if not isinstance(lens, list) or len(lens) != len(layers):
        raise Mismatch("%s: %s has %s layers, want %d" % (label, LENS, lens and len(lens), len(layers)))
    worst = 0.0
    for li, layer in enumerate(layers):
        for t, listed in enumerate(lens[li]):
            p = probabilities[layer, t]
            best = torch.sort(p, descending=True).values[:k]
            got = [x["probability"] for x in listed]
            if len(listed) != min(k, p.numel()):
                raise Mismatch("%s: lens layer %d position %d lists %d tokens" % (label, layer, t, len(listed)))
            for rank, x in enumerate(listed):
                true = p[ctx.tr.target_sp.piece_to_id(x["token"])].item()
                for a, b in ((x["probability"], true), (x["probability"], best[rank].item())):
                    if abs(a - b) > ABSOLUTE and abs(a - b) > RELATIVE * abs(b):
                        raise Mismatch("%s: lens layer %d position %d rank %d %r: %.7g, definition "
                                       "%.7g (best there %.7g)" % (label, layer, t, rank, x["token"],
                                                                  x["probability"], true, best[rank]))
                    worst = max(worst, abs(a - b))
            if got != sorted(got, reverse=True):
                raise Mismatch("%s: lens layer %d position %d not best first" % (label, layer, t))
    if layers and layers[-1] == probabilities.shape[0] - 1:
        for t, (mine, alternatives) in enumerate(zip(lens[-1], sentence["alternatives"])):
            shared = min(len(mine), len(alternatives))
            if mine[:shared] != alternatives[:shared]:
                raise Mismatch("%s: the last layer's lens at %d %r, alternatives %r"
                               % (label, t, mine[:shared], alternatives[:shared]))
    return worst


def definitions(ctx, sentences):
    """inside_formulas on the dump's non-blank sentences, decoded in one padded batch."""
    sp_src, sp_tgt = ctx.tr.source_sp, ctx.tr.target_sp
    sources = [[sp_src.piece_to_id(p) for p in s["source_tokens"]] for s in sentences]
    inputs = [[sp_tgt.piece_to_id(p) for p in s["decoder_input_tokens"]] for s in sentences]
    return extras_of_batch(ctx.tr.model, sources, inputs, ctx.tr.pad)


def all_layers(ctx):
    c = ctx.tr.config
    return {"encoder": list(range(c["encoder_layers"])), "decoder": list(range(c["decoder_layers"]))}


def check_extras(ctx):
    lines = cwr.TEXTS
    options = ["--max-length", cs.MAX_LENGTH, "--batch-size", 32]
    plain_out, plain_text, _ = run_dump(ctx, "translate", lines, options)
    out, text, dump = run_dump(ctx, "translate", lines, options + FLAGS + ["--logit-lens", 4])
    if out != plain_out:
        raise Mismatch("stdout differs with the flags")
    if strip_extras(text) != plain_text:
        raise Mismatch("the dump's existing keys are not byte-identical with the flags")
    sentences = dump["sentences"]
    blank = [s for s in sentences if not s["source"].strip()]
    if len(blank) != 1 or blank[0]["output_tokens"] != ctx.tr.pieces([ctx.tr.eos]):
        raise Mismatch("the blank sentence's output is not eos alone: %r"
                       % [s["output_tokens"] for s in blank])
    shown = sentences
    heads = list(range(ctx.tr.config["num_heads"]))
    worst = 0.0
    for n, (s, want) in enumerate(zip(shown, definitions(ctx, shown))):
        worst = max(worst, check_sentence(ctx, "sentence %d" % n, s, want, all_layers(ctx), heads,
                                          ("encoder", "decoder", "cross"), 4))
    lengths = sorted(len(s["decoder_input_tokens"]) for s in shown)
    return "%d sentences in one batch (T %d..%d), worst gap %.2e" % (len(shown), lengths[0],
                                                                     lengths[-1], worst)


def check_selection(ctx):
    c = ctx.tr.config
    spec = "decoder:-1:1,cross:*:0"
    masked = {("decoder", c["decoder_layers"] - 1, 1)} | {("cross", l, 0) for l in range(c["decoder_layers"])}
    lines = [t for t in cwr.TEXTS if t.strip()][:12]
    options = ["--max-length", cs.MAX_LENGTH, "--batch-size", 32, "--dump-types", "decoder,cross",
               "--dump-layers", "-1", "--dump-heads", "1,0", "--mask-heads", spec, "--logit-lens", 7]
    _, _, dump = run_dump(ctx, "translate", lines, options + FLAGS)
    layers = {"encoder": [c["encoder_layers"] - 1], "decoder": [c["decoder_layers"] - 1]}
    with chm.Masked(ctx, spec):
        wants = definitions(ctx, dump["sentences"])
    worst = 0.0
    for n, (s, want) in enumerate(zip(dump["sentences"], wants)):
        worst = max(worst, check_sentence(ctx, "sentence %d" % n, s, want, layers, [1, 0],
                                          ("decoder", "cross"), 7, masked))
    return "%s, last layers, heads 1,0: %d sentences, worst gap %.2e" % (spec, len(wants), worst)


def check_score(ctx):
    pairs = chm.score_lines(ctx)[:10]
    _, _, dump = run_dump(ctx, "score", ["%s\t%s" % p for p in pairs], FLAGS + ["--logit-lens", 3])
    worst = 0.0
    heads = list(range(ctx.tr.config["num_heads"]))
    for n, (s, want) in enumerate(zip(dump["sentences"], definitions(ctx, dump["sentences"]))):
        worst = max(worst, check_sentence(ctx, "pair %d" % n, s, want, all_layers(ctx), heads,
                                          ("encoder", "decoder", "cross"), 3))
    return "%d pairs, worst gap %.2e" % (len(pairs), worst)


CHECKS = [("extras", check_extras), ("selection", check_selection), ("score", check_score)]


def main():
    return cs.run_checks(__doc__, "inside", MODELS, CHECKS, set())


if __name__ == "__main__":
    sys.exit(main())
