#!/usr/bin/python3
"""tools/convert_marian.py on Hugging Face Marian checkpoints written by make_fixture.py.

For each fixture variant (tied/untied output, shared/separate vocabularies, swish/gelu/relu,
post-norm and transformers 3.x pre-norm, scale_embedding on/off, safetensors and
pytorch_model.bin, F32 and F16, positions in the checkpoint or not, >>xx<< codes):

  1. make_fixture.py writes the Hugging Face directory (seeded random weights);
  2. tools/convert_marian.py converts it (exit status 0);
  3. `minimt tokenize` must give the source ids MarianTokenizer gives (the reference's);
  4. `minimt translate --format jsonl --max-length 16` must give, for every text, the token
     ids, the end (eos or cut short), every token's log-probability (1e-4) and the score
     (1e-4 per token) of the greedy search of tools/reference/pytorch_reference/marian, and the
     same text.

Then refusals: one broken copy of a fixture at a time (config keys, vocabularies, tensors,
files); each conversion must exit with status 1, name the key or tensor on stderr and leave
no output directory. The test fails unless it compared real numbers: a minimum count of
tokens, sentences that ended with eos and sentences cut short, and a <pad> that only
bad_words_ids kept out of the output.

    /usr/bin/python3 tests/marian/test_marian_conversion.py --minimt build/minimt [--workdir DIR]
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import support  # noqa: E402

CONVERTER = os.path.join(support.ROOT, "tools", "convert_marian.py")
support.use_tools("reference")

import make_fixture  # noqa: E402
from pytorch_reference.marian.model import translate as marian_translate  # noqa: E402
from pytorch_reference.marian.tokenizer import MarianTokenizerRef  # noqa: E402

MAX_LENGTH = 16
TOLERANCE = 1e-4
TEXTS = [
    "The cat sat on the mat.",
    "Where is the railway station?",
    "Le garçon mange une pêche.",  # ç, ê: unknown to source.spm, single pieces of vocab.json
    "I would like a cup of coffee, please.",
    "Zebras & quartz: 42!",
    "Ünicode ☃ and 漢字 too",  # unknown to both: <unk>
    "   extra   spaces   here  ",
    "Birds sing loudly when the sun rises.",
]
CODE_TEXTS = [">>fra<< The cat sat on the mat.", ">>spa<< Where is the railway station?"]

# (name, make_fixture arguments, converter arguments)
VARIANTS = [
    ("tied-swish-post-scaled-safetensors", ["--seed", "1", "--eos-bias", "6"], []),
    ("untied-gelu-post-bin", ["--seed", "2", "--untied", "--activation", "gelu",
                              "--weights", "bin", "--eos-bias", "3"], []),
    ("relu-pre-noscale-f16-positions", ["--seed", "3", "--activation", "relu", "--norm", "pre",
                                        "--no-scale-embedding", "--dtype", "float16",
                                        "--positions-in-checkpoint"], ["--dtype", "F16"]),
    ("separate-vocabs-silu-codes-noscale", ["--seed", "4", "--separate", "--activation", "silu",
                                            "--language-codes", "--no-generation-config",
                                            "--no-scale-embedding", "--eos-bias", "5"], []),
    ("bin-f16-untied-pre-gelu", ["--seed", "5", "--weights", "bin", "--dtype", "float16",
                                 "--untied", "--norm", "pre", "--activation", "gelu"], []),
    ("d32-8heads-3layers-relu-codes", ["--seed", "6", "--d-model", "32", "--heads", "8",
                                       "--ffn", "48", "--layers", "3", "--activation", "relu",
                                       "--language-codes", "--eos-bias", "8"], []),
    # OPUS-MT's sizes (d_model 512, 8 heads, 2048, 6 + 6 layers, 512 positions), small vocabulary
    # SentencePiece pieces that vocab.json lacks: read as <unk>, as MarianTokenizer does
    # (format 2's unknown_pieces)
    ("pieces-missing-from-vocab", ["--seed", "9", "--drop-from-vocab", "3", "--eos-bias", "5"],
     []),
    ("opus-mt-sizes-swish-bin", ["--seed", "8", "--d-model", "512", "--heads", "8", "--ffn", "2048",
                                 "--layers", "6", "--max-positions", "512", "--weights", "bin",
                                 "--eos-bias", "4"], []),
]


class Results(support.Tally):
    """The checks, and what they compared: tokens, sentences ended and cut, largest differences."""

    def __init__(self):
        super().__init__()
        self.tokens = self.ended = self.cut = 0
        self.max_diff = self.max_score_diff = 0.0


def run(cmd, **kw):
    return support.run(cmd, text=True, **kw)


def convert(hf_dir, out_dir, extra=()):
    return run([sys.executable, CONVERTER, hf_dir, out_dir, "--quiet"] + list(extra))


def minimt_tokenize(minimt, model, texts):
    p = run([minimt, "tokenize", "--model", model] + texts)
    if p.returncode:
        raise RuntimeError("minimt tokenize failed: " + p.stderr)
    return [[int(i) for i in line.split("\t")[1].split()] for line in p.stdout.splitlines()]


def minimt_translate(minimt, model, texts):
    p = run([minimt, "translate", "--model", model, "--format", "jsonl",
             "--max-length", str(MAX_LENGTH)] + texts)
    if p.returncode:
        raise RuntimeError("minimt translate failed: " + p.stderr)
    return [json.loads(line) for line in p.stdout.splitlines()]


def target_ids(hf_dir):
    separate = os.path.exists(os.path.join(hf_dir, "target_vocab.json"))
    with open(os.path.join(hf_dir, "target_vocab.json" if separate else "vocab.json"),
              encoding="utf-8") as f:
        return json.load(f)


def compare_sentence(res, name, ref, got, ids, eos):
    where = "%s: %r" % (name, ref["source"])
    want = ref["ids"]  # eos included: minimt lists one token per log-probability
    mine = [ids.get(piece, -1) for piece in got["tokens"]]
    res.check(mine == want, "%s: minimt ids %s, reference %s" % (where, mine, want))
    ended = bool(ref["ids"]) and ref["ids"][-1] == eos
    res.check(got.get("cut_short", False) == (not ended),
              "%s: minimt cut_short %s, reference ended with eos %s"
              % (where, got.get("cut_short", False), ended))
    lps, ref_lps = got["token_log_probs"], ref["token_log_probs"]
    res.check(len(lps) == len(ref_lps) and all(abs(a - b) <= TOLERANCE
                                               for a, b in zip(lps, ref_lps)),
              "%s: log-probabilities %s vs %s" % (where, lps, ref_lps))
    # the score sums the log-probabilities: float32 rounding adds up over the tokens
    res.check(abs(got["score"] - ref["score"]) <= TOLERANCE * max(1, len(ref_lps)),
              "%s: score %r vs %r" % (where, got["score"], ref["score"]))
    res.check(got["translation"] == ref["translation"],
              "%s: text %r vs %r" % (where, got["translation"], ref["translation"]))
    if len(lps) == len(ref_lps):
        res.max_diff = max([res.max_diff] + [abs(a - b) for a, b in zip(lps, ref_lps)])
    res.max_score_diff = max(res.max_score_diff, abs(got["score"] - ref["score"]))
    res.tokens += len(ref_lps)
    res.ended += ended
    res.cut += not ended


def run_variant(res, minimt, work, name, fixture_args, convert_args):
    hf, out = os.path.join(work, name, "hf"), os.path.join(work, name, "minimt")
    make_fixture.main([hf] + fixture_args)
    p = convert(hf, out, convert_args)
    res.check(p.returncode == 0, "%s: conversion failed (%d): %s" % (name, p.returncode,
                                                                    p.stderr.strip()))
    if p.returncode:
        return
    texts = TEXTS + (CODE_TEXTS if "--language-codes" in fixture_args else [])
    with open(os.path.join(out, "config.json")) as f:
        unknown = json.load(f).get("unknown_pieces", {})
    res.check(bool(unknown) == ("--drop-from-vocab" in fixture_args),
              "%s: unknown_pieces %s" % (name, unknown))
    tokenizer = MarianTokenizerRef(hf)
    for text, got in zip(texts, minimt_tokenize(minimt, out, texts)):
        want = tokenizer.encode(text)
        res.check(got == want, "%s: source ids of %r: minimt %s, MarianTokenizer %s"
                  % (name, text, got, want))
    refs = marian_translate(hf, texts, MAX_LENGTH)
    records = minimt_translate(minimt, out, texts)
    res.check(len(records) == len(texts), "%s: %d records for %d texts"
              % (name, len(records), len(texts)))
    ids = target_ids(hf)
    eos = ids["</s>"]
    for ref, got in zip(refs, records):
        compare_sentence(res, name, ref, got, ids, eos)
    print("%s: %d texts compared" % (name, len(texts)))
    return hf


def check_pad_ban(res, hf):
    """Without bad_words_ids the reference picks <pad> (the fixture's pad bias is large);
    minimt never outputs it: the ban reaches the converted model."""
    unbanned = marian_translate(hf, TEXTS, MAX_LENGTH, ban=False)
    pad = target_ids(hf)["<pad>"]
    res.check(any(pad in r["ids"] for r in unbanned),
              "the fixture's <pad> never wins unbanned: the ban is not exercised")


def check_unknown_run(res, minimt, hf, out):
    """The documented difference: a run of unknown characters that starts with a character
    only vocab.json knows ("é" to the English source.spm) is one <unk> to MarianTokenizer,
    the character's id then <unk> to minimt."""
    vocab = target_ids(hf)
    text = "caf\u00e9\u00dc"
    got = minimt_tokenize(minimt, out, [text])[0]
    want = MarianTokenizerRef(hf).encode(text)
    unk = vocab["<unk>"]
    expected = want[:want.index(unk)] + [vocab["\u00e9"], unk] + want[want.index(unk) + 1:] \
        if unk in want else None
    res.check(got == expected, "unknown run %r: minimt %s, MarianTokenizer %s (documented: "
              "%s)" % (text, got, want, expected))


# ----------------------------------------------------------------------------- refusals

def edit_json(path, change):
    with open(path, encoding="utf-8") as f:
        value = json.load(f)
    change(value)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)


