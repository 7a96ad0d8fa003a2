#!/usr/bin/python3
"""The progress bar of `minimt translate`: on stderr when stderr is a terminal and the input
is a file, never otherwise.

  test_batch_progress.py --minimt MINIMT_BINARY

stderr is given a pseudo-terminal (the pty module) or a plain file. Ends with
"N passed, N failed"; exits 1 on any failure.
"""

import os
import pty
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from support import (TIMEOUT, SEARCH_WARNINGS, Tally, minimt_path, random_model, run,  # noqa: E402
                     scratch, without_search_warnings)


def run_with_tty_stderr(command, stdin=subprocess.DEVNULL):
    """Runs command with stderr on a pty; returns (status, stdout, what the pty showed, s)."""
    master, slave = pty.openpty()
    start = time.monotonic()
    p = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    out = p.stdout.read()
    status = p.wait(timeout=TIMEOUT)
    os.close(master)
    return status, out, shown, time.monotonic() - start


def run_on_terminal(command):
    """Runs command with stdout and stderr on the same pty; returns (status, what it showed)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    status = p.wait(timeout=TIMEOUT)
    os.close(master)
    return status, shown


def render(shown):
    """The lines a terminal ends up showing: '\r' returns to column 0, ESC [K erases to the
    end of the line."""
    screen = []
    for segment in shown.decode(errors="replace").split("\n"):
        line, column, i = [], 0, 0
        while i < len(segment):
            if segment.startswith("\x1b[K", i):
                del line[column:]
                i += 3
                continue
            c = segment[i]
            if c == "\r":
                column = 0
            else:
                line[column:column + 1] = [c]
                column += 1
            i += 1
        screen.append("".join(line))
    return screen


def main():
    minimt = minimt_path(__doc__)
    tally = Tally()
    with scratch("batch-progress") as work:
        model = random_model("batch")
        base = [minimt, "translate", "--model", model, "--max-length", "8", "--threads", "2"]
        path = os.path.join(work, "in.txt")
        lines = 3000
        with open(path, "w", encoding="utf-8") as f:
            f.write("the cat\n" + " ".join(["a long line"] * 60) + "\n")
            for i in range(lines - 2):
                f.write(f"the dog number {i} sees the house\n")

        status, out, shown, seconds = run_with_tty_stderr(base + ["-i", path])
        tally.check(status == 0 and out.count(b"\n") == lines, "with a bar: all lines written")
        tally.check(f"/{lines} lines".encode() in shown and b"lines/s" in shown,
                    "terminal stderr, file input: the bar shows done/total and lines/s",
                    repr(shown[:200]))
        tally.check(f"{lines}/{lines} lines".encode() in shown, "the bar reaches the total")
        tally.check(b"left" in shown, "the bar shows the time left")
        tally.check(shown.endswith(b"\r\x1b[K"), "the bar is cleared at the end",
                    repr(shown[-40:]))
        tally.check(b"warning: line 2 is longer" in shown,
                    "warnings still show with the bar", repr(shown[:300]))
        draws = len(re.findall(rb"\r\d+/\d+ lines", shown))
        messages = len(re.findall(rb"minimt: warning", shown))  # each puts the bar back once
        tally.check(2 <= draws <= seconds * 10 + 5 + messages,
                    "the bar is redrawn at most ~10 times a second",
                    f"{draws} draws in {seconds:.2f} s")

        with open(path, "rb") as stdin:
            status, out, shown, _ = run_with_tty_stderr(base, stdin=stdin)
        tally.check(status == 0 and f"/{lines} lines".encode() in shown,
                    "stdin redirected from a file: a bar as well")

        status, out, shown, _ = run_with_tty_stderr(base + ["-i", path, "--quiet"])
        tally.check(status == 0 and shown == b"", "--quiet: nothing on the terminal",
                    repr(shown[:200]))

        with open(path, "rb") as f:
            data = f.read()
        r, w = os.pipe()
        p = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=w)
        os.close(w)
        p.stdin.write(data)
        p.stdin.close()
        status, out, shown, _ = run_with_tty_stderr(base, stdin=r)
        os.close(r)
        p.wait()
        tally.check(status == 0 and out.count(b"\n") == lines and b"lines/s" not in shown,
                    "input from a pipe: no bar (no total to show)", repr(shown[:200]))

        # Output to the same terminal goes above the bar, never through it.
        status, shown = run_on_terminal(base + ["-i", path])
        status_file, out, _, _ = run_with_tty_stderr(base + ["-i", path, "-q"])
        want = ["minimt: warning: line 2 is longer than the model's max_positions (24 tokens) "
                "and was cut"] + out.decode().split("\n")[:-1] + [""]
        screen = [line for line in render(shown)
                  if not SEARCH_WARNINGS.fullmatch(line.encode() + b"\n")]
        tally.check(status == 0 and b"lines/s" in shown and screen == want,
                    "stdout on the same terminal: the translations, then a cleared bar line",
                    f"{len(screen)} lines shown, {len(want)} wanted; first difference "
                    f"{next(((a, b) for a, b in zip(screen, want) if a != b), None)}")

        err_path = os.path.join(work, "stderr.txt")
        with open(err_path, "wb") as err:
            status = run(base + ["-i", path], stdout=subprocess.DEVNULL, stderr=err).status
        with open(err_path, "rb") as f:
            err = f.read()
        tally.check(status == 0 and b"lines/s" not in err and b"\r" not in err and
                    without_search_warnings(err) == b"minimt: warning: line 2 is longer than the model's max_positions "
                           b"(24 tokens) and was cut\n",
                    "stderr to a file: no bar, only the warning", repr(err[:300]))
    tally.exit()


if __name__ == "__main__":
    main()
