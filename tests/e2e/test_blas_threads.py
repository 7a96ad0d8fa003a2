#!/usr/bin/python3
"""minimt starts no OpenBLAS worker threads: it runs every product on one thread.

  test_blas_threads.py --minimt MINIMT_BINARY

OpenBLAS starts a pool of (cores - 1) worker threads when it loads, unless OPENBLAS_NUM_THREADS
is 1; minimt never uses them and ends them at start (set_blas_threads(1)). Runs `minimt
translate --threads T` on the shipped model with standard input kept open, waits for the
first translation, and counts the process's threads (/proc/PID/task) against the same run
started with OPENBLAS_NUM_THREADS=1 (no pool by construction): the counts must be equal.
Ends with a line "N passed, N failed"; exits 1 on any failure (and when this machine has one
core, where the check cannot fail).
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def threads_while_running(minimt, model, threads, env):
    run = subprocess.Popen(
        [minimt, "translate", "--model", model, "-q", "--threads", str(threads)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8",
        env=support.environment(env))
    run.stdin.write("I am a student.\n")
    run.stdin.flush()
    first = run.stdout.readline().strip()  # the model is loaded and has run
    count = len(os.listdir(f"/proc/{run.pid}/task"))
    run.stdin.close()
    run.wait(timeout=support.TIMEOUT)
    return first, count


def main():
    minimt, model = support.minimt_path(__doc__), support.SHIPPED
    tally = support.Tally()
    check = tally.check

    check(len(os.sched_getaffinity(0)) > 1, "one core: OpenBLAS starts no pool to stop")
    for threads in (1, 2):
        text, count = threads_while_running(minimt, model, threads,
                                            {"OPENBLAS_NUM_THREADS": None})
        base_text, base_count = threads_while_running(minimt, model, threads,
                                                      {"OPENBLAS_NUM_THREADS": "1"})
        print(f"--threads {threads}: {count} threads, {base_count} without an OpenBLAS pool")
        check(text == "Je suis étudiant." and base_text == text, f"translation: {text!r}")
        check(count == base_count, f"--threads {threads}: {count} threads, not {base_count}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
