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
  5. int8, --mask-heads, heads, --view, --align and beam search run on the converted model;
  6. `minimt translate` with the converted model's own settings (no --beam-size, no
     --max-length) against generate() with the checkpoint's generation config, as published
     (make_checkpoint.py: generation_config.json, and the same checkpoint without it, whose
     config.json keys the converter and generate() read): greedy (hf_generate.py) or beam
     search (hf_beam.py, transformers 4.30's beam search): the same ids, each token's
     log-probability and the ranking score (sequences_scores) within 1e-4;
  7. on five variants, generation_config.json rewritten for each of CASES (early_stopping
     true/false/"never", length_penalty 2, 0.5, 0 and -1, max_length reached with and without
     forced eos, bad words, n-grams and the repetition penalty), the same comparison; each
     case is also run under minimt's own beam rules, to count the outputs the rules decide.

Then refusals: unknown language codes (the known ones listed), what the format cannot hold
(an unexpected tensor, a feed-forward kind, mBART-cc25's tokenizer), too small a vocabulary,
tokenizer ids that disagree; each exits 1 with one line naming the key or tensor, no OUT_DIR.

T5 variants keep relative_attention_max_distance small (6, 8 buckets) so that most sentences
are longer than it; one T5 dump is compared byte for byte under every Linear kernel this CPU
runs. The test fails unless it compared a minimum number of tokens, matrices and searches.

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
import hf_beam  # noqa: E402
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
    # eos likely at every step: many hypotheses finish, so when a sentence stops and what a
    # length divides decide the output (the beam cases, CASES)
    ("mbart50-eos-likely", "mbart50", ["--seed", "19", "--eos-bias", "7"], "en_XX", "fr_XX"),
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
    forced_eos = generation_settings(hf)[0].get("forced_eos_token_id")
    converted = spm.SentencePieceProcessor(model_file=os.path.join(out, "tokenizer.spm"))
    records, sentences = checks.translate(binary, out, TEXTS, MAX_LENGTH,
                                          os.path.join(work, name, "dump.json"))
    pairs = []
    for text, ids, record, sentence in zip(TEXTS, sources, records, sentences):
        ref = hf_generate.greedy(model, ids, start, eos, MAX_LENGTH, forced, forced_eos)
        body = [t for t in ref["tokens"] if t != eos]
        checks.compare_output(res, "%s: %r" % (name, text), record, sentence, ref,
                              converted.piece_to_id, tokenizer.decode(body))
        res.check(len(sentence["source_tokens"]) == len(ids), "%s: %r: %d source tokens in the "
                  "dump, %d ids" % (name, text, len(sentence["source_tokens"]), len(ids)))
        reference_text = tokenizer.decode(body)
        if reference_text and reference_text.strip():
            pairs.append((text, ids, reference_text))
    check_score(res, binary, out, name, model, tokenizer, pairs, start, eos, forced)
    check_processors(res, binary, out, work, name, model, sources, start, eos, forced, forced_eos)
    print("%s: %d texts compared" % (name, len(TEXTS)))
    # The same checkpoint without generation_config.json: the converter, as generate(), reads
    # config.json's keys.
    bare, bare_out = os.path.join(work, name, "hf-bare"), os.path.join(work, name, "minimt-bare")
    shutil.copytree(hf, bare)
    os.remove(os.path.join(bare, "generation_config.json"))
    p = checks.run([sys.executable, CONVERTER, bare, bare_out, "--quiet"] + languages)
    res.check(p.returncode == 0, "%s without generation_config.json: conversion failed: %s"
              % (name, p.stderr.strip()))
    reference = Reference(model, tokenizer, sources, start, eos, forced, converted)
    task = "translation_%s_to_%s" % (source, target) if family == "t5" and source else None
    outs = [("generation_config.json", out)] + ([("config.json", bare_out)]
                                                if p.returncode == 0 else [])
    check_defaults(res, binary, name, hf, task, outs, reference)
    if name in CASE_VARIANTS:
        check_cases(res, binary, work, name, hf, languages, reference)
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


def check_processors(res, binary, out, work, name, model, sources, start, eos, forced,
                     forced_eos):
    """--repetition-penalty and --no-repeat-ngram-size against generate()'s processors."""
    processors = {"repetition_penalty": 1.5, "no_repeat_ngram_size": 2}
    records, sentences = checks.translate(
        binary, out, TEXTS, MAX_LENGTH, os.path.join(work, name, "processors.json"),
        extra=("--repetition-penalty", "1.5", "--no-repeat-ngram-size", "2"))
    converted = spm.SentencePieceProcessor(model_file=os.path.join(out, "tokenizer.spm"))
    for text, ids, record, sentence in zip(TEXTS, sources, records, sentences):
        ref = hf_generate.greedy(model, ids, start, eos, MAX_LENGTH, forced, forced_eos,
                                 **processors)
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


# GenerationConfig's defaults for the keys the references read; the keys they read.
GENERATE_DEFAULTS = {"num_beams": 1, "max_length": 20, "length_penalty": 1.0,
                     "early_stopping": False}
SETTING_KEYS = ("num_beams", "max_length", "length_penalty", "early_stopping",
                "forced_eos_token_id", "bad_words_ids", "no_repeat_ngram_size",
                "repetition_penalty")


def generation_settings(hf, task=None):
    """generate()'s settings for the checkpoint: generation_config.json, else config.json's
    keys (GenerationConfig.from_model_config), then T5's task_specific_params task as
    pipeline("translation_xx_to_yy") puts it over them; GenerationConfig's defaults for the
    rest. -> (settings, the keys the checkpoint set)."""
    path = os.path.join(hf, "generation_config.json")
    if not os.path.exists(path):
        path = os.path.join(hf, "config.json")
    with open(path) as f:
        source = json.load(f)
    given = {k: source[k] for k in SETTING_KEYS if source.get(k) is not None}
    if task:
        with open(os.path.join(hf, "config.json")) as f:
            params = json.load(f)["task_specific_params"][task]
        given.update({k: v for k, v in params.items() if k in SETTING_KEYS})
    return dict(GENERATE_DEFAULTS, **given), given


class Reference:
    """One variant's reference model and what its searches need."""

    def __init__(self, model, tokenizer, sources, start, eos, forced, converted):
        self.model, self.tokenizer, self.sources = model, tokenizer, sources
        self.start, self.eos, self.forced, self.converted = start, eos, forced, converted

    def run(self, settings, texts):
        """generate() on the first `texts` sources: hf_beam.beam_search, or for num_beams 1
        hf_generate.greedy in the same form (tokens, log_probs, sum, finished; score None)."""
        out = []
        for ids in self.sources[:texts]:
            if settings["num_beams"] > 1:
                out.append(hf_beam.beam_search(self.model, ids, self.start, self.eos, settings,
                                               self.forced))
                continue
            processors = {k: settings[k] for k in ("repetition_penalty", "no_repeat_ngram_size")
                          if settings.get(k) is not None}
            ref = hf_generate.greedy(self.model, ids, self.start, self.eos,
                                     settings["max_length"] - 1, self.forced,
                                     settings.get("forced_eos_token_id"), **processors)
            out.append({"tokens": ref["tokens"], "log_probs": ref["greedy_log_probs"],
                        "sum": sum(ref["greedy_log_probs"]), "score": None,
                        "finished": ref["finished"]})
        return out


def compare_search(res, where, record, ref, piece_to_id, penalty):
    """minimt's jsonl record against generate()'s output: the ids, each token's processed
    log-probability (1e-4), the summed score (1e-4 a token), cut_short, and the ranking score
    against sequences_scores (1e-4 at length_penalty 1), a hypothesis cut at max_length too
    (divided by the start token and the output, as generate() divides it)."""
    mine = [piece_to_id(p) for p in record["tokens"]]
    n = len(ref["tokens"])
    res.check(mine == ref["tokens"], "%s: minimt ids %s, generate() %s"
              % (where, mine, ref["tokens"]))
    res.check(checks.close(record["token_log_probs"], ref["log_probs"]),
              "%s: log-probabilities %s vs %s" % (where, record["token_log_probs"],
                                                  ref["log_probs"]))
    res.check(abs(record["score"] - ref["sum"]) <= checks.TOLERANCE * max(1, n),
              "%s: score %r vs %r" % (where, record["score"], ref["sum"]))
    res.check(record.get("cut_short", False) == (not ref["finished"]),
              "%s: cut_short %s, generate() finished %s" % (where, record.get("cut_short"),
                                                          ref["finished"]))
    if ref["score"] is not None:  # greedy search has no sequences_scores
        ranking = record.get("ranking_score", record["score"])  # printed when penalty is not 0
        want = ref["score"]
        # 1e-4 at length_penalty 1; sum / n^penalty carries the sum's 1e-4 a token as
        # n^(1-penalty)
        tolerance = checks.TOLERANCE * max(1.0, max(1, n) ** (1.0 - penalty))
        res.check(abs(ranking - want) <= tolerance, "%s: ranking score %r, generate()'s "
                  "sequences_scores %r" % (where, ranking, want))
    res.searches += 1
    res.search_tokens += n
    res.search_finished += ref["finished"]
    res.search_diff = max([res.search_diff] + [abs(a - b) for a, b in
                                               zip(record["token_log_probs"], ref["log_probs"])])


def translate_defaults(binary, out, texts, extra=()):
    """minimt translate with the model's settings: no --beam-size, no --max-length."""
    lines = checks.minimt(binary, "translate", "--model", out, "--format", "jsonl", "-q",
                          *extra, *texts).splitlines()
    return [json.loads(line) for line in lines]


def texts_for(settings):
    """How many texts a search is compared on: all, but fewer where beams times the length
    limit make the reference (no cache: every step reads the whole prefix) slow: 3 for the
    published 5 beams to 200, 2 for T5's task (4 beams to 300)."""
    return min(len(TEXTS), max(2, 3000 // (settings["num_beams"] * settings["max_length"])))


def check_defaults(res, binary, name, hf, task, outs, reference):
    """minimt translate with the converted model's defaults against generate() with the
    checkpoint's (greedy or beam search), converted from generation_config.json and from
    config.json alone."""
    settings, given = generation_settings(hf, task)
    extra = []  # without max_length, the converted model has generate()'s 20 as well
    texts = texts_for(settings)
    refs = reference.run(settings, texts)
    for origin, out in outs:
        records = translate_defaults(binary, out, TEXTS[:texts], extra)
        for text, record, ref in zip(TEXTS, records, refs):
            compare_search(res, "%s from %s (num_beams %d): %r" % (name, origin,
                                                                 settings["num_beams"], text),
                           record, ref, reference.converted.piece_to_id,
                           settings["length_penalty"])
        res.defaults += len(records)
    print("%s: the checkpoint's defaults (%s) compared on %d texts, from %s"
          % (name, json.dumps(given, sort_keys=True), texts, " and ".join(o for o, _ in outs)))


# generation_config.json keys over the published ones: the beam rules where they differ from
# minimt's own (length penalty, early_stopping, the length limit) and the processors.
CASES = [
    ("early_stopping true, 2 beams", {"num_beams": 2, "early_stopping": True, "max_length": 24}),
    ("early_stopping false", {"num_beams": 4, "early_stopping": False, "max_length": 24}),
    ("early_stopping false, length_penalty 2, no forced eos",
     {"num_beams": 4, "early_stopping": False, "length_penalty": 2.0, "max_length": 24,
      "forced_eos_token_id": None}),
    ("early_stopping never, length_penalty 2, no forced eos",
     {"num_beams": 4, "early_stopping": "never", "length_penalty": 2.0, "max_length": 8,
      "forced_eos_token_id": None}),
    ("early_stopping never, length_penalty -1", {"num_beams": 3, "early_stopping": "never",
                                                 "length_penalty": -1.0, "max_length": 24}),
    ("early_stopping false, length_penalty 0.5", {"num_beams": 5, "early_stopping": False,
                                                  "length_penalty": 0.5, "max_length": 24}),
    ("early_stopping true, length_penalty 0", {"num_beams": 3, "early_stopping": True,
                                               "length_penalty": 0.0, "max_length": 24}),
    ("max_length reached, no forced eos", {"num_beams": 4, "early_stopping": False,
                                           "max_length": 6, "forced_eos_token_id": None}),
    ("processors", {"num_beams": 4, "early_stopping": True, "max_length": 24,
                    "no_repeat_ngram_size": 2, "repetition_penalty": 1.3}),
]
CASE_VARIANTS = ("mbart50-safetensors", "m2m100-bin-gelu", "nllb-safetensors",
                 "t5-v1.1-gated-bin", "mbart50-eos-likely")


def bad_words(refs, eos, forced):
    """Two of the default outputs' tokens as bad_words_ids: one alone, a later pair."""
    seen = [t for ref in refs for t in ref["tokens"] if t not in (eos, forced)]
    return [[seen[0]], seen[1:3]] if len(seen) >= 3 else []


def check_cases(res, binary, work, name, hf, languages, reference):
    """Each case's generation_config.json, converted, translated with the model's defaults,
    against generate() with it."""
    published, _ = generation_settings(hf)
    for number, (label, keys) in enumerate(CASES):
        keys = dict(keys)
        if label == "processors":
            keys["bad_words_ids"] = bad_words(reference.run(dict(published, **keys), 2),
                                              reference.eos, reference.forced)
        case = os.path.join(work, name, "case-%d" % number)
        shutil.copytree(hf, case + "-hf")
        edit_json("generation_config.json", lambda c: c.update(keys))(case + "-hf")
        p = checks.run([sys.executable, CONVERTER, case + "-hf", case, "--quiet"] + languages)
        if not res.check(p.returncode == 0, "%s, %s: conversion failed: %s"
                         % (name, label, p.stderr.strip())):
            continue
        settings, _ = generation_settings(case + "-hf")
        refs = reference.run(settings, texts_for(settings))
        records = translate_defaults(binary, case, TEXTS[:len(refs)])
        for text, record, ref in zip(TEXTS, records, refs):
            compare_search(res, "%s, %s: %r" % (name, label, text), record, ref,
                           reference.converted.piece_to_id, settings["length_penalty"])
        res.cases += len(records)
        res.cases_cut += sum(not r["finished"] for r in refs)
        # The same model under minimt's own beam rules: how many outputs the rules decide.
        edit_json("config.json", lambda c: c["generation"].update(search_rules="minimt"))(case)
        for record, ref in zip(translate_defaults(binary, case, TEXTS[:len(refs)]), refs):
            mine = [reference.converted.piece_to_id(p) for p in record["tokens"]]
            res.rules_decide += mine != ref["tokens"]


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
    torch.set_num_threads(1)  # the reference's small products: threads only wait
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
    print("searches against generate(): %d with the checkpoints' defaults, %d with written generation configs (%d cut at max_length; under "
          "minimt's own beam rules %d of these would differ); %d tokens (%d ended with eos); "
          "largest log-probability difference %.2e"
          % (res.defaults, res.cases, res.cases_cut, res.rules_decide,
             res.search_tokens, res.search_finished, res.search_diff))
    if not args.only:
        res.check(res.processed >= 40, "too few outputs compared with generate()'s processors")
        res.check(res.defaults >= 60 and res.cases >= 250 and res.cases_cut >= 20,
                  "too few searches compared with generate()")
        res.check(res.rules_decide >= 10, "the beam cases hardly depend on the beam rules")
        res.check(res.tokens >= 300 and res.matrices >= 1000 and res.ended >= 5 and res.cut >= 5
                  and res.scored >= 20, "too little was compared to count")
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())

