#!/usr/bin/python3
"""Compare minimt's --mask-heads and `minimt heads` (issue 12) with the PyTorch reference.

  compare_head_mask.py --minimt build/minimt [--workdir DIR] [--keep] [--only NAME]
                       [--checks NAME,...]

On random models of several shapes (2 to 4 heads, head_dim 5, 1 to 3 layers a side, F16
weights, pre/post norm) each check prints one PASS/FAIL line; the reference is
tools/reference (MinimtTransformer.set_head_mask: Hugging Face's head_mask with value 0,
weights * 0 after the softmax and before V), imported, with --mask-heads parsed by
tools/reference/pytorch_reference/head_mask_spec.py, written from the option's help and not
from minimt:
  mask      for each SPEC of MASKS (single heads, * layers and heads, negative indices, each
            attention type, all heads of a type): translate --mask-heads greedy output equals
            the reference's (text, tokens; token_log_probs 1e-4); score --mask-heads token
            log-probs and score within 1e-4 of the reference's teacher forcing; both dumps'
            weights within 1e-4 of the reference's, masked heads exactly 0, the other rows
            summing to 1, "masked_heads" listing the heads (absent without a mask); the
            reference's fast greedy path equals its recording one under the mask;
  out-proj  the arithmetic of head_mask 0 without any mask code: score --mask-heads SPEC on a
            model equals plain score on a copy whose out_proj columns of those heads are 0
            (1e-5; translations identical), for minimt and for the reference;
  beam      translate --beam-size 3 --mask-heads equals the reference's beam search under
            the mask (pytorch_reference/search: text, tokens, log-probs 1e-4);
  cross-all with cross:*:* the output no longer depends on the source: score of one target
            after different sources gives identical log-probs (and differs without the mask),
            every source translates to the same text;
  decoder-all with decoder:*:* a position's prediction depends only on its own input token:
            two targets with different first words give identical log-probs wherever the
            previous token and the token agree;
  heads     `minimt heads --format jsonl --batch-size 3`: every head once, sorted by delta_log_prob; for
            several heads, delta_log_prob equals (sum of score --mask-heads HEAD scores -
            sum of plain scores) / reference tokens, from two score --format jsonl runs
            (1e-5), and the pattern statistics equal those computed here from the plain
            score run's attention dump (entropy in nats, max, same, previous, first, eos,
            cross arg-max agreement with the head average; rows with one key, decoder
            position 0, left out; 1e-5);
  bad-spec  translate and score with crosss:0:0, cross:9:0, cross:0, encoder:x:1, an empty
            SPEC and others: exit status 2, a message naming the problem, nothing on stdout;
            the reference's commands refuse the same SPECs with status 2;
  reference-cli  reference.py translate/score --mask-heads print what minimt prints.
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""
# Over 400 lines on purpose: one check per head-masking claim of the issue, sharing the dump
# comparison and the engine runner of compare_search.py.

import io
import json
import os
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout

import torch  # noqa: E402

import compare_search as cs  # noqa: E402  (puts tests/ and tools/reference on the path)
import compare_with_reference as cwr  # noqa: E402
import head_patterns  # noqa: E402  (tests/head_patterns.py)
import reference  # noqa: E402  (the command line)
from pytorch_reference import head_mask_spec  # noqa: E402
from pytorch_reference.attention_dump import attention_dump  # noqa: E402
from pytorch_reference.model.config import head_dim_of  # noqa: E402
from pytorch_reference.model.files import load_model, save_model  # noqa: E402
from pytorch_reference.sample_text import FRENCH  # noqa: E402
from pytorch_reference.translator import Translator  # noqa: E402

Mismatch = cwr.Mismatch
MAX_LENGTH = 12
TOLERANCE = 1e-4        # minimt against PyTorch
SELF_TOLERANCE = 1e-5   # minimt against minimt (heads against score, masked against zeroed)
ROW_SUM_TOLERANCE = 1e-5
# minimt's packed kernels give the same bits for the same rows whatever else runs with them;
# OpenBLAS blocks by batch shape, so with it "identical" means within rounding.
SAME = 1e-5 if os.environ.get("MINIMT_KERNELS") == "openblas" else 0.0
TRANSLATE_TEXTS = cwr.TEXTS   # 30: a blank one, one cut at max_positions, short and long
SCORE_TEXTS = cs.TEXTS        # 16 non-blank
# Targets short enough for max_positions 32 with a 100-piece vocabulary (most of
# sample_text.FRENCH is not); score_lines adds the long ones that fit and greedy outputs.
SHORT_FRENCH = ["Le chat noir.", "Un petit chien court.", "Il fait froid.", "Où est la gare ?",
                "Nous allons au marché.", "Merci.", "la maison", "Elle lit des livres.",
                "Le musée ouvre à neuf heures.", "Fermez la porte."]

# (name, compare_with_reference model, extra random-model arguments): 2, 3 and 4 heads,
# head_dim 5 with d_model 16, 2+2, 3+1 and 3+3 layers, F32 and F16.
MODELS = [
    ("post-2heads-2+2-eos3", "post-sinusoidal-relu-tied-f32",
     ["--final-logits-bias", "--eos-boost", "3"]),
    ("post-3heads-headdim5-f16-eos4.5", "post-headdim5-3heads-silu-f16",
     ["--final-logits-bias", "--eos-boost", "4.5"]),
    ("pre-2heads-3enc-1dec", "pre-3enc-1dec-untied-bias-eps1e-3", []),
    ("pre-4heads-3+3-d64", "larger-64x4-3+3-pre-vocab64to200", []),
]

# Valid for every model above (>= 2 heads, >= 2 encoder layers, >= 1 decoder layer).
MASKS = [
    "encoder:0:0",
    "encoder:-1:*",
    "encoder:*:-1",
    "encoder:-2:1,decoder:0:-1,cross:-1:0",
    "decoder:-1:1",
    "decoder:*:0",
    "cross:0:-1",
    "cross:*:1",
    "encoder:*:*",
    "decoder:*:*",
    "cross:*:*",
]
BEAM_MASKS = ["encoder:-1:0,cross:0:1", "decoder:*:-1"]

KINDS = {"encoder_self_attention": "encoder", "decoder_self_attention": "decoder",
         "cross_attention": "cross"}

# (SPEC, fragments the message must contain): the model has 2 heads and 2+2 layers.
BAD_SPECS = [
    ("crosss:0:0", ["crosss", "type"]),
    ("cross:9:0", ["cross:9:0", "layer 9"]),
    ("cross:0", ["cross:0", "TYPE:LAYER:HEAD"]),
    ("encoder:x:1", ["encoder:x:1", "'x'", "number"]),
    ("", ["--mask-heads"]),
    (",", ["--mask-heads", "no head"]),
    ("cross:0:2", ["cross:0:2", "head 2"]),
    ("decoder:-3:0", ["decoder:-3:0", "layer -3"]),
    ("cross:0:0:0", ["cross:0:0:0", "TYPE:LAYER:HEAD"]),
    ("encoder:0:", ["encoder:0:", "head"]),
    ("cross:0:0,bogus", ["bogus", "TYPE:LAYER:HEAD"]),
]


# ----------------------------------------------------------------------------- helpers

class Masked:
    """The reference translator with a SPEC's heads masked inside a with block."""

    def __init__(self, ctx, spec):
        self.tr, self.spec = ctx.tr, spec

    def __enter__(self):
        self.tr.mask_heads(self.spec)
        return head_mask_spec.parse(self.spec, self.tr.config)

    def __exit__(self, *exc):
        self.tr.mask_heads(None)


