#!/usr/bin/env python3
"""The Python module (build/python/minimt) against the CLI, for the shipped model and random
models: every record Model.translate and Model.score return equals the CLI's JSON Lines record
for the same line and options (time_ms aside), and every array equals the number in the CLI's
attention dump bit for bit (float32; NaN where the dump has null), for greedy search, beam with
n-best, sampling with a seed, ablation, alternatives, alignment, every dump key and a layer and
head selection; load_dump of the CLI's dump gives the same arrays. Also: errors are
OptionError (a ValueError) or ModelError (an OSError) with the CLI's message; a line that fails
has its error and the others are translated; to_dump gives the CLI's dump byte for byte; two
Python threads at once give the results of one
after the other; Ctrl-C (a KeyboardInterrupt from a signal handler) stops a long batch.

    test_module.py --minimt build/minimt [--python-dir build/python]
"""

import json
import os
import signal
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import support  # noqa: E402

# The dump's per-sentence keys that are not arrays of numbers, and how the module gives them.
LABELS = ("source_tokens", "decoder_input_tokens", "output_tokens")


def cli_run(minimt, kind, model, lines, flags, scratch, name):
    """The CLI's records (time_ms dropped) and its dump (None without dump flags)."""
    inp = os.path.join(scratch, name + ".in")
    with open(inp, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    dump = os.path.join(scratch, name + ".json")
    wants_dump = any(flag.startswith("--dump") or flag in ("--logit-lens", "--rollout") for flag in flags)
    command = [minimt, kind, "-m", model, "-i", inp, "--format", "jsonl", "-q", *flags]
    if wants_dump:
        command += ["--dump-attention", dump]
    done = support.run(command, text=True)
    if done.status not in (0, 1):
        raise support.Mismatch("%s: the CLI failed: %s" % (name, done.err))
    records = [json.loads(line) for line in done.out.splitlines()]
    for r in records:
        r.pop("time_ms", None)
    dump_doc = None
    if wants_dump:
        with open(dump, encoding="utf-8") as f:
            dump_doc = json.load(f)
    return records, dump_doc, dump


def as_float32(values):
    """The dump's nested lists as float32, null as NaN (the text reads back as the same float)."""
    def walk(x):
        if isinstance(x, list):
            return [walk(v) for v in x]
        return np.nan if x is None else x
    return np.array(walk(values), dtype=np.float64).astype(np.float32)


def same_bits(a, b):
    return a.dtype == np.float32 and b.dtype == np.float32 and a.shape == b.shape and \
        np.array_equal(a.view(np.uint32), b.view(np.uint32))


def compare_sentence(name, i, result, sentence):
    """Every array key of the CLI's dump sentence against the result's array of that key."""
    checked = 0
    for key, value in sentence.items():
        if key in ("source", "translation", "error", "output_log_probs", "alternatives",
                   "given_tokens") or key in LABELS:
            continue
        if key == "decoder_layer_predictions":
            want = [[[(p["token"], np.float32(p["probability"])) for p in position]
                     for position in layer] for layer in value]
            got = [[[(t, np.float32(p)) for t, p in position] for position in layer]
                   for layer in result.decoder_layer_predictions]
            if got != want:
                raise support.Mismatch("%s line %d: %s differs" % (name, i + 1, key))
            checked += 1
            continue
        want = as_float32(value)
        got = result.arrays.get(key)
        if got is None:
            raise support.Mismatch("%s line %d: the result has no %s" % (name, i + 1, key))
        if want.ndim == got.ndim + 1 and want.shape[-1] == 1:
            want = want[..., 0]
        if key.endswith("_head_norms") and want.shape != got.shape:
            want = want.reshape(got.shape)
        if not same_bits(got, want):
            raise support.Mismatch("%s line %d: %s: shape %s against the dump's %s, or other bits"
                                   % (name, i + 1, key, got.shape, want.shape))
        checked += 1
    for key in LABELS:
        if sentence.get(key, []) != getattr(result, key):
            raise support.Mismatch("%s line %d: %s differs" % (name, i + 1, key))
    return checked


def compare(minimt, model, kind, lines, kwargs, flags, scratch, name):
    records, dump, dump_path = cli_run(minimt, kind, model.directory, lines, flags, scratch, name)
    if kind == "score":
        sources, targets = zip(*(line.split("\t") for line in lines))
        results = model.score(list(sources), list(targets), **kwargs)
    else:
        results = model.translate(lines, **kwargs)
    if len(results) != len(records):
        raise support.Mismatch("%s: %d results, the CLI %d records" % (name, len(results), len(records)))
    for i, (result, record) in enumerate(zip(results, records)):
        mine = dict(result.record)
        mine.pop("time_ms", None)
        if mine != record:
            raise support.Mismatch("%s line %d: record %r, the CLI's %r" % (name, i + 1, mine, record))
    arrays = 0
    if dump is not None:
        for i, (result, sentence) in enumerate(zip(results, dump["sentences"])):
            arrays += compare_sentence(name, i, result, sentence)
        with open(dump_path, encoding="utf-8") as f:
            if minimt_module.to_dump(results) != f.read():
                raise support.Mismatch("%s: to_dump is not the CLI's dump byte for byte" % name)
        loaded = minimt_module.load_dump(dump_path)
        for i, (result, again) in enumerate(zip(results, loaded)):
            for key, array in result.arrays.items():
                if not same_bits(array, again.arrays[key]):
                    raise support.Mismatch("%s line %d: load_dump's %s differs" % (name, i + 1, key))
    return "%d records identical, %d arrays bit for bit%s" % (
        len(records), arrays, ", to_dump the CLI's dump byte for byte" if dump else "")


SENTENCES = ["I am a student.", "the wolves are not sad", "", "Where is the station?",
             "We have three red apples and a small dog."]
CASES = [
    ("greedy", {}, []),
    ("beam 4, n-best 2, length penalty", {"beam_size": 4, "n_best": 2, "length_penalty": 1.0},
     ["--beam-size", "4", "--n-best", "2", "--length-penalty", "1"]),
    ("sampling with a seed", {"sample": True, "seed": 7, "top_k": 5},
     ["--sample", "--seed", "7", "--top-k", "5"]),
    ("ablation", {"ablate_heads": "cross:-1:0,decoder:0:1"}, ["--ablate-heads", "cross:-1:0,decoder:0:1"]),
    ("alternatives and alignment", {"alternatives": 3, "align": True}, ["--alternatives", "3", "--align"]),
    ("every dump key", {"dump_scores": True, "dump_vectors": True, "dump_norms": True,
                        "logit_lens": 3, "rollout": True},
     ["--dump-scores", "--dump-vectors", "--dump-norms", "--logit-lens", "3", "--rollout"]),
    ("weights, masked heads", {"attention": True, "ablate_heads": "encoder:0:1"},
     ["--dump-types", "encoder,decoder,cross", "--ablate-heads", "encoder:0:1"]),
    ("a layer and head selection", {"dump_layers": [-1], "dump_heads": [1], "dump_types": ["cross"],
                                    "dump_scores": True},
     ["--dump-layers=-1", "--dump-heads", "1", "--dump-types", "cross", "--dump-scores"]),
]


def check_models(minimt, tally, scratch):
    models = [support.SHIPPED] + [support.random_model(name) for name in (
        "inside", "arch-post-headdim5-3heads-silu-f16", "arch-pre-learned-gelu-untied-bias-f32")]
    for path in models:
        model = minimt_module.Model(path)
        label = os.path.basename(path)
        for case, kwargs, flags in CASES:
            kwargs = dict(kwargs)
            attention = kwargs.pop("attention", False)
            tally.case("%s: %s" % (label, case), lambda: compare(
                minimt, model, "translate", SENTENCES, dict(kwargs, attention=attention) if attention
                else kwargs, flags, scratch, "t"))
        translations = [r.text for r in model.translate(SENTENCES)]
        pairs = [s + "\t" + t for s, t in zip(SENTENCES, translations)]
        tally.case("%s: score" % label, lambda: compare(minimt, model, "score", pairs, {}, [], scratch, "s"))
        tally.case("%s: score with every dump key" % label, lambda: compare(
            minimt, model, "score", pairs, {"dump_scores": True, "dump_norms": True, "logit_lens": 2},
            ["--dump-scores", "--dump-norms", "--logit-lens", "2"], scratch, "sd"))


def cli_error(minimt, args):
    done = support.run([minimt, *args], text=True)
    return done.err.splitlines()[0].replace("minimt: error: ", "").replace("minimt: ", "")


def check_errors(minimt, tally):
    model = minimt_module.Model(support.SHIPPED)
    for kwargs, flags in (({"beam_size": 0}, ["--beam-size", "0"]),
                          ({"ablate_heads": "cross:9:0"}, ["--ablate-heads", "cross:9:0"]),
                          ({"beam_size": 2, "n_best": 3}, ["--beam-size", "2", "--n-best", "3"])):
        want = cli_error(minimt, ["translate", *flags, "x"])
        for flag in flags:
            if flag.startswith("--"):
                want = want.replace(flag, flag[2:].replace("-", "_"))
        try:
            model.translate("x", **kwargs)
            tally.check(False, "%r raises" % kwargs)
        except minimt_module.OptionError as e:
            tally.check(isinstance(e, ValueError), "OptionError is a ValueError")
            tally.equal("%r: the CLI's message" % kwargs, str(e), want)
    for kwargs, field in (({"beam_size": "4"}, "beam_size"), ({"beam_size": True}, "beam_size"),
                          ({"dump_heads": 1}, "dump_heads"), ({"bogus": 1}, "bogus")):
        try:
            model.translate("x", **kwargs)
            tally.check(False, "%r raises" % kwargs)
        except ValueError as e:
            tally.equal("%r names its field" % kwargs, e.field, field)
    for texts in (3, ["a", 3], None):
        try:
            model.translate(texts)
            tally.check(False, "translate(%r) raises" % (texts,))
        except ValueError:
            tally.check(True, "translate(%r) raises ValueError" % (texts,))
    missing = "/nonexistent/model"
    try:
        minimt_module.Model(missing)
        tally.check(False, "a missing model raises")
    except OSError as e:
        tally.check(isinstance(e, minimt_module.ModelError), "a missing model: ModelError")
        tally.equal("a missing model: the CLI's message", str(e), cli_error(minimt, ["info", "-m", missing]))
    # A line of bytes that are not UTF-8 (as os.fsdecode gives them) fails alone, as in a file;
    # the others are translated.
    bad = b"the \xff wolves".decode("utf-8", "surrogateescape")
    results = model.translate(["I am a student.", bad, "the wolves are not sad", "lone \ud800"])
    tally.check(results[1].error and results[3].error and results[0].text and results[2].text,
                "a failing line has its error, the others their translation",
                [r.record for r in results])
    with support.scratch("python-error") as scratch:
        inp = os.path.join(scratch, "bad.txt")
        with open(inp, "wb") as f:
            f.write(b"I am a student.\nthe \xff wolves\nthe wolves are not sad\n")
        done = support.run([minimt, "translate", "-i", inp, "--format", "jsonl", "-q"], text=True)
        records = [json.loads(line) for line in done.out.splitlines()]
    tally.equal("the failing line's error is the CLI's", results[1].record.get("error"), records[1].get("error"))


def check_threads(tally):
    model = minimt_module.Model(support.SHIPPED, threads=1)
    lines = [pair[0] for pair in support.heldout_pairs(60)]
    alone = [r.record for r in model.translate(lines, attention=True)]
    for r in alone:
        r.pop("time_ms")
    got = {}

    def work(name):
        results = model.translate(lines, attention=True)
        got[name] = ([dict((k, v) for k, v in r.record.items() if k != "time_ms") for r in results],
                     results[7].cross_attention)
    threads = [threading.Thread(target=work, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reference = model.translate(lines[7], attention=True).cross_attention
    for name in ("a", "b"):
        tally.check(got[name][0] == alone, "thread %s: the records of a call alone" % name)
        tally.check(same_bits(got[name][1], reference), "thread %s: the arrays of a call alone" % name)


def check_interrupt(tally):
    model = minimt_module.Model(support.SHIPPED, threads=1, batch_size=4)
    lines = [pair[0] for pair in support.heldout_pairs(2000)]

    def stop(signum, frame):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        model.translate(lines)
        tally.check(False, "Ctrl-C stops a batch of 2,000 lines (it ran to the end)")
    except KeyboardInterrupt:
        tally.check(True, "Ctrl-C stops a batch of 2,000 lines: KeyboardInterrupt")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    tally.equal("the model still translates after it", model.translate("I am a student.").text,
                "Je suis étudiant.")


def main():
    parser = support.parser(__doc__)
    parser.add_argument("--python-dir", help="where the module is (default: python/ beside --minimt)")
    args = parser.parse_args()
    minimt = support.minimt_from(args)
    sys.path.insert(0, args.python_dir or os.path.join(os.path.dirname(minimt), "python"))
    global minimt_module
    import minimt as minimt_module  # noqa: E402
    tally = support.Tally()
    with support.scratch("python") as scratch:
        check_models(minimt, tally, scratch)
    tally.case("errors", check_errors, minimt, tally)
    tally.case("two threads at once", check_threads, tally)
    tally.case("Ctrl-C", check_interrupt, tally)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
