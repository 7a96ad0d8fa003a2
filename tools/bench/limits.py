"""The `limits` section: this machine's single-core sgemm GFLOP/s and memory read GB/s
(minimt_bench), and the same two in thread CPU time through torch."""
import os

from child_runs import PYTHON, ROOT, TORCH_ENV, last_json, log, run
from report_format import fmt

# The same two limits in thread CPU time, which leaves out the time other processes held the
# core (on a shared machine wall-clock rates of short runs swing by 2x): the sgemm of the
# same OpenBLAS through torch.mm, and a read of 512 MiB through torch.dot(x, x) (which runs
# at ~45 GB/s from L2, so from memory it waits on memory alone).
CPU_LIMITS = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import torch
from pytorch_reference.threads import set_threads
set_threads(1)
n = 1024
a, b = torch.full((n, n), 0.5), torch.full((n, n), 0.25)
torch.mm(a, b)
sgemm = []
for _ in range(7):
    c = time.thread_time(); torch.mm(a, b); c = time.thread_time() - c
    sgemm.append(2.0 * n ** 3 / c / 1e9)
x = torch.ones((512 << 20) // 4)
read = []
for _ in range(5):
    c = time.thread_time(); torch.dot(x, x); c = time.thread_time() - c
    read.append(x.numel() * 4 / c / 1e9)
median = lambda v: sorted(v)[len(v) // 2]
print(json.dumps({"sgemm_size": n, "sgemm_gflops": round(median(sgemm), 2),
                  "read_bandwidth_gbs": round(median(read), 2)}))
"""


def bench_limits(args, results):
    """Best of several runs: a limit is what the machine can do; other load only lowers it."""
    sgemm, bandwidth = [], []
    repeats = 2 if args.quick else 3
    for r in range(repeats):
        for size in (512, 1024):
            log("limits: minimt_bench sgemm %d (%d/%d)" % (size, r + 1, repeats))
            sgemm.append(last_json(run([args.bench, "sgemm", str(size)]).stdout))
        log("limits: minimt_bench bandwidth (%d/%d)" % (r + 1, repeats))
        bandwidth.append(last_json(run([args.bench, "bandwidth"]).stdout))
    cpu = []
    for r in range(repeats):
        log("limits: sgemm and read bandwidth in thread CPU time (torch) (%d/%d)"
            % (r + 1, repeats))
        cpu.append(last_json(run([PYTHON, "-c", CPU_LIMITS, os.path.join(ROOT, "tools", "reference")],
                                 env_extra=TORCH_ENV).stdout))
    best_sgemm = max(sgemm, key=lambda j: j["sgemm_gflops"])
    results["limits"] = {
        "sgemm_gflops": best_sgemm["sgemm_gflops"], "sgemm_size": best_sgemm["sgemm_size"],
        "sgemm_runs": [[j["sgemm_size"], j["sgemm_gflops"]] for j in sgemm],
        "read_bandwidth_gbs": max(j["read_bandwidth_gbs"] for j in bandwidth),
        "bandwidth_runs": [j["read_bandwidth_gbs"] for j in bandwidth],
        "blas_core": best_sgemm.get("blas_core"),
        "cpu_sgemm_gflops": max(j["sgemm_gflops"] for j in cpu),
        "cpu_read_bandwidth_gbs": max(j["read_bandwidth_gbs"] for j in cpu),
        "cpu_runs": cpu,
    }


def report_limits(lim, add):
    add("")
    add("### Machine limits (minimt_bench, one thread, best of %d runs)"
        % len(lim["bandwidth_runs"]))
    add("")
    add("| limit | value | runs |")
    add("|---|---:|---|")
    add("| sgemm (OpenBLAS %s, n = %d) | %s GFLOP/s | %s |"
        % (lim["blas_core"], lim["sgemm_size"], fmt(lim["sgemm_gflops"]),
           ", ".join("%d: %s" % (n, fmt(g)) for n, g in lim["sgemm_runs"])))
    add("| memory read bandwidth (512 MiB) | %s GB/s | %s |"
        % (fmt(lim["read_bandwidth_gbs"]), ", ".join(fmt(b) for b in lim["bandwidth_runs"])))
    add("| sgemm n = 1024 in thread CPU time (torch.mm, same OpenBLAS) | %s GFLOP/s | %s |"
        % (fmt(lim["cpu_sgemm_gflops"]),
           ", ".join(fmt(j["sgemm_gflops"]) for j in lim["cpu_runs"])))
    add("| memory read bandwidth in thread CPU time (torch.dot over 512 MiB) | %s GB/s | %s |"
        % (fmt(lim["cpu_read_bandwidth_gbs"]),
           ", ".join(fmt(j["read_bandwidth_gbs"]) for j in lim["cpu_runs"])))
