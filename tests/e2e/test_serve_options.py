#!/usr/bin/python3
"""minimt serve takes every request option the command line does, with the same meaning: the
test iterates the server's own table (GET /v1/options, src/app/run/request_options.cpp), so that a
new option is covered without a new test.

For each option and each endpoint that takes it, its example (a JSON object of options) is
sent, and the answer must equal, byte for byte once time_ms is removed, what the command line
writes for the same sentences with the same options as flags (--NAME with `_` as `-`):
  /v1/translate  translate --format jsonl
  /v1/score      score --format jsonl
  /v1/attention  the file of translate --dump-attention
Then the other way: every option of `minimt translate --help` and `minimt score --help` is in
the table, or in CLI_ONLY below with the reason it means nothing over HTTP.

    test_serve_options.py MINIMT_BINARY

Ends with "N passed, N failed"; exits 1 on any failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "models", "en-fr")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_support import Server, Tally  # noqa: E402

SENTENCES = ["The black cat sees the small dog.", "I am a student."]
PAIRS = [("The black cat sees the small dog.", "Le chat noir voit le petit chien."),
         ("I am a student.", "Je suis une étudiante.")]
# Flags of translate and score that are not request options over HTTP, and why.
CLI_ONLY = {
    "--model": "the server's model is chosen when it starts",
    "--input": "the sentences come in the body", "--output": "the answer is the output",
    "--format": "always JSON", "--threads": "the server's own", "--batch-size": "the server's",
    "--fail-fast": "a request is answered whole", "--quiet": "nothing is printed",
    "--prefix-column": "the body gives the sentences, not tab-separated lines",
    "--dump-attention": "/v1/attention is the dump", "--view": "/v1/attention's view",
    "--show": "a picture for a terminal", "--color": "--show's", "--width": "--show's",
    "--mask-heads": "ablate_heads's old name (its alias mask_heads is in the table)",
    "--help": "", "--version": "",
}
# Options whose answer is compared elsewhere: the live page differs from --view's by its box.
NOT_COMPARED = {("view", "/v1/attention"): "tests/e2e/test_serve.py opens the live page",
                ("task", "/v1/translate"): "the shipped model has no task (generation_defaults)",
                ("task", "/v1/attention"): "the shipped model has no task (generation_defaults)"}


def strip_time(record):
    return re.sub(rb',"time_ms":[0-9.]+\}', b"}", record)


def flags_of(fields):
    flags = []
    for name, value in fields.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif isinstance(value, list):
            flags += [flag, ",".join(str(item) for item in value)]
        elif value is not False:
            flags += [flag, str(value)]
    return flags


def cli(minimt, *args):
    result = subprocess.run([minimt, *args, "--model", MODEL, "-q"], capture_output=True,
                            timeout=300)
    return result.returncode, result.stdout, result.stderr


def compare(t, server, minimt, option, endpoint, scratch):
    fields = option["example"]
    flags = flags_of(fields)
    if endpoint == "/v1/score":
        body = dict(fields, sources=[p[0] for p in PAIRS], targets=[p[1] for p in PAIRS])
        code, out, err = cli(minimt, "score", "--format", "jsonl", *flags,
                             *[text for pair in PAIRS for text in pair])
        want = b"[" + b",".join(strip_time(line) for line in out.splitlines()) + b"]\n"
    elif endpoint == "/v1/translate":
        body = dict(fields, texts=SENTENCES)
        code, out, err = cli(minimt, "translate", "--format", "jsonl", *flags, *SENTENCES)
        want = b"[" + b",".join(strip_time(line) for line in out.splitlines()) + b"]\n"
    else:
        body = dict(fields, texts=SENTENCES)
        dump = os.path.join(scratch, option["name"] + ".json")
        code, _, err = cli(minimt, "translate", "--format", "jsonl", "--dump-attention", dump,
                           *flags, *SENTENCES)
        want = open(dump, "rb").read() if code == 0 else b""
    status, got = server.post(endpoint, body)
    if endpoint != "/v1/attention":
        got = strip_time(got)
    t.check(code == 0 and status == 200 and got == want,
            "%s %s %s: HTTP %d %r, CLI %s exit %d %r" %
            (endpoint, option["name"], json.dumps(fields), status, got[:160], " ".join(flags),
             code, (want[:160] or err[-200:])))


def generation_defaults(t, minimt, scratch):
    """A model with a generation block (docs/model-format.md, "Generation settings") and a task:
    the server takes the model's settings where the body is silent, as translate's command line
    does, byte for byte, and a body's own value wins as a flag does."""
    model = os.path.join(scratch, "with-generation")
    shutil.copytree(MODEL, model)
    with open(os.path.join(model, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["format_version"] = 2
    config["generation"] = {"from": "test_serve_options.py", "beam_size": 3, "max_length": 6,
                            "no_repeat_ngram_size": 2, "length_penalty": 1.0,
                            "tasks": {"short": {"source_prefix_tokens": [], "max_length": 3,
                                                "beam_size": 2}}}
    with open(os.path.join(model, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f)
    cases = [{}, {"beam_size": 1}, {"max_length": 20, "no_repeat_ngram_size": 0},
             {"task": "short"}, {"task": "short", "beam_size": 4}, {"task": "short", "max_length": 5}]
    # These four differ in what they say (the lengths differ): the settings were applied.
    distinct = [0, 2, 3, 5]
    answers = []
    with Server(minimt, ["--model", model, "--threads", "2"]) as server:
        for fields in cases:
            result = subprocess.run([minimt, "translate", "--model", model, "-q", "--format",
                                     "jsonl", *flags_of(fields), *SENTENCES],
                                    capture_output=True, timeout=300)
            want = b"[" + b",".join(strip_time(line) for line in result.stdout.splitlines()) + \
                b"]\n"
            status, got = server.post("/v1/translate", dict(fields, texts=SENTENCES))
            answers.append(strip_time(got))
            t.check(result.returncode == 0 and status == 200 and strip_time(got) == want,
                    "model with generation settings, %s: HTTP %d %r, CLI %r" %
                    (json.dumps(fields), status, got[:200], want[:200]))
        status, body = server.post("/v1/translate", {"task": "nope", "text": "a"})
        error = json.loads(body) if status == 400 else {}
        t.check(error.get("field") == "task" and
                error.get("error", "").startswith("task: 'nope' is not a task of the model"),
                "a task the model lacks: %d %r" % (status, body[:200]))
    # Cases of different lengths answer differently: the model's settings were applied.
    t.check(len({answers[i] for i in distinct if i < len(answers)}) == len(distinct),
            "cases %s: not %d distinct answers" % (distinct, len(distinct)))


def main():
    minimt = os.path.abspath(sys.argv[1])
    t = Tally()
    flags = ["--model", MODEL, "--compute-type", "float32,int8", "--threads", "2",
             "--max-sentences", "8"]
    scratch = tempfile.mkdtemp(prefix="serve-options-")
    with Server(minimt, flags) as server:
        status, body = server.get("/v1/options")
        options = json.loads(body)["options"] if status == 200 else []
        t.check(len(options) >= 20, "GET /v1/options: %d %r" % (status, body[:200]))

        def every_option():
            for option in options:
                for endpoint in option["endpoints"]:
                    if (option["name"], endpoint) in NOT_COMPARED:
                        continue
                    compare(t, server, minimt, option, endpoint, scratch)
        t.run("every option against its flag", every_option)
        # An alias works as its option does.
        for option in options:
            if option["alias"]:
                fields = {option["alias"]: option["example"][option["name"]]}
                a = server.post(option["endpoints"][0], dict(fields, texts=SENTENCES,
                                sources=[p[0] for p in PAIRS], targets=[p[1] for p in PAIRS])
                                if option["endpoints"][0] == "/v1/score" else
                                dict(fields, texts=SENTENCES))
                b = server.post(option["endpoints"][0], dict(option["example"], texts=SENTENCES,
                                sources=[p[0] for p in PAIRS], targets=[p[1] for p in PAIRS])
                                if option["endpoints"][0] == "/v1/score" else
                                dict(option["example"], texts=SENTENCES))
                t.check(a[0] == 200 and strip_time(a[1]) == strip_time(b[1]),
                        "alias %s of %s: %r" % (option["alias"], option["name"], a[1][:160]))
                # Both names at once say one thing twice: refused, naming both.
                both = dict(fields, texts=SENTENCES, **option["example"])
                status, body = server.post("/v1/translate", both)
                error = json.loads(body).get("error", "") if status == 400 else ""
                t.check(status == 400 and option["alias"] in error and option["name"] in error,
                        "%s and %s together: %d %r" % (option["alias"], option["name"],
                                                        status, body[:200]))
        # A refused value is named as the request named it, by either name.
        for name in ("ablate_heads", "mask_heads"):
            status, body = server.post("/v1/translate", {name: "cross:9:0", "text": "a"})
            error = json.loads(body).get("error", "") if status == 400 else ""
            t.check(status == 400 and error.startswith(name + ": ") and
                    json.loads(body).get("field") == name,
                    "%s cross:9:0: %d %r" % (name, status, body[:200]))
    t.run("the model's generation settings", lambda: generation_defaults(t, minimt, scratch))
    # The other way: every flag of translate and score is an option, or said to be CLI-only.
    names = {option["name"] for option in options}
    for command in ("translate", "score"):
        help_text = subprocess.run([minimt, command, "--help"], capture_output=True,
                                   text=True).stdout
        for flag in sorted(set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z][a-z-]*)", help_text))):
            t.check(flag in CLI_ONLY or flag[2:].replace("-", "_") in names,
                    "%s %s: neither a request option (src/app/run/request_options.cpp) nor "
                    "CLI-only in this test" % (command, flag))
    t.finish()


if __name__ == "__main__":
    main()