def config(**keys):
    return lambda d: edit_json(os.path.join(d, "config.json"), lambda c: c.update(keys))


def generation(**keys):
    return lambda d: edit_json(os.path.join(d, "generation_config.json"), lambda c: c.update(keys))


def tensors(change):
    """Rewrites model.safetensors after change(tensors dict of torch tensors)."""
    import torch
    support.use_tools("common")
    import safetensors_file

    def apply(d):
        path = os.path.join(d, "model.safetensors")
        values = {k: torch.tensor(v) for k, v in safetensors_file.read_safetensors(path).items()}
        change(values)
        make_fixture.save_safetensors(path, values, "float32")
    return apply


def spm_model_type(number):
    support.use_tools("marian")
    import spm_proto

    def apply(d):
        model = spm_proto.SpmModel.load(os.path.join(d, "source.spm"))
        model.set_trainer({spm_proto.TRAINER_MODEL_TYPE: number}, {})
        model.save(os.path.join(d, "source.spm"))
    return apply


def write_file(name, text):
    def apply(d):
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    return apply


def remove(name):
    return lambda d: os.remove(os.path.join(d, name))


def both(*changes):
    def apply(d):
        for change in changes:
            change(d)
    return apply


def add_tensor(name, shape):
    import torch
    return tensors(lambda t: t.__setitem__(name, torch.zeros(shape)))


