#!/usr/bin/python3
"""tools/convert_hf.py and minimt on mBART-50, M2M100, NLLB and T5 checkpoints in the exact
Hugging Face layout (make_checkpoint.py: random weights, the hub's tensor names, config
fields, tokenizer files and id conventions, language codes), against a PyTorch forward written
from each family's modeling file (hf_bart.py, hf_t5.py) and generate()'s greedy settings
(hf_generate.py), which share no code with the converter. For each variant:

  1. make_checkpoint.py writes the checkpoint; tools/convert_hf.py converts it;
  2. `minimt tokenize` gives the Hugging Face tokenizer's source ids (hf_tokenizers.py:
     language code, pieces, </s>; T5's task prefix);
  3. `minimt translate --format jsonl --dump-attention` gives the reference's greedy ids
     (the forced language code first), every log-probability and the score (1e-4 per token),
     the text, and every attention matrix (encoder, decoder, cross; 1e-4);
  4. `minimt score` gives the reference's teacher-forced log-probability of the reference
     translation;
  5. int8, --mask-heads, heads, --view, --align and beam search run on the converted model.

Then refusals: unknown language codes (the known ones listed), what the format cannot hold
(an unexpected tensor, a feed-forward kind, mBART-cc25's tokenizer), too small a vocabulary,
tokenizer ids that disagree; each exits 1 with one line naming the key or tensor, no OUT_DIR.

T5 variants keep relative_attention_max_distance small (6, 8 buckets) so that most sentences
are longer than it; one T5 dump is compared byte for byte under every Linear kernel this CPU
runs. The test fails unless it compared a minimum number of tokens and matrices.

    /usr/bin/python3 tests/families/test_families.py --minimt build/minimt [--keep DIR]
"""
import json
import os
import shutil
import sys
import tempfile

import sentencepiece as spm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import checks  # noqa: E402  (puts tests/ on the path for support)
import hf_bart  # noqa: E402
import hf_generate  # noqa: E402
import hf_t5  # noqa: E402
import support  # noqa: E402
from hf_tokenizers import HfTokenizer  # noqa: E402

CONVERTER = os.path.join(ROOT, "tools", "convert_hf.py")
MAKER = os.path.join(HERE, "make_checkpoint.py")
MAX_LENGTH = 16
TEXTS = [
    "The cat sat on the mat.",
    "Where is the railway station?",
    "My grandmother makes the best apple pie in the world, and the children are playing "
    "football in the park.",
    "Le musée ouvre à neuf heures du matin.",
    "Zebras & quartz: 42!",
    "Ünicode ☃ and 漢字 too",
    "   extra   spaces   here  ",
]

# (name, family, make_checkpoint arguments, source language, target language)
VARIANTS = [
    ("mbart50-safetensors", "mbart50", ["--seed", "11", "--eos-bias", "4"], "en_XX", "fr_XX"),
    ("mbart50-bin-relu", "mbart50", ["--seed", "12", "--weights", "bin", "--activation", "relu"],
     "fr_XX", "de_DE"),
    ("m2m100-safetensors", "m2m100", ["--seed", "13", "--activation", "relu"], "en", "fr"),
    ("m2m100-bin-gelu", "m2m100", ["--seed", "14", "--weights", "bin"], "fr", "de"),
    ("nllb-safetensors", "nllb", ["--seed", "15", "--activation", "relu"], "eng_Latn",
     "fra_Latn"),
    ("t5-tied-relu-prefix", "t5", ["--seed", "16", "--published-layout"], "en", "fr"),
    ("t5-v1.1-gated-bin", "t5", ["--seed", "17", "--gated", "--weights", "bin"], None, None),
    ("t5-small-layout-bin", "t5", ["--seed", "18", "--weights", "bin", "--published-layout"],
     "en", "fr"),
]


def reference_model(family, reference_dir):
    state = torch.load(os.path.join(reference_dir, "state.pt"), weights_only=True)
    with open(os.path.join(reference_dir, "config.json")) as f:
        config = json.load(f)
    if family == "t5":
        return hf_t5.T5(state, config), config
    return hf_bart.BartFamily(state, config, "mbart" if family == "mbart50" else "m2m100"), config