def masked_set(head_mask):
    """{kind: {(layer, head)}} of a head_mask_spec.parse result."""
    return {kind: {tuple(x) for x in (m == 0).nonzero().tolist()}
            for kind, m in head_mask.items()}


def load_dump(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check_dump_header(label, dump, spec_string):
    if spec_string:
        if dump.get("masked_heads") != spec_string:
            raise Mismatch("%s: dump masked_heads %r, expected %r"
                           % (label, dump.get("masked_heads"), spec_string))
    elif "masked_heads" in dump:
        raise Mismatch("%s: a dump without --mask-heads lists masked_heads %r"
                       % (label, dump["masked_heads"]))


def check_matrix(label, kind, a, masked):
    """Masked heads exactly 0; the others' rows sum to 1; causal zeros exact."""
    for layer in range(a.shape[0]):
        for head in range(a.shape[1]):
            m = a[layer, head]
            if (layer, head) in masked:
                if (m != 0).any():
                    raise Mismatch("%s: %s layer %d head %d is masked but has weight %.3g"
                                   % (label, kind, layer, head, m.abs().max().item()))
                continue
            worst = (m.sum(dim=-1) - 1).abs().max().item() if m.numel() else 0.0
            if worst > ROW_SUM_TOLERANCE:
                raise Mismatch("%s: %s layer %d head %d rows sum to 1 only within %.3g"
                               % (label, kind, layer, head, worst))
    if kind == "decoder" and a.numel():
        t = a.shape[-1]
        if (a[..., torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)] != 0).any():
            raise Mismatch("%s: decoder self-attention above the diagonal" % label)


