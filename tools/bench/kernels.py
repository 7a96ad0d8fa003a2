"""The `kernels` section: one Linear layer at 1..64 rows through minimt's AVX-512 and AVX2
kernels and OpenBLAS (with AVX-512 disabled, and as set up): GFLOP/s, `minimt_bench linear`."""
from child_runs import last_json, log, median, run
from report_format import fmt

KERNEL_SHAPE = (2048, 512)  # n, k: a base-sized model's first feed-forward layer
KERNEL_ROWS = (1, 4, 16, 32, 64)


def bench_kernels(args, results):
    """One Linear layer through each kernel: minimt's AVX-512 and AVX2 kernels and OpenBLAS
    with AVX-512 disabled (OPENBLAS_CORETYPE=Haswell) and as this machine sets it up; thread
    CPU time, median of interleaved repeats."""
    cpu = open("/proc/cpuinfo").read()
    choices = [("avx512", {}) if " avx512f" in cpu else None,
               ("avx2", {}) if " avx2" in cpu else None,
               ("openblas", {"OPENBLAS_CORETYPE": "Haswell"}),
               ("openblas", {})]
    choices = [c for c in choices if c]
    n, k = KERNEL_SHAPE
    rates = {}
    repeats = 2 if args.quick else 3
    for r in range(repeats):
        for m in KERNEL_ROWS:
            for kernel, env in choices:
                label = kernel + (" (Haswell)" if env else "")
                log("kernels: %s, %d rows (%d/%d)" % (label, m, r + 1, repeats))
                out = last_json(run([args.bench, "linear", kernel, str(m), str(n), str(k)],
                                    env_extra=env).stdout)
                rates.setdefault(label, {}).setdefault(m, []).append(out["gflops"])
                if not env and kernel == "openblas":
                    results.setdefault("kernels_core", out["blas_core"])
    results["kernels"] = {label: {m: median(v) for m, v in per_m.items()}
                          for label, per_m in rates.items()}


def report_kernels(kernels, core, add):
    n, k = KERNEL_SHAPE
    add("")
    add("### One Linear layer, y[m, %d] = x[m, %d] W^T + b (GFLOP/s, thread CPU time, median)"
        % (n, k))
    add("")
    add("| kernel | " + " | ".join("m = %d" % m for m in KERNEL_ROWS) + " |")
    add("|---|" + "---:|" * len(KERNEL_ROWS))
    for label, per_m in kernels.items():
        name = label if label != "openblas" else "openblas (%s)" % core
        add("| %s | %s |" % (name, " | ".join(fmt(per_m.get(m)) for m in KERNEL_ROWS)))