def run_variant(res, binary, work, name, family, maker_args, source, target):
    hf = os.path.join(work, name, "hf")
    out = os.path.join(work, name, "minimt")
    p = checks.run([sys.executable, MAKER, family, hf] + maker_args)
    if not res.check(p.returncode == 0, "%s: make_checkpoint failed: %s" % (name, p.stderr)):
        return None
    languages = (["--source-lang", source, "--target-lang", target] if source else [])
    p = checks.run([sys.executable, CONVERTER, hf, out] + languages)
    if not res.check(p.returncode == 0, "%s: conversion failed: %s" % (name, p.stderr.strip())):
        return None
    check_ignored_tensor(res, name, maker_args, p.stderr)
    model, config = reference_model(family, hf + ".reference")
    tokenizer = HfTokenizer(family, hf)
    prefix = "translate English to French: " if family == "t5" and source else ""
    sources = [tokenizer.source_ids(t, source, prefix) for t in TEXTS]
    listed = checks.minimt(binary, "tokenize", "--model", out, *TEXTS).splitlines()
    for text, line, want in zip(TEXTS, listed, sources):
        got = [int(i) for i in line.split("\t")[1].split()]
        res.check(got == want, "%s: source ids of %r: minimt %s, Hugging Face %s"
                  % (name, text, got, want))
    start = config["decoder_start_token_id"]
    eos = config["eos_token_id"]
    forced = tokenizer.target_code(target) if family != "t5" else None
    converted = spm.SentencePieceProcessor(model_file=os.path.join(out, "tokenizer.spm"))
    records, sentences = checks.translate(binary, out, TEXTS, MAX_LENGTH,
                                          os.path.join(work, name, "dump.json"))
    pairs = []
    for text, ids, record, sentence in zip(TEXTS, sources, records, sentences):
        ref = hf_generate.greedy(model, ids, start, eos, MAX_LENGTH, forced)
        body = [t for t in ref["tokens"] if t != eos]
        checks.compare_output(res, "%s: %r" % (name, text), record, sentence, ref,
                              converted.piece_to_id, tokenizer.decode(body))
        res.check(len(sentence["source_tokens"]) == len(ids), "%s: %r: %d source tokens in the "
                  "dump, %d ids" % (name, text, len(sentence["source_tokens"]), len(ids)))
        reference_text = tokenizer.decode(body)
        if reference_text and reference_text.strip():
            pairs.append((text, ids, reference_text))
    check_score(res, binary, out, name, model, tokenizer, pairs, start, eos, forced)
    check_processors(res, binary, out, work, name, model, sources, start, eos, forced)
    print("%s: %d texts compared" % (name, len(TEXTS)))
    return out


IGNORED = "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"


def check_ignored_tensor(res, name, maker_args, stderr):
    """t5-small's unused cross-attention bias is left out with one warning line naming it."""
    lines = [l for l in stderr.splitlines() if l.startswith("warning: ")]
    if "--published-layout" not in maker_args:
        res.check(not lines, "%s: unexpected warnings %s" % (name, lines))
        return
    res.check(len(lines) == 1 and IGNORED in lines[0] and "left out" in lines[0],
              "%s: wanted one warning naming %s, got %r" % (name, IGNORED, stderr))


def check_processors(res, binary, out, work, name, model, sources, start, eos, forced):
    """--repetition-penalty and --no-repeat-ngram-size against generate()'s processors."""
    processors = {"repetition_penalty": 1.5, "no_repeat_ngram_size": 2}
    records, sentences = checks.translate(
        binary, out, TEXTS, MAX_LENGTH, os.path.join(work, name, "processors.json"),
        extra=("--repetition-penalty", "1.5", "--no-repeat-ngram-size", "2"))
    converted = spm.SentencePieceProcessor(model_file=os.path.join(out, "tokenizer.spm"))
    for text, ids, record, sentence in zip(TEXTS, sources, records, sentences):
        ref = hf_generate.greedy(model, ids, start, eos, MAX_LENGTH, forced, **processors)
        mine = [converted.piece_to_id(p) for p in sentence["output_tokens"]]
        res.check(mine == ref["tokens"] and checks.close(record["token_log_probs"],
                                                         ref["greedy_log_probs"]),
                  "%s: %r with generate()'s processors: minimt %s %s, reference %s %s"
                  % (name, text, mine, record["token_log_probs"], ref["tokens"],
                     ref["greedy_log_probs"]))
        res.processed += 1