def compare_dump_sentence(label, ours, theirs, shape, masked):
    """ours: the reference's record, theirs: minimt's; returns the largest difference."""
    for key in ("source_tokens", "decoder_input_tokens", "output_tokens"):
        if theirs.get(key) != ours[key]:
            raise Mismatch("%s: %s minimt %r, reference %r"
                           % (label, key, theirs.get(key), ours[key]))
    worst = 0.0
    (enc_layers, dec_layers), heads = shape
    s, t = len(ours["source_tokens"]), len(ours["output_tokens"])
    for key, kind in KINDS.items():
        a = cwr.as_tensor(theirs.get(key), "minimt " + key)
        b = cwr.as_tensor(ours[key], "reference " + key)
        want = cwr.expected_shape(key, (enc_layers, dec_layers), heads, s, t)
        if t == 0 and kind != "encoder":
            if a.numel():
                raise Mismatch("%s: %s should be empty" % (label, key))
            continue
        if tuple(a.shape) != want or tuple(b.shape) != want:
            raise Mismatch("%s: %s shape minimt %s, reference %s, expected %s"
                           % (label, key, list(a.shape), list(b.shape), list(want)))
        check_matrix(label + " minimt", kind, a, masked[kind])
        check_matrix(label + " reference", kind, b, masked[kind])
        diff = (a - b).abs().max().item()
        if diff > TOLERANCE:
            where = torch.nonzero((a - b).abs() == diff)[0].tolist()
            raise Mismatch("%s: %s differs by %.3g at %s" % (label, key, diff, where))
        worst = max(worst, diff)
    return worst


def shape_of(ctx):
    c = ctx.tr.config
    return (c["encoder_layers"], c["decoder_layers"]), c["num_heads"]


def score_lines(ctx, extra=()):
    """(source, target) pairs within max_positions: short and long French sentences, the
    model's own greedy translations of the first sources, and extra pairs."""
    own = getattr(ctx, "own_translations", None)
    if own is None:
        ctx.own_translations = own = [(r["source"], r["translation"]) for r in ctx.tr.translate(
            SCORE_TEXTS[:6], MAX_LENGTH) if r["translation"]]
    pairs = list(zip(SCORE_TEXTS, SHORT_FRENCH)) + list(zip(SCORE_TEXTS[len(SHORT_FRENCH):],
                                                            FRENCH.splitlines()))
    pairs += own + list(extra)
    return [(s, t) for s, t in pairs if len(ctx.tr.target_ids(t)) + 1 <= ctx.tr.max_positions]