FC1 = "model.encoder.layers.0.fc1.weight"

# (name, base fixture, change, text stderr must hold)
REFUSALS = [
    ("activation gelu_new", "base", config(activation_function="gelu_new"),
     "'activation_function'"),
    ("activation tanh", "base", config(activation_function="tanh"), "'activation_function'"),
    ("normalize_embedding", "base", config(normalize_embedding=True), "'normalize_embedding'"),
    ("layernorm_embedding", "base", config(layernorm_embedding=True), "'layernorm_embedding'"),
    ("add_bias_logits", "base", config(add_bias_logits=True), "'add_bias_logits'"),
    ("learned positions", "base", config(static_position_embeddings=False),
     "'static_position_embeddings'"),
    ("tie_encoder_decoder", "base", config(tie_encoder_decoder=True), "'tie_encoder_decoder'"),
    ("pre-norm without final norm", "base", config(normalize_before=True),
     "'normalize_before'"),
    ("final norm without pre-norm", "base", config(add_final_layer_norm=True),
     "'add_final_layer_norm'"),
    ("decoder heads differ", "base", config(decoder_attention_heads=2),
     "'decoder_attention_heads'"),
    ("decoder ffn differs", "base", config(decoder_ffn_dim=64), "'decoder_ffn_dim'"),
    ("heads do not divide d_model", "base",
     config(encoder_attention_heads=3, decoder_attention_heads=3), "'d_model'"),
    ("model_type bart", "base", config(model_type="bart"), "'model_type'"),
    ("causal LM", "base", config(architectures=["MarianForCausalLM"]), "'architectures'"),
    ("vocab_size off by one", "base", config(vocab_size=1000, decoder_vocab_size=1000),
     "'vocab_size'"),
    ("decoder_vocab_size differs while shared", "base", config(decoder_vocab_size=7),
     "'decoder_vocab_size'"),
    ("eos id not </s>", "base", config(eos_token_id=1), "'eos_token_id'"),
    ("pad id not <pad>", "base", config(pad_token_id=3), "'pad_token_id'"),
    ("multi-token bad word", "base", generation(bad_words_ids=[[5, 6]]), "'bad_words_ids'"),
    ("forced_bos_token_id", "base", generation(forced_bos_token_id=5), "'forced_bos_token_id'"),
    ("vocab.json gap", "base", lambda d: edit_json(os.path.join(d, "vocab.json"),
                                                   lambda v: v.update({"</s>": 100000})),
     "without gaps"),
    ("BPE source.spm", "base", spm_model_type(2), "bpe SentencePiece model"),
    ("separate vocabularies, pad ids differ", "separate",
     lambda d: edit_json(os.path.join(d, "target_vocab.json"),
                         lambda v: v.update({"<pad>": v["▁"], "▁": v["<pad>"]})),
     "'pad_token_id'"),
    ("unexpected tensor", "base", add_tensor("model.encoder.layernorm_embedding.weight", (16,)),
     "model.encoder.layernorm_embedding.weight"),
    ("missing tensor", "base", tensors(lambda t: t.pop(FC1)), FC1),
    ("misshapen tensor", "base", tensors(lambda t: t.__setitem__(FC1, t[FC1][:5])), FC1),
    ("NaN in a tensor", "base", tensors(lambda t: t[FC1].__setitem__((0, 0), float("nan"))),
     FC1),
    ("sharded checkpoint", "base", both(remove("model.safetensors"),
                                        write_file("model.safetensors.index.json", "{}")),
     "model.safetensors.index.json"),
    ("no weights", "base", remove("model.safetensors"), "neither model.safetensors"),
    ("no target.spm", "base", remove("target.spm"), "target.spm: is missing"),
    ("config.json not JSON", "base", write_file("config.json", "{"), "not valid JSON"),
    ("generation_config.json a list", "base", write_file("generation_config.json", "[1]"),
     "generation_config.json: must hold a JSON object"),
]
BASES = {"base": ["--seed", "7"], "missing": ["--seed", "7", "--drop-from-vocab", "2"],
         "separate": ["--seed", "7", "--separate"]}


