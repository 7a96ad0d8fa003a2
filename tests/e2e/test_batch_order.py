#!/usr/bin/python3
"""Order and completeness of `minimt translate` on a file of mixed lines.

  test_batch_order.py --minimt MINIMT_BINARY

A few thousand lines (normal, empty, blank, too long for the model, invalid UTF-8, CRLF
endings, a last line without '\\n') are translated with several thread counts and batch
sizes, from a file, from a pipe and as arguments. Every input line must have exactly one
output record, in input order, with the same content whatever the threads and the batches:
text output byte for byte, JSON Lines byte for byte once time_ms is removed. Ends with
"N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from support import Tally, minimt_path, random_model, run, scratch  # noqa: E402

LINES = 2000
CONFIGS = [(1, 16), (2, 1), (3, 5), (4, 64)]  # (threads, batch size)
WORDS = ("the a cat dog house red blue small big runs sees is was on under with and of to in "
         "café élan naïve 日本 straße").split()


def make_lines(rng):
    """(raw bytes of the line without its ending, kind)"""
    lines = []
    for _ in range(LINES):
        r = rng.random()
        if r < 0.08:
            line, kind = b"", "empty"
        elif r < 0.10:
            line, kind = b" \t  ", "blank"
        elif r < 0.15:
            line, kind = b"caf\xe9 au lait \xff", "invalid"
        elif r < 0.20:
            line = " ".join(rng.choice(WORDS) for _ in range(100)).encode()
            kind = "long"
        else:
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))).encode()
            kind = "normal"
        lines.append((line, kind))
    return lines


def strip_time(jsonl):
    return re.sub(rb',"time_ms":[0-9.]+\}', b"}", jsonl)


# One function on purpose: the checks share the model and files set up at its top and read as
# the list of cases.
def main():
    minimt = minimt_path(__doc__)
    tally = Tally()
    rng = random.Random(2024)
    with scratch("batch-order") as work:
        model = random_model("batch-128")  # cuts only the long lines
        lines = make_lines(rng)
        data = b""
        for i, (line, _) in enumerate(lines):
            ending = b"\r\n" if i % 37 == 5 else b"\n"
            data += line + (ending if i + 1 < len(lines) else b"")  # no '\n' at the very end
        path = os.path.join(work, "mixed.txt")
        with open(path, "wb") as f:
            f.write(data)
        base = [minimt, "translate", "--model", model, "--max-length", "6"]

        texts, jsonls = {}, {}
        for threads, batch in CONFIGS:
            name = f"--threads {threads} --batch-size {batch}"
            opts = ["--threads", str(threads), "--batch-size", str(batch)]
            status, out, err = run(base + opts + ["-i", path, "--format", "jsonl", "-q"])
            tally.check(status == 1, f"{name}: exit status 1 (some lines are invalid)",
                        f"got {status}; stderr {err[:300]!r}")
            jsonls[name] = out
            records = [json.loads(r) for r in out.decode().splitlines()]
            tally.check(len(records) == LINES, f"{name}: one JSON record per line",
                        f"{len(records)} records for {LINES} lines")
            tally.check([r["line"] for r in records] == list(range(1, len(records) + 1)),
                        f"{name}: records in input order, numbered from 1")
            bad = []
            for r, (line, kind) in zip(records, lines):
                if kind == "invalid":
                    ok = "error" in r and "translation" not in r and "tokens" not in r
                else:
                    ok = "error" not in r and r["source"] == line.decode()
                    if kind in ("empty", "blank"):
                        ok = ok and r["translation"] == "" and r["tokens"] == ["</s>"]
                    ok = ok and r.get("truncated", False) == (kind == "long")
                if not ok:
                    bad.append((r["line"], kind, r))
            tally.check(not bad, f"{name}: each record matches its line",
                        f"{len(bad)} mismatches, first {bad[:2]}")

            status, out, err = run(base + opts + ["-i", path])
            texts[name] = out
            tally.check(status == 1, f"{name}, text: exit status 1", f"got {status}")
            count = out.count(b"\n")
            tally.check(count == LINES, f"{name}, text: one output line per line",
                        f"{count} lines")
            want = [r.get("translation", "") for r in records]
            tally.check(out.decode().split("\n")[:-1] == want,
                        f"{name}, text: the translations of the JSON records")
            errors = [int(n) for n in re.findall(rb"error: line (\d+):", err)]
            warnings = [int(n) for n in re.findall(rb"warning: line (\d+) ", err)]
            tally.check(errors == [i + 1 for i, (_, k) in enumerate(lines) if k == "invalid"],
                        f"{name}, text: an error on stderr for each invalid line, by number")
            tally.check(warnings == [i + 1 for i, (_, k) in enumerate(lines) if k == "long"],
                        f"{name}, text: a warning on stderr for each cut line, by number")

        first = CONFIGS[0]
        first = f"--threads {first[0]} --batch-size {first[1]}"
        for name in jsonls:
            tally.check(strip_time(jsonls[name]) == strip_time(jsonls[first]),
                        f"JSON Lines of {name} identical to {first} (time_ms aside)")
            tally.check(texts[name] == texts[first],
                        f"text of {name} byte for byte identical to {first}")

        # From a pipe, batches are cut wherever input runs dry: the output must not change.
        status, out, _ = run(base + ["--threads", "2"], input=data)
        tally.check(status == 1 and out == texts[first], "stdin pipe: the same text output")

        # Sentences as arguments are lines too.
        args = [line.decode() for line, kind in lines[:200] if kind != "invalid"]
        status, out, _ = run(base + ["--threads", "2", "--batch-size", "3", "--"] + args)
        by_file = [r["translation"] for r, (_, k) in
                   zip(map(json.loads, jsonls[first].decode().splitlines()), lines[:200])
                   if k != "invalid"]
        tally.check(status == 0 and out.decode().split("\n")[:-1] == by_file,
                    "arguments: one line each, the same translations as from the file")
    tally.exit()


if __name__ == "__main__":
    main()