def compare_scores(label, records, refs):
    worst = 0.0
    for n, (record, ref) in enumerate(zip(records, refs)):
        logps = record.get("token_log_probs")
        if not isinstance(logps, list) or len(logps) != len(ref["token_log_probs"]):
            raise Mismatch("%s pair %d: token_log_probs %r, reference %d of them"
                           % (label, n, logps, len(ref["token_log_probs"])))
        diff = max(abs(x - y) for x, y in zip(logps, ref["token_log_probs"]))
        if diff > TOLERANCE or abs(record.get("score", 1e9) - ref["score"]) > TOLERANCE:
            raise Mismatch("%s pair %d: log-probs differ by %.3g, score minimt %r reference %r"
                           % (label, n, diff, record.get("score"), ref["score"]))
        worst = max(worst, diff)
    return worst


# ----------------------------------------------------------------------------- mask

def check_masked_translate(ctx, spec, head_mask):
    masked, shape = masked_set(head_mask), shape_of(ctx)
    refs = ctx.tr.translate(TRANSLATE_TEXTS, MAX_LENGTH, batch_size=len(TRANSLATE_TEXTS),
                            record_attention=True)
    fast = ctx.tr.translate(TRANSLATE_TEXTS, MAX_LENGTH, batch_size=7)
    for n, (slow, quick) in enumerate(zip(refs, fast)):
        if slow["ids"] != quick["ids"]:
            raise Mismatch("reference under %s: fast path %r, recording path %r (sentence %d)"
                           % (spec, quick["ids"], slow["ids"], n))
    dump_path = ctx.path("translate.json")
    records = ctx.translate(TRANSLATE_TEXTS, ["--mask-heads", spec, "--batch-size", 7,
                                              "--dump-attention", dump_path])
    for n, (record, ref) in enumerate(zip(records, refs)):
        label = "translate sentence %d (%r)" % (n, TRANSLATE_TEXTS[n][:20])
        if record.get("translation") != ref["translation"]:
            raise Mismatch("%s: minimt %r, reference %r"
                           % (label, record.get("translation"), ref["translation"]))
        want = ctx.tr.pieces(ref["ids"])  # eos included: one token per log-probability
        logps = record.get("token_log_probs", [])
        if record.get("tokens") != want or len(logps) != len(ref["scores"]) or any(
                abs(x - y) > TOLERANCE for x, y in zip(logps, ref["scores"])):
            raise Mismatch("%s: tokens %r log-probs %r, reference %r %r"
                           % (label, record.get("tokens"), logps, want, ref["scores"]))
    dump = load_dump(dump_path)
    check_dump_header("translate", dump, head_mask_spec.describe(head_mask))
    ours = attention_dump(ctx.tr, refs)
    if ours.get("masked_heads") != dump.get("masked_heads"):
        raise Mismatch("reference dump masked_heads %r" % ours.get("masked_heads"))
    worst = max(compare_dump_sentence("translate sentence %d" % n, o, t, shape, masked)
                for n, (o, t) in enumerate(zip(ours["sentences"], dump["sentences"])))
    return refs, worst


def check_masked_score(ctx, spec, head_mask, translations):
    masked, shape = masked_set(head_mask), shape_of(ctx)
    pairs = score_lines(ctx, [(r["source"], r["translation"]) for r in translations
                              if r["source"] and r["translation"]][:8])
    dump_path = ctx.path("score.json")
    records = ctx.jsonl("score", ["%s\t%s" % p for p in pairs],
                        ["--mask-heads", spec, "--dump-attention", dump_path])
    refs = [ctx.tr.score(s, t, record_attention=True) for s, t in pairs]
    worst = compare_scores("score " + spec, records, refs)
    dump = load_dump(dump_path)
    check_dump_header("score", dump, head_mask_spec.describe(head_mask))
    ours = attention_dump(ctx.tr, refs)["sentences"]
    worst_attention = max(compare_dump_sentence("score pair %d" % n, o, t, shape, masked)
                          for n, (o, t) in enumerate(zip(ours, dump["sentences"])))
    return len(pairs), worst, worst_attention


