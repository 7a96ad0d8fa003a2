"""Shared by the tests/e2e/test_batch_*.py tests of `minimt translate` in batch mode.

Not a test itself: a random model made with tools/reference/reference.py, a runner, and a tally that
ends with the line "N passed, N failed".
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TIMEOUT = 60


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {what}" + (f"\n      {detail}" if detail else ""), flush=True)
        return condition

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def binary_from_argv():
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} MINIMT_BINARY")
    return os.path.abspath(sys.argv[1])


def random_model(workdir, *extra):
    """A small random model (fast); max_positions 24 so that long lines get cut."""
    path = os.path.join(workdir, "model")
    args = ["--seed", "7", "--d-model", "32", "--heads", "4", "--max-positions", "24",
            "--eos-boost", "4"] + list(extra)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "reference", "reference.py"),
                    "random-model", path] + args,
                   check=True, stdout=subprocess.DEVNULL, timeout=TIMEOUT)
    return path


# The warnings about outputs that stopped at the length limit and words the model does not know:
# random models rarely say eos, and their vocabulary misses characters. Checks about other
# noise on stderr leave these out.
SEARCH_WARNINGS = re.compile(
    rb"minimt: warning: (line \d+: the (translation stopped at|model does not know)|"
    rb"\d+ more (lines have words|translations stopped))[^\n]*\n")


def without_search_warnings(err):
    return SEARCH_WARNINGS.sub(b"", err)


def workdir():
    return tempfile.TemporaryDirectory(prefix="minimt-batch-test-")


def run(command, stdin=None, input_bytes=None, env=None):
    """Runs command; returns (exit status, stdout bytes, stderr bytes)."""
    result = subprocess.run(command, stdin=stdin, input=input_bytes, capture_output=True,
                            timeout=TIMEOUT, env=env)
    return result.returncode, result.stdout, result.stderr
