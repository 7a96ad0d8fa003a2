#!/usr/bin/env python3
"""Translations with no tokens (--max-length 0: the decoder takes no step, so cross-attention's
keys and values are never projected) with every dump flag, on every front end: translate (a
segmentation fault until this test), the dump read back by view and show, --show, score of an
empty target beside, minimt serve's /v1/attention (the server answers and stays up) and the
Python module. Each dump holds, for every key, exactly the shape its tokens give (no layer where
there is no row), and the JSON reads back.

    test_empty_translations.py --minimt build/minimt
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import support  # noqa: E402
from serve_support import Server  # noqa: E402

EXTRAS = ["--dump-scores", "--dump-vectors", "--dump-norms", "--logit-lens", "2", "--rollout",
          "--alternatives", "2", "--format", "jsonl"]


def check_dump(t, document, what):
    """Every sentence: no decoder rows, so every decoder and cross key has no layer, and the
    encoder's keys have the source's rows."""
    for s in document["sentences"]:
        S = len(s["source_tokens"])
        t.equal(what + ": no decoder input tokens", s["decoder_input_tokens"], [])
        for key, value in s.items():
            if key.startswith(("decoder_self", "cross")) and isinstance(value, list):
                empty = all(head == [] for layer in value for head in layer) or value == []
                t.check(empty, "%s: %s has no rows" % (what, key), str(value)[:120])
            if key in ("encoder_self_attention", "encoder_self_keys", "encoder_self_values"):
                t.check(all(len(head) == S for layer in value for head in layer),
                        "%s: %s has the source's %d rows" % (what, key, S))


def main():
    minimt = support.minimt_path(__doc__)
    t = support.Tally()
    with support.scratch("empty") as scratch:
        dump = os.path.join(scratch, "dump.json")
        done = support.run([minimt, "translate", "--max-length", "0", *EXTRAS, "-q",
                            "--dump-attention", dump, "hello", "the wolves are not sad"], text=True)
        t.equal("translate --max-length 0 with every dump flag: exit status", done.status, 0)
        with open(dump, encoding="utf-8") as f:
            check_dump(t, json.load(f), "the CLI's dump")
        page = os.path.join(scratch, "page.html")
        t.equal("view reads it", support.run([minimt, "view", dump, "-o", page], text=True).status, 0)
        shown = support.run([minimt, "show", dump, "--type", "encoder", "--color", "never"], text=True)
        t.check(shown.status == 0 and "Encoder self-attention" in shown.out, "show draws its encoder")
        shown = support.run([minimt, "show", dump], text=True)
        t.equal("show of its cross-attention: a usage message, not a crash", shown.err.strip(),
                "minimt: error: sentence 1's Cross-attention has no rows to draw: its translation "
                "has no tokens (--max-length 0?)")
        pictured = support.run([minimt, "translate", "--max-length", "0", "--show", "cross",
                                "--color", "never", "-q", "hello", "world"], text=True)
        t.equal("--show with no rows: the run goes on (exit status)", pictured.status, 0)
        t.equal("--show with no rows: one line per sentence says so",
                [line.split(":")[:2] for line in pictured.err.splitlines()],
                [["line 1", " no picture"], ["line 2", " no picture"]])

    with Server(minimt, ["--threads", "1"]) as server:
        for body in ({"text": "hello", "max_length": 0, "dump_vectors": True},
                     {"texts": ["hello", "world"], "max_length": 0, "dump_vectors": True,
                      "dump_scores": True, "dump_norms": True, "logit_lens": 2, "rollout": True}):
            status, answer = server.post("/v1/attention", body)
            t.equal("serve /v1/attention %s: status" % sorted(body), status, 200)
            if status == 200:
                check_dump(t, json.loads(answer), "serve's dump")
        t.equal("the server still answers", server.get("/v1/health")[0], 200)

    sys.path.insert(0, os.path.join(os.path.dirname(minimt), "python"))
    try:
        import minimt as module
    except ImportError as e:
        t.check(False, "the Python module is built (tools/setup.sh --tests): %s" % e)
        return t.finish()
    result = module.Model(support.SHIPPED).translate("hello", max_length=0, dump_vectors=True)
    t.equal("python: the cross keys of an empty translation", result.cross_keys.shape[0], 0)
    t.equal("python: its encoder keys", result.encoder_self_keys.shape[2], len(result.source_tokens))
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