def check_mask(ctx):
    plain = [r["translation"] for r in ctx.translate(TRANSLATE_TEXTS, [])]
    dump_path = ctx.path("plain.json")
    ctx.jsonl("score", ["%s\t%s" % p for p in score_lines(ctx)], ["--dump-attention", dump_path])
    check_dump_header("score without a mask", load_dump(dump_path), "")
    notes, worst = [], [0.0, 0.0]
    for spec in MASKS:
        with Masked(ctx, spec) as head_mask:
            try:
                refs, w_translate = check_masked_translate(ctx, spec, head_mask)
                pairs, w_score, w_attention = check_masked_score(ctx, spec, head_mask, refs)
            except Mismatch as e:
                raise Mismatch("--mask-heads %s: %s" % (spec, e))
        changed = sum(r["translation"] != p for r, p in zip(refs, plain))
        notes.append("%s:%d" % (spec, changed))
        worst = [max(worst[0], w_score), max(worst[1], w_translate, w_attention)]
    return ("%d masks, log-prob diff %.1e, attention diff %.1e; translations changed: %s"
            % (len(MASKS), worst[0], worst[1], " ".join(notes)))


# ----------------------------------------------------------------------------- out-proj

def zeroed_copy(ctx, spec, head_mask):
    """A copy of the model whose out_proj columns of the masked heads are 0, no mask set."""
    model, config = load_model(ctx.model_dir)
    dk = head_dim_of(config)
    with torch.no_grad():
        for kind, pairs in masked_set(head_mask).items():
            modules = model.attention_modules(kind)
            for layer, head in pairs:
                modules[layer].out_proj.weight[:, head * dk:(head + 1) * dk] = 0.0
    out = ctx.path("zeroed")
    os.makedirs(out)
    save_model(model, config, out, "F32")  # F16/BF16 values widen exactly
    for name in config["tokenizer"].values():
        shutil.copy(os.path.join(ctx.model_dir, name), os.path.join(out, name))
    return out


def check_out_proj(ctx):
    pairs = score_lines(ctx)
    lines = ["%s\t%s" % p for p in pairs]
    worst = 0.0
    for spec in MASKS:
        zeroed = zeroed_copy(ctx, spec, head_mask_spec.parse(spec, ctx.tr.config))
        masked = ctx.jsonl("score", lines, ["--mask-heads", spec])
        plain = ZeroedRun(ctx, zeroed).jsonl("score", lines, [])
        for n, (a, b) in enumerate(zip(masked, plain)):
            diff = max(abs(x - y) for x, y in zip(a["token_log_probs"], b["token_log_probs"]))
            if diff > SELF_TOLERANCE:
                raise Mismatch("%s pair %d: masked %r, zeroed out_proj %r"
                               % (spec, n, a["token_log_probs"], b["token_log_probs"]))
            worst = max(worst, diff)
        texts = [t for t in TRANSLATE_TEXTS if t]
        a = ctx.run("translate", texts, ["--max-length", MAX_LENGTH, "--mask-heads", spec])
        b = ZeroedRun(ctx, zeroed).run("translate", texts, ["--max-length", MAX_LENGTH])
        if a != b:
            raise Mismatch("%s: translations masked\n%s\nzeroed out_proj\n%s" % (spec, a, b))
        zeroed_tr = Translator(zeroed, quiet=True)
        with Masked(ctx, spec):
            for source, target in pairs[:6]:
                x = ctx.tr.score(source, target)["token_log_probs"]
                y = zeroed_tr.score(source, target)["token_log_probs"]
                if max(abs(u - v) for u, v in zip(x, y)) > SELF_TOLERANCE:
                    raise Mismatch("reference %s: masked %r, zeroed out_proj %r" % (spec, x, y))
    return "%d masks, max diff %.1e" % (len(MASKS), worst)


class ZeroedRun(cs.Context):
    """compare_search's runner on another model directory of the same context (without
    Context.__init__, which would write a new random model)."""

    def __init__(self, ctx, model_dir):  # pylint: disable=super-init-not-called
        self.minimt, self.workdir, self.name = ctx.minimt, ctx.workdir, ctx.name + "-zeroed"
        self.model_dir, self.tr, self.files, self.runner = model_dir, ctx.tr, 0, ctx.runner


# ----------------------------------------------------------------------------- beam