def check_score(res, binary, out, name, model, tokenizer, pairs, start, eos, forced):
    """minimt score of (source, reference text) against the reference's teacher forcing."""
    args = [x for text, _, target in pairs for x in (text, target)]
    if not args:
        return
    lines = checks.minimt(binary, "score", "--model", out, "--format", "jsonl", "-q",
                          *args).splitlines()
    for (text, ids, target), line in zip(pairs, lines):
        record = json.loads(line)
        tokens = ([forced] if forced is not None else []) + tokenizer.piece_ids(target) + [eos]
        want = hf_generate.score(model, ids, tokens, start, forced)["log_probs"]
        res.check(checks.close(record["token_log_probs"], want),
                  "%s: score of %r: %s vs %s" % (name, target, record["token_log_probs"], want))
        res.scored += 1


def check_features(res, binary, out, work, name):
    """int8, head masking, heads, the page, alignment and beam search run and say something."""
    text = TEXTS[0]
    for extra in (["--compute-type", "int8"], ["--mask-heads", "cross:0:1,encoder:-1:0"],
                  ["--beam-size", "3"], ["--align"]):
        p = checks.run([binary, "translate", "--model", out, "--format", "jsonl", "-q",
                        "--max-length", str(MAX_LENGTH)] + extra + [text])
        res.check(p.returncode == 0 and json.loads(p.stdout)["tokens"],
                  "%s: translate %s failed: %s" % (name, " ".join(extra), p.stderr))
    page = os.path.join(work, name, "page.html")
    p = checks.run([binary, "translate", "--model", out, "-q", "--max-length",
                    str(MAX_LENGTH), "--view", page, text])
    res.check(p.returncode == 0 and os.path.getsize(page) > 1000,
              "%s: --view failed: %s" % (name, p.stderr))
    p = checks.run([binary, "heads", "--model", out, "-q"], input=text + "\n" + TEXTS[1] + "\n")
    res.check(p.returncode == 0 and p.stdout.strip(), "%s: heads failed: %s" % (name, p.stderr))
    int8 = os.path.join(work, name, "int8")
    p = checks.run([binary, "convert", "--compute-type", "int8", out, int8])
    res.check(p.returncode == 0, "%s: minimt convert --compute-type int8 failed: %s"
              % (name, p.stderr))
    if p.returncode == 0:
        p = checks.run([binary, "translate", "--model", int8, "-q", "--format", "jsonl", text])
        res.check(p.returncode == 0 and json.loads(p.stdout)["tokens"],
                  "%s: the int8 file does not translate: %s" % (name, p.stderr))


def check_kernels(res, binary, out, work, name):
    """The promise of docs/architecture.md for T5 (RMS norm, the relative bias, no scaling, the
    gated feed-forward): the same dump bytes under every Linear kernel this CPU runs, whatever
    core OpenBLAS would pick (no product goes through it); the row and attention kernels are
    each checked against the generic ones by the unit tests."""
    info = checks.minimt(binary, "info")
    line = next(l for l in info.splitlines() if l.startswith("kernels here"))
    kernels = [k for k in ("avx512", "avx2", "generic") if k in line.split(None, 2)[2]]
    dumps = []
    for kernel in kernels:
        for core in (None, "Haswell"):
            dump = os.path.join(work, "%s-%s-%s.json" % (name, kernel, core))
            env = {"MINIMT_KERNELS": kernel, "OPENBLAS_CORETYPE": core}  # None: unset
            checks.translate(binary, out, TEXTS, MAX_LENGTH, dump, env=env)
            with open(dump, "rb") as f:
                dumps.append(f.read())
    res.check(len(kernels) >= 2 and all(d == dumps[0] for d in dumps),
              "%s: dumps differ between the kernels %s (or fewer than two ran)" % (name, kernels))
    print("%s: dump byte-identical under kernels %s, OpenBLAS core as detected and Haswell"
          % (name, ", ".join(kernels)))


def edit_json(name, change):
    def edit(hf):
        path = os.path.join(hf, name)
        with open(path) as f:
            value = json.load(f)
        change(value)
        with open(path, "w") as f:
            json.dump(value, f)
    return edit


