#!/usr/bin/python3
"""OpenBLAS costs a translation nothing unless it is asked for, and then runs on one thread.

  test_blas_threads.py --minimt MINIMT_BINARY

minimt's own kernels compute every product of a default run, and OpenBLAS is opened on first use
(src/engine/blas_runtime.cpp). Runs `minimt translate --threads T` on the shipped model with
standard input kept open, waits for the first translation, then reads the process's memory map
(/proc/PID/maps) and counts its threads (/proc/PID/task). Checks:
  - a default run (the environment scrubbed of OPENBLAS_* and MINIMT_KERNELS) has no
    libopenblas, libgfortran or libquadmath mapped, and the same threads as with T;
  - MINIMT_KERNELS=openblas maps libopenblas and translates the same; with
    OPENBLAS_NUM_THREADS=2 set by the user (OpenBLAS then starts a pool when it loads), minimt
    ends that pool: as many threads as with OPENBLAS_NUM_THREADS=1 (no pool by construction).
Ends with a line "N passed, N failed"; exits 1 on any failure (and when this machine has one
core, where the pool check cannot fail).
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def running(minimt, model, threads, env):
    """The first translation, the libraries mapped and the thread count while the run is live."""
    run = subprocess.Popen(
        [minimt, "translate", "--model", model, "-q", "--threads", str(threads)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8",
        env=support.environment(env))
    run.stdin.write("I am a student.\n")
    run.stdin.flush()
    first = run.stdout.readline().strip()  # the model is loaded and has run
    with open(f"/proc/{run.pid}/maps", encoding="utf-8") as f:
        libraries = {os.path.basename(line.split()[-1]) for line in f if ".so" in line}
    count = len(os.listdir(f"/proc/{run.pid}/task"))
    run.stdin.close()
    run.wait(timeout=support.TIMEOUT)
    return first, libraries, count


def main():
    minimt, model = support.minimt_path(__doc__), support.SHIPPED
    tally = support.Tally()
    check = tally.check

    check(len(os.sched_getaffinity(0)) > 1, "one core: OpenBLAS starts no pool to stop")
    # changes to this process's environment (support.environment): OPENBLAS_* and
    # MINIMT_KERNELS removed
    plain = {k: None for k in os.environ if k.startswith("OPENBLAS_") or k == "MINIMT_KERNELS"}
    for threads in (1, 2):
        text, libraries, count = running(minimt, model, threads, plain)
        blas = sorted(l for l in libraries
                      if l.startswith(("libopenblas", "libgfortran", "libquadmath")))
        print(f"--threads {threads}, default kernels: {count} threads, OpenBLAS files {blas}")
        check(text == "Je suis étudiant.", f"translation: {text!r}")
        check(not blas, f"--threads {threads}: a default run maps {blas}")

        openblas = dict(plain, MINIMT_KERNELS="openblas")
        text, libraries, count = running(minimt, model, threads,
                                         dict(openblas, OPENBLAS_NUM_THREADS="2"))
        base_text, _, base_count = running(minimt, model, threads,
                                           dict(openblas, OPENBLAS_NUM_THREADS="1"))
        print(f"--threads {threads}, openblas: {count} threads, {base_count} without a pool")
        check(any(l.startswith("libopenblas") for l in libraries),
              f"--threads {threads}: MINIMT_KERNELS=openblas maps no libopenblas: {libraries}")
        check(text == "Je suis étudiant." and base_text == text, f"openblas: {text!r}")
        check(count == base_count, f"--threads {threads}: {count} threads, not {base_count}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