def check_beam(ctx):
    texts, worst = SCORE_TEXTS[:8], 0.0
    for spec in BEAM_MASKS:
        records = ctx.translate(texts, ["--beam-size", 3, "--mask-heads", spec])
        with Masked(ctx, spec):
            refs = ctx.tr.beam(texts, 3, 1, 0.0, MAX_LENGTH)
            for n, (record, ref) in enumerate(zip(records, refs)):
                want = ctx.tr.hypothesis(ref["hypotheses"][0])
                worst = max(worst, cs.compare_hyp(ctx, "%s sentence %d" % (spec, n), texts[n],
                                                  record, want, 0.0))
    return "%s; max log-prob diff %.1e" % (", ".join(BEAM_MASKS), worst)


# ----------------------------------------------------------------------------- all heads

def check_cross_all(ctx):
    targets = SHORT_FRENCH[:5]
    sources = SCORE_TEXTS[:5]
    lines = ["%s\t%s" % (s, t) for t in targets for s in sources
             if len(ctx.tr.target_ids(t)) + 1 <= ctx.tr.max_positions]
    masked = ctx.jsonl("score", lines, ["--mask-heads", "cross:*:*"])
    plain = ctx.jsonl("score", lines, [])
    groups = {}
    for m, p in zip(masked, plain):
        groups.setdefault(m["target"], []).append((m, p))
    for target, rows in groups.items():
        first = rows[0][0]["token_log_probs"]
        for m, _ in rows[1:]:
            diff = max(abs(x - y) for x, y in zip(m["token_log_probs"], first))
            if diff > SAME:
                raise Mismatch("cross:*:*: %r scores %r after %r, %r after %r"
                               % (target, m["token_log_probs"], m["source"], first,
                                  rows[0][0]["source"]))
        if len({json.dumps(p["token_log_probs"]) for _, p in rows}) < 2:
            raise Mismatch("without a mask %r scores the same after every source: the check "
                           "cannot tell" % target)
        ref = [ctx.tr.score(m["source"], target)["token_log_probs"] for m, _ in rows]
        with Masked(ctx, "cross:*:*"):
            ref_masked = [ctx.tr.score(m["source"], target)["token_log_probs"] for m, _ in rows]
        if ref_masked[0] == ref[0] or max(abs(x - y) for r in ref_masked
                                          for x, y in zip(r, first)) > TOLERANCE:
            raise Mismatch("reference cross:*:* for %r: %r vs minimt %r"
                           % (target, ref_masked, first))
    out = ctx.run("translate", SCORE_TEXTS, ["--max-length", MAX_LENGTH,
                                             "--mask-heads", "cross:*:*"]).splitlines()
    if len(set(out)) != 1:
        raise Mismatch("cross:*:*: different sources translate differently: %r" % out)
    return "%d targets x %d sources identical; all translate to %r" % (len(groups),
                                                                        len(sources), out[0])


def aligned_targets(ctx):
    """Two targets: different first words with as many pieces, then one shared tail."""
    words = sorted({w for line in FRENCH.splitlines() for w in line.split()})
    tail = "le chat noir mange du pain"
    by_length = {}
    for w in words:
        by_length.setdefault(len(ctx.tr.target_ids(w)), []).append(w)
    for n in sorted(by_length):
        if len(by_length[n]) >= 2:
            a, b = ("%s %s" % (w, tail) for w in by_length[n][:2])
            ids_a, ids_b = ctx.tr.target_ids(a) + [ctx.tr.eos], ctx.tr.target_ids(b) + [ctx.tr.eos]
            if len(ids_a) == len(ids_b) and ids_a[n:] == ids_b[n:] and ids_a[:n] != ids_b[:n]:
                return a, b, ids_a, ids_b, n
    raise Mismatch("no two first words of the same piece count")