def check_refusals(res, work):
    bases = {}
    for name, args in BASES.items():
        bases[name] = os.path.join(work, "refusals", "base-" + name)
        make_fixture.main([bases[name]] + args)
        p = convert(bases[name], bases[name] + ".out")
        res.check(p.returncode == 0,
                  "refusal base %s converts with status %d: %s" % (name, p.returncode, p.stderr))
    for i, (name, base, change, expected) in enumerate(REFUSALS):
        hf = os.path.join(work, "refusals", "case%02d" % i)
        shutil.copytree(bases[base], hf)
        change(hf)
        out = hf + ".out"
        p = convert(hf, out)
        lines = p.stderr.strip().splitlines()
        ok = p.returncode == 1 and len(lines) == 1 and expected in lines[0] \
            and not os.path.exists(out) and not p.stdout
        res.check(ok, "refusal %r: status %d, stderr %r (expected one line with %r, no output "
                      "directory)" % (name, p.returncode, p.stderr, expected))
        print("refused %-40s %s" % (name, lines[0] if lines else ""))
    p = convert(bases["missing"], bases["missing"] + ".dropped", ["--drop-missing-pieces"])
    res.check(p.returncode == 0, "--drop-missing-pieces: status %d %s" % (p.returncode, p.stderr))
    with open(os.path.join(bases["missing"] + ".dropped", "config.json")) as f:
        res.check(json.load(f)["format_version"] == 1, "--drop-missing-pieces: not format 1")
    p = convert(bases["base"], bases["base"] + ".out")
    res.check(p.returncode == 1 and "exists and is not empty" in p.stderr,
              "a second conversion into a full OUT_DIR: status %d %r" % (p.returncode, p.stderr))
    p = convert(bases["base"], bases["base"] + ".out", ["--force"])
    res.check(p.returncode == 0, "--force: status %d %r" % (p.returncode, p.stderr))
    p = convert(bases["base"], bases["base"], ["--force"])
    res.check(p.returncode == 1 and "would replace the model being converted" in p.stderr
              and os.path.exists(os.path.join(bases["base"], "vocab.json")),
              "OUT_DIR = HF_DIR with --force: status %d %r" % (p.returncode, p.stderr))


def main():
    args = support.parser(__doc__, workdir=True).parse_args()
    minimt = support.minimt_from(args)
    import torch
    torch.set_num_threads(1)
    res = Results()
    if args.workdir:
        shutil.rmtree(args.workdir, ignore_errors=True)  # no fixture of an earlier run is reused
    with support.Workdir(args, "marian") as work:
        first = None
        for name, fixture_args, convert_args in VARIANTS:
            hf = run_variant(res, minimt, work, name, fixture_args, convert_args)
            first = first or hf
        check_pad_ban(res, first)
        check_unknown_run(res, minimt, first, os.path.join(os.path.dirname(first), "minimt"))
        check_refusals(res, work)
    res.check(res.tokens >= 300, "only %d tokens compared" % res.tokens)
    res.check(res.ended >= 3 and res.cut >= 3, "sentences that ended with eos: %d, cut short: %d"
              % (res.ended, res.cut))
    print("%d tokens compared; %d sentences ended with eos, %d cut short at %d; largest "
          "difference %.1e in a log-probability, %.1e in a score"
          % (res.tokens, res.ended, res.cut, MAX_LENGTH, res.max_diff, res.max_score_diff))
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
