#!/usr/bin/python3
"""The shipped model's 2,000 held-out translations under every kernel, OpenBLAS core, batch size and
thread count: the cross-CPU promise of docs/architecture.md ("What is bit-identical").

  test_kernels_heldout.py MINIMT_BINARY REPO_ROOT

Runs `minimt translate --format jsonl` on the held-out English of tools/model/data/heldout.tsv
with each Linear kernel this CPU runs (MINIMT_KERNELS=avx512, avx2, generic, openblas), batch
sizes 1, 16 and 64, and 1 or 2 threads. Checks:
  - every run's translations equal the first run's, line for line (the text is identical
    whatever computes it);
  - minimt's own kernels (avx512, avx2, generic) give byte-identical records (every score and
    token log-probability: they share one summation order) whatever the batch, and whatever core
    OpenBLAS picks (OPENBLAS_CORETYPE unset, Haswell, SkylakeX where the CPU has AVX-512): the
    promise; OpenBLAS's scores agree within 1e-4 (its sgemm blocks by the number of rows, so the
    rounding moves with the batch);
  - the attention dump of 40 sentences is byte-identical under every kernel and core, and under
    the openblas kernel every weight agrees within 1e-4;
  - at least 99.9% of the translations equal the generator's French in heldout.tsv (an
    independent reference: the shipped model's README reports 99.95%).
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def supported_kernels(minimt):
    info = support.run([minimt, "info"], text=True).out
    line = next(l for l in info.splitlines() if l.startswith("kernels here"))
    listed = line.split(None, 2)[2]
    return [k for k in ("avx512", "avx2", "generic", "openblas") if k in listed]


def environment(kernel, core):
    """The changes to the environment (support.run's env): None removes a variable."""
    return {"MINIMT_KERNELS": kernel, "OPENBLAS_L2_SIZE": None, "OPENBLAS_CORETYPE": core}


def translate(minimt, model, sources, kernel, batch, threads, core=None):
    """The records as printed, less their time_ms field (the one that varies by run)."""
    run = support.run(
        [minimt, "translate", "--model", model, "-q", "--format", "jsonl", "--batch-size",
         str(batch), "--threads", str(threads)],
        input="\n".join(sources) + "\n", text=True, env=environment(kernel, core), timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{kernel} batch {batch}: exit {run.returncode}: {run.stderr}")
    return [re.sub(r',"time_ms":[0-9.e+-]+', "", line) for line in run.stdout.splitlines()]


def dump(minimt, model, sources, kernel, core, path):
    run = support.run(
        [minimt, "translate", "--model", model, "-q", "--dump-attention", path],
        input="\n".join(sources) + "\n", text=True, env=environment(kernel, core), timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{kernel} dump: exit {run.returncode}: {run.stderr}")
    with open(path, "rb") as f:
        return f.read()


def numbers(value):
    """Every number in a parsed JSON document, in order."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from numbers(item)
    elif isinstance(value, dict):
        for key in sorted(value):
            if key != "time_ms":
                yield from numbers(value[key])


def main():
    minimt, root = sys.argv[1], sys.argv[2]
    model = os.path.join(root, "models", "en-fr")
    with open(os.path.join(root, "tools", "model", "data", "heldout.tsv"), encoding="utf-8") as f:
        pairs = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    sources = [p[0] for p in pairs]
    tally = support.Tally()
    check = tally.check

    kernels = supported_kernels(minimt)
    check("generic" in kernels and "openblas" in kernels, f"kernels listed by info: {kernels}")
    base = translate(minimt, model, sources, kernels[0], 16, 1)
    base_records = [json.loads(line) for line in base]
    base_texts = [r["translation"] for r in base_records]
    exact = sum(t == p[1] for t, p in zip(base_texts, pairs))
    check(exact >= 0.999 * len(pairs), f"{exact}/{len(pairs)} equal the generator's French")
    print(f"{kernels[0]}, batch 16, 1 thread: {exact}/{len(pairs)} equal the reference French")

    with open("/proc/cpuinfo", encoding="utf-8") as f:
        avx512 = " avx512f" in f.read()
    cores = [None, "Haswell"] + (["SkylakeX"] if avx512 else [])
    runs = [(kernel, batch, threads, None) for kernel in kernels
            for batch, threads in [(1, 1), (16, 2), (64, 1)]]
    runs += [(kernels[0], 16, 2, core) for core in cores[1:]]
    count = len(sources)
    for kernel, batch, threads, core in runs:
        lines = translate(minimt, model, sources, kernel, batch, threads, core)
        records = [json.loads(line) for line in lines]
        label = (f"{kernel}, OPENBLAS_CORETYPE {core or 'unset'}, batch {batch}, "
                 f"{threads} thread(s), {count} lines")
        differ = [i + 1 for i, (a, b) in enumerate(zip(records, base_records))
                  if a["translation"] != b["translation"]]
        check(len(records) == count and not differ,
              f"{label}: translations differ on lines {differ[:10]}")
        if kernel == "openblas":
            worst = max(abs(a - b) for r, q in zip(records, base_records)
                        for a, b in zip(numbers(r), numbers(q)))
            check(worst <= 1e-4, f"{label}: numbers differ by up to {worst}")
        else:
            moved = [i + 1 for i, (a, b) in enumerate(zip(lines, base)) if a != b]
            check(not moved, f"{label}: records not byte-identical on lines {moved[:10]} "
                  "(the cross-CPU promise)")
        print(f"{label}: checked")

    # The attention weights themselves, under every kernel and core (the promise covers dumps).
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "dump.json")
        first = dump(minimt, model, sources[:40], kernels[0], None, path)
        for kernel in kernels:
            for core in cores if kernel == kernels[0] else [None]:
                got = dump(minimt, model, sources[:40], kernel, core, path)
                label = f"dump of 40 sentences, {kernel}, OPENBLAS_CORETYPE {core or 'unset'}"
                if kernel == "openblas":
                    worst = max(abs(a - b) for a, b in zip(numbers(json.loads(got)),
                                                           numbers(json.loads(first))))
                    check(worst <= 1e-4, f"{label}: weights differ by up to {worst}")
                else:
                    check(got == first, f"{label}: not byte-identical (the cross-CPU promise)")
                print(f"{label}: checked")

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