def check_decoder_all(ctx):
    a, b, ids_a, ids_b, n = aligned_targets(ctx)
    source = SCORE_TEXTS[0]
    lines = ["%s\t%s" % (source, a), "%s\t%s" % (source, b)]
    masked = ctx.jsonl("score", lines, ["--mask-heads", "decoder:*:*"])
    plain = ctx.jsonl("score", lines, [])
    # Position k reads input ids[k-1]; from k = n + 1 on, input and output agree while the
    # earlier tokens (the first words) differ.
    positions = range(n + 1, len(ids_a))
    compared = 0
    for k in positions:
        x, y = masked[0]["token_log_probs"][k], masked[1]["token_log_probs"][k]
        if abs(x - y) > SAME:
            raise Mismatch("decoder:*:*: %r and %r give token %d log-probs %r and %r"
                           % (a, b, k, x, y))
        compared += 1
    if all(plain[0]["token_log_probs"][k] == plain[1]["token_log_probs"][k] for k in positions):
        raise Mismatch("without a mask %r and %r score their tails identically: the check "
                       "cannot tell" % (a, b))
    with Masked(ctx, "decoder:*:*"):
        ref = ctx.tr.score(source, a)["token_log_probs"]
    if max(abs(x - y) for x, y in zip(ref, masked[0]["token_log_probs"])) > TOLERANCE:
        raise Mismatch("decoder:*:*: reference %r, minimt %r" % (ref, masked[0]["token_log_probs"]))
    return "%r / %r: %d positions identical" % (a, b, compared)


# ----------------------------------------------------------------------------- heads

def head_name(record):
    return "%s:%d:%d" % (record["type"], record["layer"], record["head"])


