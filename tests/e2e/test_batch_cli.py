#!/usr/bin/python3
"""`minimt translate` as a Unix filter: closed pipes, exit statuses, --fail-fast, --quiet,
JSON Lines schema, -o, interactive answers, usage errors.

  test_batch_cli.py --minimt MINIMT_BINARY

Ends with "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from support import (TIMEOUT, Tally, minimt_path, random_model, run, scratch,  # noqa: E402
                     without_search_warnings)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def check_closed_pipe(tally, base, big):
    # The shell way: minimt ... | head -3, with pipefail so minimt's status counts.
    for extra in ([], ["--format", "jsonl"], ["--threads", "1", "--batch-size", "1"]):
        name = "closed pipe " + " ".join(extra)
        command = " ".join(f"'{a}'" for a in base + extra + ["-i", big])
        start = time.monotonic()
        shell = f"set -o pipefail; {command} 2>stderr.txt | head -3"
        result = run(["bash", "-c", shell], cwd=os.path.dirname(big))
        elapsed = time.monotonic() - start
        with open(os.path.join(os.path.dirname(big), "stderr.txt"), "rb") as f:
            err = f.read()
        tally.check(result.returncode == 0, f"{name}: exit status 0",
                    f"got {result.returncode}")
        tally.check(result.stdout.count(b"\n") == 3, f"{name}: head got its 3 lines")
        tally.check(without_search_warnings(err) == b"", f"{name}: nothing on stderr",
                    repr(err[:300]))
        tally.check(elapsed < 20, f"{name}: ends promptly", f"{elapsed:.1f} s")

    # A reader that reads a little and goes away, without head.
    p = subprocess.Popen(base + ["--threads", "2", "-i", big], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.readline()
    p.stdout.close()
    try:
        status = p.wait(timeout=20)
        err = p.stderr.read()
    except subprocess.TimeoutExpired:
        p.kill()
        status, err = "stuck", b""
    tally.check(status == 0 and without_search_warnings(err) == b"",
                "reader closes the pipe: exit 0, quiet",
                f"status {status}, stderr {err[:200]!r}")


def check_statuses(tally, base, work):
    good = write(os.path.join(work, "good.txt"), b"the cat\n\nthe dog is red\n")
    status, out, err = run(base + ["-i", good])
    tally.check(status == 0 and out.count(b"\n") == 3 and without_search_warnings(err) == b"",
                "all lines fine: exit 0, one line each, stderr empty",
                f"status {status}, out {out!r}, err {err!r}")
    tally.check(out.split(b"\n")[1] == b"", "an empty line gives an empty translation")

    mixed = write(os.path.join(work, "mixed.txt"), b"the cat\nbad \xc3\x28 utf8\nthe dog\n")
    status, out, err = run(base + ["-i", mixed])
    lines = out.split(b"\n")
    tally.check(status == 1, "a failed line: exit status 1", f"got {status}")
    tally.check(len(lines) == 4 and lines[1] == b"" and lines[0] and lines[2],
                "a failed line prints an empty line and the next lines go on", repr(out))
    tally.check(b"error: line 2: invalid UTF-8" in err, "the error names its line on stderr",
                repr(err))
    status_q, _, err_q = run(base + ["-i", mixed, "-q"])
    tally.check(status_q == 1 and b"error: line 2" in err_q, "--quiet keeps errors")

    long_line = " ".join(["the big red dog"] * 40).encode()
    cut = write(os.path.join(work, "cut.txt"), b"a cat\n" + long_line + b"\n")
    status, out, err = run(base + ["-i", cut])
    tally.check(status == 0 and b"warning: line 2 is longer than the model's max_positions" in err,
                "a cut line: a warning naming its line, exit 0", f"{status} {err!r}")
    status, out, err = run(base + ["-i", cut, "--quiet"])
    tally.check(status == 0 and err == b"", "--quiet: no warnings", repr(err))

    status, out, err = run(base, input=b"")
    tally.check(status == 0 and out == b"" and err == b"", "empty input: no output, exit 0")

    status, out, err = run(base + ["-i", os.path.join(work, "missing.txt")])
    tally.check(status == 1 and b"missing.txt" in err, "a missing input file: exit 1, named",
                repr(err))
    status, out, err = run([base[0], "translate", "--model", os.path.join(work, "nomodel"),
                            "-i", good])
    tally.check(status == 1, "a missing model: exit 1")

    # --fail-fast: stop at the first failure, after writing it.
    many = b"".join(b"line number %d\n" % i for i in range(1, 200))
    failing = write(os.path.join(work, "fail.txt"), many.replace(b"number 50\n", b"\xff\n"))
    for threads, batch in ((1, 1), (2, 16), (3, 7)):
        opts = ["--threads", str(threads), "--batch-size", str(batch), "--fail-fast"]
        status, out, err = run(base + opts + ["-i", failing])
        tally.check(status == 1 and out.count(b"\n") == 50 and out.endswith(b"\n\n"),
                    f"--fail-fast {opts}: lines 1-50 written (50 empty), exit 1",
                    f"status {status}, {len(out.splitlines())} lines")
        tally.check(err.count(b"error:") == 1 and b"line 50" in err,
                    f"--fail-fast {opts}: one error, line 50", repr(err))
        status, out, err = run(base + opts + ["-i", failing, "--format", "jsonl"])
        records = [json.loads(r) for r in out.decode().splitlines()]
        tally.check(status == 1 and len(records) == 50 and "error" in records[-1],
                    f"--fail-fast {opts} jsonl: 50 records, the last one the error")
    status, out, _ = run(base + ["-i", failing])
    tally.check(status == 1 and out.count(b"\n") == 199, "without --fail-fast every line is written")


def check_jsonl(tally, base, work, max_positions):
    path = write(os.path.join(work, "schema.txt"),
                 b"the cat\n\n  \nna\xc3\xafve caf\xc3\xa9\nbad \xff\n" +
                 " ".join(["dog"] * 200).encode() + b"\n")
    status, out, err = run(base + ["-i", path, "--format", "jsonl", "-q"])
    tally.check(status == 1, "jsonl with a failed line: exit 1")
    tally.check(out.endswith(b"\n") and out.count(b"\n") == 6, "jsonl: one line per record")
    records = []
    for number, text in enumerate(out.decode().splitlines(), 1):
        try:
            records.append(json.loads(text))
        except ValueError as e:
            tally.check(False, f"jsonl line {number} parses", f"{e}: {text!r}")
    tally.check(len(records) == 6, "jsonl: every line parses as JSON")
    for r in records:
        common = isinstance(r.get("line"), int) and isinstance(r.get("source"), str) and \
            isinstance(r.get("time_ms"), (int, float)) and r["time_ms"] >= 0
        if "error" in r:
            ok = common and isinstance(r["error"], str) and r["error"] and \
                not ({"translation", "tokens", "score"} & r.keys())
        else:
            ok = common and isinstance(r.get("translation"), str) and \
                isinstance(r.get("tokens"), list) and \
                all(isinstance(t, str) for t in r["tokens"]) and \
                len(r["tokens"]) < max_positions and \
                isinstance(r.get("score"), (int, float)) and r["score"] <= 0 and \
                isinstance(r.get("token_log_probs"), list) and \
                all(p <= 0 for p in r["token_log_probs"]) and \
                abs(sum(r["token_log_probs"]) - r["score"]) <= 1e-4 * (1 + abs(r["score"])) and \
                len(r["token_log_probs"]) == len(r["tokens"]) and \
                (r.get("cut_short") or r["tokens"][-1:] == ["</s>"]) and \
                r.get("cut_short", True) is True and \
                all(isinstance(w, str) and w for w in r.get("unknown", ["x"])) and \
                set(r.keys()) <= {"line", "source", "translation", "tokens", "score",
                                  "token_log_probs", "cut_short", "unknown", "time_ms",
                                  "truncated"}
        tally.check(ok, f"jsonl record {r.get('line')} has the documented fields", repr(r))
    if len(records) == 6:
        tally.check([r["line"] for r in records] == [1, 2, 3, 4, 5, 6], "jsonl: line numbers")
        tally.check(records[1]["translation"] == "" and records[1]["tokens"] == ["</s>"] and
                    records[1]["score"] == records[1]["token_log_probs"][0] < 0,
                    "jsonl: an empty line, empty translation, eos alone with its log-probability",
                    repr(records[1]))
        tally.check(records[3]["source"] == "naïve café", "jsonl: UTF-8 source as is")
        tally.check("error" in records[4] and records[4]["source"] == "bad \ufffd",
                    "jsonl: invalid UTF-8 is an error; its source shows U+FFFD", repr(records[4]))
        tally.check(records[5].get("truncated") is True and "truncated" not in records[0],
                    "jsonl: truncated:true only on the cut line")
        pieces = records[0]["tokens"][:None if records[0].get("cut_short") else -1]  # eos
        tally.check("".join(pieces).replace("\u2581", " ").strip() ==
                    records[0]["translation"].strip(),
                    "jsonl: tokens are the pieces of the translation, then eos unless cut short",
                    repr(records[0]))

    # -o FILE holds exactly what stdout would.
    target = os.path.join(work, "out.jsonl")
    status, out2, _ = run(base + ["-i", path, "-o", target, "--format", "jsonl", "-q"])
    with open(target, "rb") as f:
        written = f.read()
    strip = lambda b: [{k: v for k, v in json.loads(x).items() if k != "time_ms"}
                       for x in b.decode().splitlines()]
    tally.check(status == 1 and out2 == b"" and strip(written) == strip(out),
                "-o FILE: the same records, nothing on stdout")
    status, _, err = run(base + ["-i", path, "-o", path])
    with open(path, "rb") as f:
        intact = f.read().startswith(b"the cat\n")
    tally.check(status == 2 and intact, "-o naming the input file is refused", repr(err))


def check_interactive(tally, base):
    # Lines arriving one at a time on a pipe are answered one at a time, batch size or not.
    p = subprocess.Popen(base + ["--batch-size", "16"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    answers = []
    for text in (b"the cat\n", b"\n", b"the red dog\n"):
        p.stdin.write(text)
        p.stdin.flush()
        ready, _, _ = select.select([p.stdout], [], [], 15)
        answers.append(p.stdout.readline() if ready else None)
    p.stdin.close()
    status = p.wait(timeout=TIMEOUT)
    tally.check(None not in answers and answers[1] == b"\n" and status == 0,
                "interactive: each line answered before the next is sent", repr(answers))


def check_usage(tally, base, work):
    good = write(os.path.join(work, "u.txt"), b"a\n")
    for args, what in (
        (["--format", "xml"], "--format"),
        (["--threads", "-1"], "--threads"),
        (["--batch-size", "0"], "--batch-size"),
        (["-i", good, "some text"], "--input"),
        (["--dump-types", "cross"], "--dump-attention"),
        (["--dump-attention", "d.json", "--dump-types", "cross,self"], "--dump-types"),
        (["--dump-attention", "d.json", "--dump-layers", "0,x"], "--dump-layers"),
        (["--dump-attention", "d.json", "--dump-heads", "-1"], "--dump-heads"),
        (["--dump-attention", "d.json", "--dump-heads", "1,1"], "--dump-heads"),
    ):
        status, out, err = run(base + args, input=b"a\n")
        tally.check(status == 2 and what.encode() in err and out == b"",
                    f"usage error {args}: exit 2, message names {what}", f"{status} {err!r}")


def main():
    minimt = minimt_path(__doc__)
    tally = Tally()
    with scratch("batch-cli") as work:
        model = random_model("batch")
        base = [minimt, "translate", "--model", model, "--max-length", "8"]
        big = os.path.join(work, "big.txt")
        with open(big, "w", encoding="utf-8") as f:
            for i in range(200000):
                f.write(f"the cat number {i} is on the house\n")
        check_closed_pipe(tally, base, big)
        check_statuses(tally, base, work)
        check_jsonl(tally, base, work, 24)
        check_interactive(tally, base)
        check_usage(tally, base, work)
    tally.exit()


if __name__ == "__main__":
    main()
