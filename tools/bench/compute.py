"""tools/bench/run's `compute` section: the compute types (float32, int8, bf16) side by side.

Everything the targets of the int8 work compare is measured in one section, interleaved
(float32, int8, bf16, float32, ...), so that the ratios come from the same minutes of the same
machine:
  - the base-sized model's decoder step at batch 1 and 32 (minimt_bench steps, thread CPU time
    and wall time), with the bytes of weights a step reads;
  - the shipped model on the held-out sentences, whole process, 1 and 2 threads, batch 16, and
    how many translations equal float32's;
  - one sentence, whole process with the model load, against the PyTorch reference's;
  - the limits: the single-core vpdpbusd and FMA peaks (minimt_bench peak) and the memory read
    bandwidth (minimt_bench bandwidth).
"""

import os

from base_model import ensure_base_model
from child_runs import PYTHON, REFERENCE, TORCH_ENV, last_json, log, median, run

STEPS = {1: 128, 32: 32}


def compute_types_here(minimt, model):
    info = run([minimt, "info", "-m", model]).stdout
    return ["float32", "int8"] + (["bf16"] if "bf16 (AVX512_BF16)" in info else [])


def bench_compute(args, results, sentences, workdir):
    types = compute_types_here(args.minimt, args.model)
    repeats = 2 if args.quick else 3
    base = ensure_base_model(args)
    out = {"types": types, "repeats": repeats, "base_model": base, "steps": {}, "heldout": {},
           "oneshot": {}}

    steps = {}
    for r in range(repeats):
        for batch in (1, 32):
            for t in types:
                log("compute: base model, %s, batch %d, %d steps x 5 (%d/%d)"
                      % (t, batch, STEPS[batch], r + 1, repeats))
                cmd = [args.bench, "steps", base, str(batch), str(STEPS[batch]), t]
                steps.setdefault((t, batch), []).append(last_json(run(cmd).stdout))
    for (t, batch), rs in steps.items():
        out["steps"]["%s-b%d" % (t, batch)] = {
            "ms_per_step": median([x["ms_per_step"] for x in rs]),
            "cpu_ms_per_step": median([1000.0 / x["cpu_steps_per_second"] for x in rs]),
            "weight_bytes_per_step": rs[0]["weight_bytes_per_step"],
            "gemm_flops_per_step": rs[0]["gemm_flops_per_step"],
            # int8 only: minimt_bench's own shares of the vpdpbusd peak it measures right after
            "share_of_vnni_peak": median([x.get("share_of_vnni_peak", 0.0) for x in rs]),
            "products_share_of_vnni_peak": median(
                [x.get("products_share_of_vnni_peak", 0.0) for x in rs]),
            "command": [args.bench, "steps", "BASE", str(batch), str(STEPS[batch]), t]}

    input_path = os.path.join(workdir, "compute-input.txt")
    with open(input_path, "w", encoding="utf-8") as f:
        f.write("\n".join(sentences) + "\n")
    runs, texts = {}, {}
    for r in range(repeats):
        for threads in (1, 2):
            for t in types:
                log("compute: %d held-out sentences, %s, %d thread(s) (%d/%d)"
                      % (len(sentences), t, threads, r + 1, repeats))
                output = os.path.join(workdir, "compute-%s.txt" % t)
                cmd = [args.minimt, "translate", "-m", args.model, "-i", input_path, "-o", output,
                       "-q", "--threads", str(threads), "--batch-size", "16",
                       "--compute-type", t]
                runs.setdefault((t, threads), []).append(run(cmd))
                with open(output, encoding="utf-8") as f:
                    texts[t] = f.read().splitlines()
    for (t, threads), rs in runs.items():
        wall = median([x.wall for x in rs])
        out["heldout"]["%s-%dt" % (t, threads)] = {
            "median_seconds": wall, "median_cpu_seconds": median([x.cpu for x in rs]),
            "sentences_per_second": len(sentences) / wall,
            "identical_to_float32": sum(a == b for a, b in zip(texts[t], texts["float32"])),
            "sentences": len(sentences)}

    sentence = sentences[0]
    torch_cmd = [PYTHON, REFERENCE, "translate", "--model", args.model, "--threads", "1",
                 "--skip-blank", sentence]
    oneshot = {}
    run(torch_cmd, env_extra=TORCH_ENV)  # untimed: both read the model from the page cache
    for r in range(3 if args.quick else 9):
        log("compute: one sentence, whole process (%d)" % (r + 1))
        for t in types:
            cmd = [args.minimt, "translate", "-m", args.model, "--compute-type", t, sentence]
            oneshot.setdefault(t, []).append(run(cmd))
        oneshot.setdefault("pytorch", []).append(run(torch_cmd, env_extra=TORCH_ENV))
    for name, rs in oneshot.items():
        out["oneshot"][name] = {"median_seconds": median([x.wall for x in rs]),
                                "median_cpu_seconds": median([x.cpu for x in rs]),
                                "output": rs[-1].stdout.strip()}

    log("compute: vpdpbusd and FMA peaks, read bandwidth")
    try:
        out["peak"] = last_json(run([args.bench, "peak"]).stdout)
    except RuntimeError as e:  # no VNNI here
        out["peak"] = {"error": str(e).splitlines()[0]}
    out["read_bandwidth_gbs"] = max(
        last_json(run([args.bench, "bandwidth"]).stdout)["read_bandwidth_gbs"]
        for _ in range(2))
    results["compute"] = out