def check_heads(ctx):
    pairs = score_lines(ctx)[:10]
    lines = ["%s\t%s" % p for p in pairs]
    out = ctx.run("heads", lines, ["--format", "jsonl", "--threads", 2, "--batch-size", 3])
    records = [json.loads(x) for x in out.splitlines()]
    c = ctx.tr.config
    every = ["%s:%d:%d" % (k, l, h) for k in ("encoder", "decoder", "cross")
             for l in range(c["encoder_layers"] if k == "encoder" else c["decoder_layers"])
             for h in range(c["num_heads"])]
    if sorted(head_name(r) for r in records) != sorted(every):
        raise Mismatch("heads lists %s, the model has %s" % ([head_name(r) for r in records],
                                                             every))
    deltas = [r["delta_log_prob"] for r in records]
    if deltas != sorted(deltas):
        raise Mismatch("heads not sorted by delta_log_prob: %s" % deltas)
    dump_path = ctx.path("heads-plain.json")
    base = ctx.jsonl("score", lines, ["--dump-attention", dump_path])
    sentences = load_dump(dump_path)["sentences"]
    tokens = sum(len(r["token_log_probs"]) for r in base)
    chosen = {records[0]["type"]: records[0], records[-1]["type"]: records[-1]}
    for r in records:
        chosen.setdefault(r["type"], r)
    checked = []
    for r in list(chosen.values()) + [records[len(records) // 2]]:
        name = head_name(r)
        masked = ctx.jsonl("score", lines, ["--mask-heads", name])
        want = (sum(m["score"] for m in masked) - sum(b["score"] for b in base)) / tokens
        if abs(r["delta_log_prob"] - want) > SELF_TOLERANCE:
            raise Mismatch("heads %s: delta_log_prob %r, from two score runs %r"
                           % (name, r["delta_log_prob"], want))
        stats = head_patterns.pattern(sentences, r["type"], r["layer"], r["head"])
        for key, value in stats.items():
            if value is None or r.get(key) is None or abs(r[key] - value) > SELF_TOLERANCE:
                raise Mismatch("heads %s: %s %r, from the score dump %r"
                               % (name, key, r.get(key), value))
        extra = set(r) - set(stats) - {"type", "layer", "head", "delta_log_prob"}
        if extra:
            raise Mismatch("heads %s: keys %s do not apply to %s attention"
                           % (name, sorted(extra), r["type"]))
        checked.append("%s %+.4f" % (name, want))
    return "%d heads, %d pairs, %d tokens; checked %s" % (len(records), len(pairs), tokens,
                                                          ", ".join(checked))


# ----------------------------------------------------------------------------- bad SPECs

def run_status(ctx, command, lines, options):
    cmd = [ctx.minimt, command, "--model", ctx.model_dir, "-i", ctx.write(lines)]
    proc = ctx.runner(cmd + [str(o) for o in options])
    return proc.status, proc.out.decode("utf-8", "replace"), proc.err.decode("utf-8", "replace")


def reference_status(ctx, command, spec):
    args = [command, "--model", ctx.model_dir, "--mask-heads", spec, SCORE_TEXTS[0]]
    if command == "score":
        args.append("Le chat.")
    err = io.StringIO()
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            status = reference.main(args)
    except SystemExit as e:
        status = e.code
    return status, err.getvalue()


def check_bad_specs(ctx):
    c = ctx.tr.config
    if (c["num_heads"], c["encoder_layers"], c["decoder_layers"]) != (2, 2, 2):
        raise Mismatch("BAD_SPECS are written for 2 heads and 2+2 layers")
    problems = []
    for spec, fragments in BAD_SPECS:
        for command, lines in (("translate", [SCORE_TEXTS[0]]),
                               ("score", ["%s\tLe chat." % SCORE_TEXTS[0]])):
            status, out, err = run_status(ctx, command, lines, ["--mask-heads", spec])
            missing = [f for f in fragments if f not in err]
            hint = "Run 'minimt %s --help' for usage." % command  # after the one line
            if status != 2 or out or missing or err.strip().splitlines()[1:] != [hint]:
                problems.append("%s --mask-heads %r: status %d, stdout %r, stderr %r (missing %s)"
                                % (command, spec, status, out[:80], err.strip(), missing))
            status, err = reference_status(ctx, command, spec)
            if status != 2 or "--mask-heads" not in err:
                problems.append("reference %s --mask-heads %r: status %r, %r"
                                % (command, spec, status, err.strip()))
    if problems:
        raise Mismatch("\n    ".join([""] + problems))
    return "%d SPECs x translate, score: status 2 with the problem named" % len(BAD_SPECS)


def reference_main(args):
    """reference.py ARGS in this process -> its stdout."""
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        status = reference.main(args)
    if status:
        raise Mismatch("reference.py %s exited with %r" % (" ".join(args[:1]), status))
    return out.getvalue()


def check_reference_cli(ctx):
    """reference.py translate/score --mask-heads print what minimt prints."""
    spec, texts = "encoder:-1:0,cross:*:-1", SCORE_TEXTS[:6]
    dump_path = ctx.path("reference.json")
    out = reference_main(["translate", "--model", ctx.model_dir, "--max-length", str(MAX_LENGTH),
                          "--mask-heads", spec, "--dump-attention", dump_path] + texts)
    want = ctx.run("translate", texts, ["--max-length", MAX_LENGTH, "--mask-heads", spec])
    if out != want:
        raise Mismatch("reference.py translate --mask-heads %s:\n%s\nminimt:\n%s"
                       % (spec, out, want))
    check_dump_header("reference.py translate", load_dump(dump_path),
                      head_mask_spec.describe(head_mask_spec.parse(spec, ctx.tr.config)))
    pairs = score_lines(ctx)[:4]
    out = reference_main(["score", "--model", ctx.model_dir, "--mask-heads", spec] +
                         [x for pair in pairs for x in pair])
    records = ctx.jsonl("score", ["%s\t%s" % p for p in pairs], ["--mask-heads", spec])
    compare_scores("reference.py score", records, [json.loads(x) for x in out.splitlines()])
    return "%s: %d translations, %d scores" % (spec, len(texts), len(pairs))


CHECKS = [("mask", check_mask), ("out-proj", check_out_proj), ("beam", check_beam),
          ("cross-all", check_cross_all), ("decoder-all", check_decoder_all),
          ("heads", check_heads), ("bad-spec", check_bad_specs),
          ("reference-cli", check_reference_cli)]
FIRST_MODEL_ONLY = {"bad-spec", "beam", "reference-cli"}


# ----------------------------------------------------------------------------- main

def main():
    return cs.run_checks(__doc__, "head-mask", MODELS, CHECKS, FIRST_MODEL_ONLY)


if __name__ == "__main__":
    sys.exit(main())
