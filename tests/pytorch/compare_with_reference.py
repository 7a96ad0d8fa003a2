#!/usr/bin/python3
"""Compare the C++ engine with the PyTorch reference on small random models.

  compare_with_reference.py --minimt build/minimt --workdir DIR [--keep] [--only NAME]

For each model (covering post/pre norm, head_dim != d_model/num_heads, learned and
sinusoidal positions, tied and untied output, final_logits_bias, relu/gelu/silu,
F32/F16/BF16 safetensors and inline weights) it runs, for each batch size B of 1, 3 and 32,

  minimt translate --model M --max-length 12 --batch-size B --dump-attention FILE TEXT...

on all the texts at once (so that batches of 3 and 32 really hold several sentences of
different lengths), and the reference (imported, not spawned) on the same texts, then
checks for every batch size: identical translations and token lists; attention matrices
of the same shapes within 1e-4; decoder self-attention exactly 0 above the diagonal; every
row summing to 1 (1e-5). It also checks that the reference's fast path (length-sorted
batches, no attention records: what tools/bench/run times) translates as its recording path.
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import kernel_settings  # noqa: E402
import support  # noqa: E402

support.use_tools("reference")
import torch  # noqa: E402

from pytorch_reference.attention_dump import attention_dump  # noqa: E402
from pytorch_reference.sample_text import ENGLISH  # noqa: E402
from pytorch_reference.translator import Translator, is_blank  # noqa: E402

MAX_LENGTH = 12

# The format's forward pass makes the source of "" just [eos]. The engine does not search it:
# it translates blank input to "", the output eos alone, with the model's attention and
# log-probability for it (include/minimt/app/translate/translator.h); the reference does the same with
# skip_blank (blank_result). False would search it like any other source.
BLANK_INPUT_SKIPPED = True
ATTENTION_TOLERANCE = 1e-4
ROW_SUM_TOLERANCE = 1e-5

TEXTS = [
    "The cat sat on the mat.",
    "",
    # long enough to be cut at max_positions by every model below
    "Where is the railway station? It is near the old bridge, and the museum opens at "
    "nine o'clock, so we will walk along the river to the market and buy some bread.",
    "My grandmother makes the best apple pie in the world.",
    "Zebras & quartz: 42!",
] + ENGLISH.splitlines()  # 30 sentences: a batch of 32 holds them all

BATCH_SIZES = (1, 3, 32)

# (name, random-model arguments): support.ARCHITECTURES, made by the random_models fixture.
MODELS = support.ARCHITECTURES


Mismatch = support.Mismatch


def run_engine(run, minimt, model_dir, texts, dump_path, batch_size):
    """minimt translate through `run` (kernel_settings.runner: under every kernel setting)."""
    cmd = [minimt, "translate", "--model", model_dir, "--max-length", str(MAX_LENGTH),
           "--batch-size", str(batch_size), "--dump-attention", dump_path] + texts
    proc = run(cmd)
    if proc.returncode != 0:
        raise Mismatch("minimt exited with %s: %s"
                       % (proc.returncode, proc.stderr.decode("utf-8", "replace").strip()[-800:]))
    lines = proc.stdout.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    with open(dump_path, encoding="utf-8") as f:
        dump = json.load(f)
    return lines, dump


def as_tensor(value, what):
    try:
        t = torch.tensor(value, dtype=torch.float64)
    except (ValueError, TypeError) as e:
        raise Mismatch("%s is not a rectangular array: %s" % (what, e))
    return t


def expected_shape(kind, layers, heads, s, t):
    return {"encoder_self_attention": (layers[0], heads, s, s),
            "decoder_self_attention": (layers[1], heads, t, t),
            "cross_attention": (layers[1], heads, t, s)}[kind]


def check_rows(name, what, a):
    """Every row sums to 1; for decoder self-attention, exact zeros above the diagonal."""
    if a.numel() == 0:
        return
    sums = a.sum(dim=-1)
    worst = (sums - 1).abs().max().item()
    if worst > ROW_SUM_TOLERANCE:
        raise Mismatch("%s: %s rows sum to 1 only within %.3g" % (name, what, worst))
    if what == "decoder_self_attention":
        t = a.shape[-1]
        upper = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        if (a[..., upper] != 0).any():
            raise Mismatch("%s: decoder self-attention has non-zero weight above the diagonal"
                           % name)


def compare_sentence(index, ours, theirs, shape_info):
    """ours: reference record; theirs: engine record. Returns the max attention diff."""
    label = "sentence %d (%r)" % (index, ours["source"][:30])
    if "error" in theirs:
        raise Mismatch("%s: minimt reports an error: %s" % (label, theirs["error"]))
    for key in ("source", "translation", "source_tokens", "decoder_input_tokens",
                "output_tokens"):
        if theirs.get(key) != ours[key]:
            hint = ""
            if is_blank(ours["source"]) and not BLANK_INPUT_SKIPPED:
                hint = ("\n    (blank input: the reference searched it; the engine gives it "
                        "eos alone, see BLANK_INPUT_SKIPPED)")
            raise Mismatch("%s: %s differs:\n    minimt:    %r\n    reference: %r%s"
                           % (label, key, theirs.get(key), ours[key], hint))
    layers, heads = shape_info
    s, t = len(ours["source_tokens"]), len(ours["output_tokens"])
    worst = 0.0
    for kind in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
        if kind not in theirs:
            raise Mismatch("%s: minimt dump lacks %s" % (label, kind))
        a = as_tensor(theirs[kind], "minimt " + kind)
        b = as_tensor(ours[kind], "reference " + kind)
        want = expected_shape(kind, layers, heads, s, t)
        if t == 0 and kind != "encoder_self_attention":
            # An empty [L][H][0][..] may collapse to [L][H][0]; only the count matters.
            if a.numel() != 0:
                raise Mismatch("%s: %s should be empty" % (label, kind))
            continue
        if tuple(a.shape) != want or tuple(b.shape) != want:
            raise Mismatch("%s: %s shape minimt %s, reference %s, expected %s"
                           % (label, kind, list(a.shape), list(b.shape), list(want)))
        check_rows(label + " minimt", kind, a)
        check_rows(label + " reference", kind, b)
        diff = (a - b).abs().max().item() if a.numel() else 0.0
        if diff > ATTENTION_TOLERANCE:
            where = torch.nonzero((a - b).abs() == diff)[0].tolist()
            raise Mismatch("%s: %s differs by %.3g at %s (minimt %.6f, reference %.6f)"
                           % (label, kind, diff, where, a[tuple(where)].item(),
                              b[tuple(where)].item()))
        worst = max(worst, diff)
    return worst


def check_model(run, minimt, workdir, name):
    model_dir = support.random_model("arch-" + name)
    translator = Translator(model_dir, quiet=True, skip_blank=BLANK_INPUT_SKIPPED)
    results = translator.translate(TEXTS, MAX_LENGTH, batch_size=len(TEXTS), record_attention=True)
    ours = attention_dump(translator, results)

    # The fast path of the reference (what tools/bench/run times) must agree with the recording one.
    fast = translator.translate(TEXTS, MAX_LENGTH, batch_size=7)
    for i, (slow, quick) in enumerate(zip(results, fast)):
        if slow["ids"] != quick["ids"]:
            raise Mismatch("sentence %d (%r): the reference's fast path gives %r, its recording "
                           "path %r" % (i, TEXTS[i][:30], quick["ids"], slow["ids"]))

    cfg = translator.config
    shape_info = ((cfg["encoder_layers"], cfg["decoder_layers"]), cfg["num_heads"])
    worst, problems = 0.0, []
    for batch_size in BATCH_SIZES:
        label = "--batch-size %d: " % batch_size
        dump_path = os.path.join(workdir, "%s.b%d.attention.json" % (name, batch_size))
        lines, theirs = run_engine(run, minimt, model_dir, TEXTS, dump_path, batch_size)
        if theirs.get("format") != "minimt-attention" or theirs.get("version") != 1:
            raise Mismatch(label + "dump format/version is %r/%r"
                           % (theirs.get("format"), theirs.get("version")))
        sentences = theirs.get("sentences")
        if not isinstance(sentences, list) or len(sentences) != len(TEXTS):
            raise Mismatch(label + "dump has %s sentences, expected %d"
                           % (len(sentences) if isinstance(sentences, list) else "no", len(TEXTS)))
        if len(lines) != len(TEXTS):
            raise Mismatch(label + "minimt printed %d lines for %d inputs: %r"
                           % (len(lines), len(TEXTS), lines))
        # Every sentence is checked, so one policy difference does not hide numeric ones.
        for i, (mine, other, line) in enumerate(zip(ours["sentences"], sentences, lines)):
            try:
                worst = max(worst, compare_sentence(i, mine, other, shape_info))
                if line != mine["translation"]:
                    raise Mismatch("sentence %d (%r): stdout line %r, reference %r"
                                   % (i, mine["source"][:30], line, mine["translation"]))
            except Mismatch as e:
                problems.append(label + str(e))
    if problems:
        raise Mismatch("%d of %d sentence runs differ (max attention diff of the others %.2e):"
                       "\n  %s" % (len(problems), len(TEXTS) * len(BATCH_SIZES), worst,
                                   "\n  ".join(problems[:12])))
    lengths = [len(r["ids"]) for r in results]
    return "max attention diff %.2e  batch sizes %s  output lengths %d..%d" % (
        worst, ",".join(map(str, BATCH_SIZES)), min(lengths), max(lengths))


def main():
    parser = support.parser(__doc__, workdir=True)
    parser.add_argument("--only", help="run only models whose name contains this")
    kernel_settings.add_default_only(parser)
    args = parser.parse_args()
    minimt = support.minimt_from(args)
    run = kernel_settings.runner(args)
    torch.set_num_threads(1)
    tally = support.Tally()
    with support.Workdir(args, "compare") as workdir:
        for name, _ in MODELS:
            if not args.only or args.only in name:
                tally.case(name, check_model, run, minimt, workdir, name)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