def report_compute(c, add, targets):
    types = c["types"]
    add("")
    add("### Compute types (float32, int8, bf16), side by side")
    add("")
    add("Base-sized model (`tools/bench/run --only compute`; %s), one thread, median of %d "
        "interleaved runs of `minimt_bench steps BASE BATCH STEPS TYPE` (each a median of 5), "
        "thread CPU time per decoder step (wall time in brackets):" % (
            os.path.basename(c["base_model"]), c["repeats"]))
    add("")
    add("| decoder step | " + " | ".join(types) + " |")
    add("|---|" + "---:|" * len(types))
    for batch in (1, 32):
        cells = []
        for t in types:
            s = c["steps"]["%s-b%d" % (t, batch)]
            cells.append("%.2f ms (%.2f)" % (s["cpu_ms_per_step"], s["ms_per_step"]))
        add("| batch %d | %s |" % (batch, " | ".join(cells)))
    f32 = {b: c["steps"]["float32-b%d" % b]["cpu_ms_per_step"] for b in (1, 32)}
    for batch in (1, 32):
        i8 = c["steps"]["int8-b%d" % batch]["cpu_ms_per_step"]
        targets.append(("base model, decoder step batch %d: int8 against float32" % batch,
                        "%.2fx" % (f32[batch] / i8), ">= 2.5x", f32[batch] / i8 >= 2.5))
        if "bf16" in types:
            b16 = c["steps"]["bf16-b%d" % batch]["cpu_ms_per_step"]
            targets.append(("base model, decoder step batch %d: bf16 against float32" % batch,
                            "%.2fx" % (f32[batch] / b16), "(none)", None))
    add("")
    bandwidth = c["read_bandwidth_gbs"]
    for t in types:
        s = c["steps"]["%s-b1" % t]
        floor = s["weight_bytes_per_step"] / (bandwidth * 1e9) * 1e3
        add("- %s, batch 1: %.1f MB of weights per step; at the measured read bandwidth of "
            "%.1f GB/s that is %.2f ms if every byte came from memory (measured %.2f ms: %s)."
            % (t, s["weight_bytes_per_step"] / 1e6, bandwidth, floor, s["cpu_ms_per_step"],
               "faster than memory, so the weights are partly in cache"
               if s["cpu_ms_per_step"] < floor else "%.1fx that floor"
               % (s["cpu_ms_per_step"] / floor)))
    peak = c.get("peak", {})
    if "vnni_int8_gops" in peak:
        s = c["steps"]["int8-b32"]
        rate = s["gemm_flops_per_step"] / (s["cpu_ms_per_step"] / 1e3) / 1e9
        add("- int8, batch 32: the step's matrix products at %.0f G int8 ops/s (2 per multiply-"
            "add) over the whole step, against a vpdpbusd peak of %.0f G ops/s measured by "
            "`minimt_bench peak` (%.0f%%); the float32 FMA peak is %.0f GFLOP/s."
            % (rate, peak["vnni_int8_gops"], 100 * rate / peak["vnni_int8_gops"],
               peak["fma_float_gflops"]))
    s = c["steps"].get("int8-b32", {})
    if s.get("share_of_vnni_peak"):
        add("- int8, batch 32, as `minimt_bench steps` prints it (each run against the peak it "
            "measures right after the steps): the step at %.0f%% of the vpdpbusd peak, the "
            "products alone (their own thread CPU time inside the step) at %.0f%%."
            % (100 * s["share_of_vnni_peak"], 100 * s["products_share_of_vnni_peak"]))
    add("")
    h = c["heldout"]
    n = h["float32-1t"]["sentences"]
    add("Shipped model, %d held-out sentences, batch 16, whole process (model load included), "
        "median of %d interleaved runs:" % (n, c["repeats"]))
    add("")
    add("| compute type | 1 thread | CPU time, 1 thread | 2 threads | 2 threads / 1 | "
        "identical to float32 |")
    add("|---|---:|---:|---:|---:|---:|")
    for t in types:
        one, two = h["%s-1t" % t], h["%s-2t" % t]
        add("| %s | %.0f sent/s | %.2f s | %.0f sent/s | %.2fx | %d of %d |" % (
            t, one["sentences_per_second"], one["median_cpu_seconds"],
            two["sentences_per_second"],
            two["sentences_per_second"] / one["sentences_per_second"],
            one["identical_to_float32"], n))
    i8 = h["int8-1t"]["sentences_per_second"] / h["float32-1t"]["sentences_per_second"]
    targets.append(("shipped model, held-out: int8 against float32, sentences/s", "%.2fx" % i8,
                    ">= 1.5x", i8 >= 1.5))
    cpu = h["float32-1t"]["median_cpu_seconds"] / h["int8-1t"]["median_cpu_seconds"]
    targets.append(("the same in CPU time (what a busy machine does not distort)", "%.2fx" % cpu,
                    "(for comparison)", None))
    same = h["int8-1t"]["identical_to_float32"]
    targets.append(("int8 translations identical to float32", "%d of %d" % (same, n),
                    ">= 99.5%", same >= 0.995 * n))
    for t in types:
        scale = h["%s-2t" % t]["sentences_per_second"] / h["%s-1t" % t]["sentences_per_second"]
        targets.append(("%s: 2 threads against 1" % t, "%.2fx" % scale, ">= 1.7x (quiet machine)",
                        scale >= 1.7))
    add("")
    o = c["oneshot"]
    add("One sentence, whole process with the model load, median of the runs:")
    add("")
    add("| | " + " | ".join(["minimt " + t for t in types] + ["PyTorch reference"]) + " |")
    add("|---|" + "---:|" * (len(types) + 1))
    add("| wall | " + " | ".join("%.0f ms" % (1e3 * o[t]["median_seconds"])
                                 for t in types + ["pytorch"]) + " |")
    add("| CPU | " + " | ".join("%.0f ms" % (1e3 * o[t]["median_cpu_seconds"])
                                for t in types + ["pytorch"]) + " |")
    for t in types:
        ratio = o["pytorch"]["median_seconds"] / o[t]["median_seconds"]
        targets.append(("one sentence, whole process: PyTorch's time / minimt %s's" % t,
                        "%.1fx" % ratio, ">= 40x", ratio >= 40))
