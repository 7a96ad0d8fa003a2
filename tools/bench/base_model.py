"""The `base` section: a Transformer-base-sized random model (written once by reference.py
random-model into the cache directory), decoder steps/s at batch 1 and 32 with minimt's
packed kernel, with MINIMT_KERNELS=openblas and with PyTorch, held against the machine's
limits."""
import json
import os
import shutil

from child_runs import PYTHON, REFERENCE, TORCH_ENV, last_json, log, run
from machine import model_bytes
from report_format import fmt, mb
from targets import TARGETS

BASE_ARGS = ["--seed", "1", "--d-model", "512", "--heads", "8", "--d-ff", "2048",
             "--encoder-layers", "6", "--decoder-layers", "6", "--vocab", "8000",
             "--max-positions", "256", "--norm", "pre"]
BASE_NAME = "base-512x8-6+6-ff2048-v8000-seed1"


def ensure_base_model(args):
    path = os.path.join(args.cache_dir, BASE_NAME)
    stamp = os.path.join(path, "bench-args.json")
    try:
        with open(stamp) as f:
            if json.load(f) == BASE_ARGS and os.path.isfile(os.path.join(path, "config.json")):
                log("base model: reusing %s" % path)
                return path
    except (OSError, ValueError):
        pass
    log("base model: writing %s (random weights, 8,000-piece tokenizers; about a minute)" % path)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    run([PYTHON, REFERENCE, "random-model", path] + BASE_ARGS)
    with open(stamp, "w") as f:
        json.dump(BASE_ARGS, f)
    return path


def bench_base(args, results):
    path = ensure_base_model(args)
    steps = {1: 24 if args.quick else 128, 32: 6 if args.quick else 32}
    configs = []
    for batch in (1, 32):
        configs.append(("minimt", batch, [args.bench, "steps", path, str(batch), str(steps[batch])],
                        None))
        configs.append(("minimt-openblas", batch,
                        [args.bench, "steps", path, str(batch), str(steps[batch])],
                        {"MINIMT_KERNELS": "openblas"}))
        configs.append(("pytorch", batch,
                        [PYTHON, REFERENCE, "bench-steps", "--model", path, "--batch", str(batch),
                         "--steps", str(steps[batch]), "--threads", "1"], TORCH_ENV))
    out = {"model": path, "model_bytes": model_bytes(path), "random_model_args": BASE_ARGS,
           "runs": {}}
    for name, batch, cmd, env in configs:
        log("base model: %s decoder steps, batch %d, %d steps x 5" % (name, batch, steps[batch]))
        result = run(cmd, env_extra=env)
        measured = last_json(result.stdout)
        measured["peak_rss_bytes"] = result.rss
        measured["command"] = (["%s=%s" % kv for kv in (env or {}).items()]) + cmd
        out["runs"]["%s-b%d" % (name, batch)] = measured
    # Every row does the same work per step; minimt_bench counts it.
    for batch in (1, 32):
        minimt = out["runs"]["minimt-b%d" % batch]
        out["gemm_flops_per_step_b%d" % batch] = minimt["gemm_flops_per_step"]
        out["weight_bytes_per_step"] = minimt["weight_bytes_per_step"]
    results["base"] = out


def report_base(b, lim, add, targets):
    """The base-sized model's table; lim (the limits section, if it ran) adds the bounds."""
    runs = b["runs"]
    add("")
    add("### Transformer-base-sized random model: decoder steps (cached), median of 5")
    add("")
    add("d_model 512, 8 heads, 6+6 layers, d_ff 2048, vocabulary 8,000 (%s of files). "
        "One step reads %s of decoder weights and does %s MFLOP of products per sentence. "
        "CPU: the thread's CPU time, which leaves out the time other processes held the core."
        % (mb(b["model_bytes"]), mb(b["weight_bytes_per_step"]),
           fmt(b["gemm_flops_per_step_b1"] / 1e6)))
    add("")
    add("| run | batch | ms/step (wall) | steps/s (wall) | steps/s (CPU) | GFLOP/s (wall / CPU) "
        "| weight GB/s (wall / CPU) | peak RSS |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|")
    labels = {"minimt": "minimt, packed AVX-512 kernel",
              "minimt-openblas": "minimt, MINIMT_KERNELS=openblas",
              "pytorch": "PyTorch (reference.py bench-steps, 1 thread)"}
    for batch in (1, 32):
        flops = b["gemm_flops_per_step_b%d" % batch]
        for name in ("minimt", "minimt-openblas", "pytorch"):
            r = runs["%s-b%d" % (name, batch)]
            add("| %s | %d | %s | %s | %s | %s / %s | %s / %s | %s |"
                % (labels[name], batch, fmt(r["ms_per_step"]), fmt(r["steps_per_second"]),
                   fmt(r["cpu_steps_per_second"]),
                   fmt(flops * r["steps_per_second"] / 1e9),
                   fmt(flops * r["cpu_steps_per_second"] / 1e9),
                   fmt(b["weight_bytes_per_step"] * r["steps_per_second"] / 1e9),
                   fmt(b["weight_bytes_per_step"] * r["cpu_steps_per_second"] / 1e9),
                   mb(r["peak_rss_bytes"])))
    for batch in (1, 32):
        ratio = runs["minimt-b%d" % batch]["steps_per_second"] / runs[
            "pytorch-b%d" % batch]["steps_per_second"]
        ratio_blas = runs["minimt-b%d" % batch]["steps_per_second"] / runs[
            "minimt-openblas-b%d" % batch]["steps_per_second"]
        targets.append(("(base model, batch %d: minimt / PyTorch steps/s; packed / OpenBLAS)"
                        % batch, "%.2fx; %.2fx" % (ratio, ratio_blas), "", None))
    if not lim:
        return
    weights = b["weight_bytes_per_step"]
    r1 = runs["minimt-b1"]
    for clock, bandwidth, ms in (
            ("wall clock", lim["read_bandwidth_gbs"], r1["ms_per_step"]),
            ("thread CPU time", lim["cpu_read_bandwidth_gbs"],
             1000.0 / r1["cpu_steps_per_second"])):
        bound_ms = weights / (bandwidth * 1e9) * 1000
        targets.append((
            "base batch 1, %s: step time (%s ms) / time to read the decoder weights "
            "once (%s ms at %s GB/s)" % (clock, fmt(ms), fmt(bound_ms), fmt(bandwidth)),
            "%.2fx" % (ms / bound_ms), "<= %.1fx" % TARGETS["batch1_bandwidth"],
            ms / bound_ms <= TARGETS["batch1_bandwidth"]))
    r32 = runs["minimt-b32"]
    flops = b["gemm_flops_per_step_b32"]
    for clock, sgemm, rate in (
            ("wall clock", lim["sgemm_gflops"], r32["steps_per_second"]),
            ("thread CPU time", lim["cpu_sgemm_gflops"], r32["cpu_steps_per_second"])):
        reached = flops * rate / 1e9
        targets.append((
            "base batch 32, %s: %s GFLOP/s / sgemm %s GFLOP/s"
            % (clock, fmt(reached), fmt(sgemm)),
            "%.0f%%" % (100 * reached / sgemm),
            ">= %.0f%%" % (100 * TARGETS["batch32_sgemm"]),
            reached / sgemm >= TARGETS["batch32_sgemm"]))