def add_tensor(hf):
    path = os.path.join(hf, "pytorch_model.bin")
    state = torch.load(path, weights_only=True)
    state["model.encoder.layers.0.self_attn.rotary.weight"] = torch.zeros(4)
    torch.save(state, path)


def check_refusals(res, work, hf):
    """What the engine cannot represent, and language codes the checkpoint does not know, are
    refused: exit status 1, the key or tensor named (with the known codes), no OUT_DIR."""
    cases = [
        ("mbart50-safetensors", ["--source-lang", "en_XX", "--target-lang", "xx_YY"], None,
         ["'xx_YY' is not a language code", "fr_XX", "de_DE"]),
        ("nllb-safetensors", ["--source-lang", "eng_Latn"], None,
         ["--target-lang is needed", "fra_Latn", "zho_Hans"]),
        ("t5-tied-relu-prefix", ["--source-lang", "en", "--target-lang", "de"], None,
         ["translation_en_to_de", "en_to_fr"]),
        ("t5-tied-relu-prefix", [], edit_json("config.json", lambda c: c.update(
            feed_forward_proj="gated-gelu-fast")), ["'feed_forward_proj'"]),
        ("mbart50-bin-relu", ["--source-lang", "en_XX", "--target-lang", "fr_XX"], add_tensor,
         ["rotary.weight", "is not part of a mbart model"]),
        ("mbart50-safetensors", [], edit_json("tokenizer_config.json", lambda c: c.update(
            tokenizer_class="MBartTokenizer")), ["'tokenizer_class'", "MBart50Tokenizer"]),
        ("m2m100-safetensors", [], edit_json("config.json", lambda c: c.update(vocab_size=50)),
         ["more than the model's vocab_size (50)"]),
        ("nllb-safetensors", ["--target-lang", "fra_Latn"], edit_json(
            "tokenizer_config.json", lambda c: c["added_tokens_decoder"].update(
                {"5": {"content": "fra_Latn"}})), ["'fra_Latn' id 5"]),
    ]
    for number, (name, args, change, words) in enumerate(cases):
        if name not in hf:
            continue
        copy = os.path.join(work, "refused-%d-hf" % number)
        shutil.copytree(hf[name], copy)
        if change:
            change(copy)
        out = os.path.join(work, "refused-%d" % number)
        p = checks.run([sys.executable, CONVERTER, copy, out] + args)
        res.check(p.returncode == 1 and all(w in p.stderr for w in words)
                  and len(p.stderr.strip().splitlines()) == 1 and not os.path.exists(out),
                  "refusal %d %s: exit %d, %r" % (number, args, p.returncode, p.stderr))
        print("refused: %s" % p.stderr.strip()[:160])


def main():
    ap = support.parser(__doc__)
    ap.add_argument("--keep", help="write the checkpoints here and keep them")
    ap.add_argument("--only", help="run the variants whose name contains this")
    args = ap.parse_args()
    args.minimt = support.minimt_from(args)
    work = args.keep or tempfile.mkdtemp(prefix="minimt-families-")
    os.makedirs(work, exist_ok=True)
    res, converted = checks.Results(), {}
    try:
        for name, family, maker_args, source, target in VARIANTS:
            if args.only and args.only not in name:
                continue
            out = run_variant(res, args.minimt, work, name, family, maker_args, source, target)
            if out:
                converted[name] = out
                check_features(res, args.minimt, out, work, name)
        for name in ("t5-tied-relu-prefix", "t5-v1.1-gated-bin"):
            if name in converted:
                check_kernels(res, args.minimt, converted[name], work, name)
        check_refusals(res, work, {name: os.path.join(work, name, "hf") for name in converted})
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("compared %d tokens (%d ended with eos, %d cut short), %d attention matrices, %d "
          "scores; largest differences: log-probability %.2e, attention %.2e"
          % (res.tokens, res.ended, res.cut, res.matrices, res.scored, res.max_diff,
             res.max_attention_diff))
    if not args.only:
        res.check(res.processed >= 40, "too few outputs compared with generate()'s processors")
        res.check(res.tokens >= 300 and res.matrices >= 1000 and res.ended >= 5 and res.cut >= 5
                  and res.scored >= 20, "too little was compared to count")
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())

