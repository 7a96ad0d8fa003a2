"""Child processes for tools/bench/run: every run is a child process, its wall time measured here
and its CPU time and peak resident memory taken from os.wait4; the paths and environment the
runs share."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch and python3-sentencepiece
REFERENCE = os.path.join(ROOT, "tools", "reference", "reference.py")

# PyTorch's OpenMP (libgomp) spin-waits for its worker threads; on a machine shared with
# other work that made 2 threads about 10 times slower than 1. Passive waiting is the
# setting one would use there; it changes nothing at 1 thread.
TORCH_ENV = {"OMP_WAIT_POLICY": "PASSIVE"}


def log(message):
    print("bench: " + message, file=sys.stderr, flush=True)


def median(values):
    return statistics.median(values) if values else float("nan")


class Run:
    """One child process: wall seconds, CPU seconds (user + system), peak RSS (bytes)."""

    def __init__(self, wall, cpu, rss, returncode, stdout, stderr):
        self.wall, self.cpu, self.rss = wall, cpu, rss
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(cmd, env_extra=None, stdin_path=None, what=None):
    """Runs cmd to completion; stdout and stderr are captured through files."""
    env = dict(os.environ)
    env.pop("MINIMT_KERNELS", None)
    env.update(env_extra or {})
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, stdin=stdin, stdout=out, stderr=err, env=env, cwd=ROOT)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        finally:
            if stdin_path:
                stdin.close()
        out.seek(0)
        err.seek(0)
        result = Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024,
                     proc.returncode, out.read().decode("utf-8", "replace"),
                     err.read().decode("utf-8", "replace"))
    if result.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s\n%s" % (
            what or " ".join(cmd), result.returncode, " ".join(cmd), result.stderr[-2000:]))
    return result


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError("no JSON line in %r" % text[-500:])


def run_translation(cmd, pytorch, input_path, output_path):
    """One translation run -> (Run, its output text). The reference (pytorch) reads input_path
    on stdin, prints its output, and its last JSON line on stderr becomes Run.timing; minimt
    reads its input from cmd and writes output_path."""
    if pytorch:
        result = run(cmd, env_extra=TORCH_ENV, stdin_path=input_path)
        result.timing = last_json(result.stderr)
        return result, result.stdout
    result = run(cmd)
    with open(output_path, encoding="utf-8") as f:
        return result, f.read()
