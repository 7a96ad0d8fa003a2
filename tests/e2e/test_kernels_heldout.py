#!/usr/bin/python3
"""The shipped model's 2,000 held-out translations under every kernel, batch size and thread count.

  test_kernels_heldout.py MINIMT_BINARY REPO_ROOT

Runs `minimt translate --format jsonl` on the held-out English of tools/model/data/heldout.tsv
with each Linear kernel this CPU runs (MINIMT_KERNELS=avx512, avx2, openblas; the generic
kernel on the first 100 lines: on x86 it calls a library fma per product and is slow), batch
sizes 1, 16 and 64, and 1 or 2 threads. Checks:
  - every run's translations equal the first run's, line for line (the text is identical
    whatever computes it);
  - minimt's packed kernels (avx512, avx2, generic) give bit-identical scores (they share one
    summation order) whatever the batch; OpenBLAS's scores agree within 1e-4 (its sgemm blocks
    by the number of rows, so the rounding moves with the batch);
  - at least 99.9% of the translations equal the generator's French in heldout.tsv (an
    independent reference: the shipped model's README reports 99.95%).
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def supported_kernels(minimt):
    info = support.run([minimt, "info"], text=True).out
    line = next(l for l in info.splitlines() if l.startswith("kernels here"))
    listed = line.split(None, 2)[2]
    return [k for k in ("avx512", "avx2", "generic", "openblas") if k in listed]


def translate(minimt, model, sources, kernel, batch, threads):
    run = support.run(
        [minimt, "translate", "--model", model, "-q", "--format", "jsonl", "--batch-size",
         str(batch), "--threads", str(threads)],
        input="\n".join(sources) + "\n", text=True, env={"MINIMT_KERNELS": kernel}, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{kernel} batch {batch}: exit {run.returncode}: {run.stderr}")
    records = [json.loads(line) for line in run.stdout.splitlines()]
    return [r["translation"] for r in records], [r["score"] for r in records]


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
    base_texts, base_scores = translate(minimt, model, sources, kernels[0], 16, 1)
    exact = sum(t == p[1] for t, p in zip(base_texts, pairs))
    check(exact >= 0.999 * len(pairs), f"{exact}/{len(pairs)} equal the generator's French")
    print(f"{kernels[0]}, batch 16, 1 thread: {exact}/{len(pairs)} equal the reference French")

    for kernel in kernels:
        count = 100 if kernel == "generic" else len(sources)
        for batch, threads in [(1, 1), (16, 2), (64, 1)]:
            texts, scores = translate(minimt, model, sources[:count], kernel, batch, threads)
            label = f"{kernel}, batch {batch}, {threads} thread(s), {count} lines"
            differ = [i + 1 for i, (a, b) in enumerate(zip(texts, base_texts)) if a != b]
            check(len(texts) == count and not differ,
                  f"{label}: translations differ on lines {differ[:10]}")
            if kernel == "openblas":
                worst = max(abs(a - b) for a, b in zip(scores, base_scores))
                check(worst <= 1e-4, f"{label}: scores differ by up to {worst}")
            else:
                moved = [i + 1 for i, (a, b) in enumerate(zip(scores, base_scores)) if a != b]
                check(not moved, f"{label}: scores not bit-identical on lines {moved[:10]}")
            print(f"{label}: checked")

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
