"""The `oneshot` section: one sentence, whole process (model load included), minimt against
`reference.py translate --threads 1`; median wall time of interleaved runs, peak RSS."""
from child_runs import PYTHON, REFERENCE, TORCH_ENV, log, median, run
from machine import model_bytes
from report_format import MB, fmt, mb
from targets import TARGETS


def bench_oneshot(args, results, sentence):
    repeats = 3 if args.quick else 9
    minimt_cmd = [args.minimt, "translate", "-m", args.model, sentence]
    torch_cmd = [PYTHON, REFERENCE, "translate", "--model", args.model, "--threads", "1",
                 "--skip-blank", sentence]
    runs = {"minimt": [], "pytorch": []}
    outputs = {}
    # One untimed run of each first, so that both read the model from the page cache.
    run(minimt_cmd)
    run(torch_cmd, env_extra=TORCH_ENV)
    for r in range(repeats):
        log("one-shot: minimt translate (%d/%d)" % (r + 1, repeats))
        runs["minimt"].append(run(minimt_cmd))
        log("one-shot: reference.py translate (%d/%d)" % (r + 1, repeats))
        runs["pytorch"].append(run(torch_cmd, env_extra=TORCH_ENV))
    for name, rs in runs.items():
        outputs[name] = rs[-1].stdout.strip()
    results["oneshot"] = {
        "sentence": sentence, "repeats": repeats,
        "commands": {"minimt": minimt_cmd, "pytorch": torch_cmd},
        "model_bytes": model_bytes(args.model),
    }
    for name, rs in runs.items():
        results["oneshot"][name] = {
            "wall_seconds": [round(x.wall, 4) for x in rs],
            "median_seconds": median([x.wall for x in rs]),
            "median_cpu_seconds": median([x.cpu for x in rs]),
            "peak_rss_bytes": max(x.rss for x in rs),
            "output": outputs[name],
        }


def report_oneshot(o, add, targets):
    mm, pt = o["minimt"], o["pytorch"]
    add("")
    add("### One sentence, whole process (model load included), median of %d" % o["repeats"])
    add("")
    add("| run | median wall | median CPU | peak RSS |")
    add("|---|---:|---:|---:|")
    add("| `minimt translate` | %s ms | %s ms | %s |"
        % (fmt(mm["median_seconds"] * 1000), fmt(mm["median_cpu_seconds"] * 1000),
           mb(mm["peak_rss_bytes"])))
    add("| `reference.py translate --threads 1` (PyTorch) | %s ms | %s ms | %s |"
        % (fmt(pt["median_seconds"] * 1000), fmt(pt["median_cpu_seconds"] * 1000),
           mb(pt["peak_rss_bytes"])))
    speedup = pt["median_seconds"] / mm["median_seconds"]
    targets.append(("one-shot latency: PyTorch time / minimt time", "%.1fx" % speedup,
                    ">= %.0fx" % TARGETS["oneshot_speedup"],
                    speedup >= TARGETS["oneshot_speedup"]))
    limit = o["model_bytes"] + TARGETS["oneshot_rss_extra_mb"] * MB
    targets.append(("one-shot peak RSS of minimt (model files %s)" % mb(o["model_bytes"]),
                    mb(mm["peak_rss_bytes"]), "<= %s" % mb(limit),
                    mm["peak_rss_bytes"] <= limit))
