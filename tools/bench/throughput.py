"""The `throughput` section: the held-out sentences through `minimt translate --format jsonl`
and `reference.py translate --jsonl`, 1 and 2 threads: sentences/s, generated tokens/s, the
linear layers' GFLOP/s, peak RSS, identical translations."""
import json
import os

from child_runs import PYTHON, REFERENCE, TORCH_ENV, log, median, run_translation
from report_format import fmt, mb
from targets import TARGETS


def read_jsonl(text, pytorch, eos):
    """(translations, generated tokens without eos per sentence) of a JSON Lines output."""
    translations, tokens = [], []
    for line in text.splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        translations.append(record.get("translation", ""))
        if pytorch:
            tokens.append(sum(1 for i in record["ids"] if i != eos))
        else:
            pieces = record.get("tokens", [])  # eos included unless the output was cut short
            tokens.append(max(0, len(pieces) - (0 if record.get("cut_short") else 1)))
    return translations, tokens


def linear_flops(config, sentences, generated):
    """FLOPs of the linear layers (the matrix products by weights) that translating
    `sentences` costs when it generates `generated[i]` tokens (eos not counted) for each:
    the encoder over each source, the cross-attention keys and values once per sentence,
    and one decoder step per generated token and per eos. Attention's own products (scores,
    weighted sums) are left out: at these lengths they are a few per cent."""
    import sentencepiece as spm
    d, ff = config["d_model"], config["d_ff"]
    w = config.get("head_dim", d // config["num_heads"]) * config["num_heads"]
    limit = config["max_positions"]
    sp = spm.SentencePieceProcessor(model_file=os.path.join(
        config["_dir"], config["tokenizer"]["source"]))
    source = sum(min(len(sp.encode(t)) + 1, limit) for t in sentences)
    steps = sum(n + (1 if n < limit else 0) for n in generated)
    encoder = 2 * config["encoder_layers"] * (4 * d * w + 2 * d * ff)
    cross_kv = 2 * config["decoder_layers"] * 2 * d * w
    step = 2 * (config["decoder_layers"] * (6 * d * w + 2 * d * ff)
                + config["target_vocab_size"] * d)
    return {"source_tokens": source, "decoder_steps": steps,
            "flops": source * (encoder + cross_kv) + steps * step}


def bench_throughput(args, results, sentences, workdir):
    with open(os.path.join(args.model, "config.json")) as f:
        config = json.load(f)
    config["_dir"] = args.model
    eos = config["special_tokens"]["eos"]
    input_path = os.path.join(workdir, "input.txt")
    with open(input_path, "w", encoding="utf-8") as f:
        f.write("\n".join(sentences) + "\n")
    output_path = os.path.join(workdir, "minimt.jsonl")
    repeats = 1 if args.quick else 3

    def minimt(threads, batch):
        return [args.minimt, "translate", "-m", args.model, "-i", input_path, "-o", output_path,
                "--format", "jsonl", "-q", "--threads", str(threads), "--batch-size", str(batch)]

    def pytorch(threads, batch):
        return [PYTHON, REFERENCE, "translate", "--model", args.model, "--jsonl", "--timing",
                "--skip-blank", "--threads", str(threads), "--batch-size", str(batch)]

    b = args.batch_size
    configs = [  # key, threads, command
        ("minimt-1t", 1, minimt(1, b)), ("pytorch-1t", 1, pytorch(1, b)),
        ("minimt-2t", 2, minimt(2, b)), ("pytorch-2t", 2, pytorch(2, b)),
    ]
    if args.batch_size != 16:
        configs.append(("minimt-1t-default", 1, minimt(1, 16)))
    runs = {key: [] for key, _, _ in configs}
    outputs, tokens = {}, {}
    for r in range(repeats):
        for key, threads, cmd in configs:
            log("throughput: %s, %d sentences (%d/%d)" % (key, len(sentences), r + 1, repeats))
            result, text = run_translation(cmd, key.startswith("pytorch"), input_path,
                                           output_path)
            outputs[key], tokens[key] = read_jsonl(text, key.startswith("pytorch"), eos)
            if len(outputs[key]) != len(sentences):
                raise RuntimeError("%s wrote %d records for %d sentences"
                                   % (key, len(outputs[key]), len(sentences)))
            runs[key].append(result)
    work = linear_flops(config, sentences, tokens["minimt-1t"])
    out = {"sentences": len(sentences), "repeats": repeats, "batch_size": args.batch_size,
           "pytorch_env": TORCH_ENV, "runs": {}}
    out.update(work)
    for key, threads, cmd in configs:
        rs = runs[key]
        wall = median([x.wall for x in rs])
        generated = sum(tokens[key])
        entry = {
            "command": cmd, "threads": threads,
            "batch_size": int(cmd[cmd.index("--batch-size") + 1]),
            "wall_seconds": [round(x.wall, 3) for x in rs], "median_seconds": wall,
            "median_cpu_seconds": median([x.cpu for x in rs]),
            "sentences_per_second": len(sentences) / wall,
            "tokens": generated, "tokens_per_second": generated / wall,
            "linear_gflops_per_second": work["flops"] / wall / 1e9,
            "peak_rss_bytes": max(x.rss for x in rs),
        }
        if key.startswith("pytorch"):
            translate = median([x.timing["translate_seconds"] for x in rs])
            entry["median_translate_only_seconds"] = translate
            entry["median_translate_only_cpu_seconds"] = median(
                [x.timing["translate_cpu_seconds"] for x in rs])
            entry["translate_only_sentences_per_second"] = len(sentences) / translate
            entry["median_startup_seconds"] = wall - translate
        out["runs"][key] = entry
    out["identical_translations"] = sum(
        a == b for a, b in zip(outputs["minimt-1t"], outputs["pytorch-1t"]))
    out["minimt_1t_vs_2t_identical"] = sum(
        a == b for a, b in zip(outputs["minimt-1t"], outputs["minimt-2t"]))
    results["throughput"] = out


def report_throughput(t, add, targets):
    runs = t["runs"]
    add("")
    add("### Throughput: %d held-out sentences, whole process, median of %d"
        % (t["sentences"], t["repeats"]))
    add("")
    add("Both at `--batch-size %d` (minimt: consecutive lines; PyTorch: sorted by length). "
        "Tokens: generated pieces, eos not counted. GFLOP/s: the linear layers' %s GFLOP "
        "(%s source tokens, %s decoder steps) over the wall time. PyTorch runs with %s."
        % (t["batch_size"], fmt(t["flops"] / 1e9), "{:,}".format(t["source_tokens"]),
           "{:,}".format(t["decoder_steps"]),
           ", ".join("%s=%s" % kv for kv in t["pytorch_env"].items())))
    add("")
    add("| run | threads | wall | CPU | sentences/s | tokens/s | GFLOP/s | peak RSS |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|")
    names = {"minimt-1t": "minimt", "pytorch-1t": "PyTorch", "minimt-2t": "minimt",
             "pytorch-2t": "PyTorch", "minimt-1t-default": "minimt, default --batch-size 16"}
    for key in ("minimt-1t", "pytorch-1t", "minimt-2t", "pytorch-2t", "minimt-1t-default"):
        if key not in runs:
            continue
        r = runs[key]
        add("| %s | %d | %s s | %s s | %s | %s | %s | %s |"
            % (names[key], r["threads"], fmt(r["median_seconds"]),
               fmt(r["median_cpu_seconds"]), fmt(r["sentences_per_second"]),
               fmt(r["tokens_per_second"]), fmt(r["linear_gflops_per_second"]),
               mb(r["peak_rss_bytes"])))
        if key.startswith("pytorch"):
            inner = r["median_translate_only_seconds"]
            add("| PyTorch, translation only (no import, no load) | %d | %s s | %s s | %s | %s "
                "| %s | |"
                % (r["threads"], fmt(inner), fmt(r["median_translate_only_cpu_seconds"]),
                   fmt(r["translate_only_sentences_per_second"]),
                   fmt(r["tokens"] / inner), fmt(t["flops"] / inner / 1e9)))
    add("")
    add("minimt and PyTorch translations identical for %d of %d sentences; minimt 1 and 2 "
        "threads identical for %d." % (t["identical_translations"], t["sentences"],
                                       t["minimt_1t_vs_2t_identical"]))
    one = runs["minimt-1t"]["sentences_per_second"]
    speedup = one / runs["pytorch-1t"]["sentences_per_second"]
    speedup_inner = one / runs["pytorch-1t"]["translate_only_sentences_per_second"]
    targets.append(("throughput, 1 thread: minimt / PyTorch sentences/s (whole processes)",
                    "%.2fx" % speedup, ">= %.0fx" % TARGETS["throughput_speedup"],
                    speedup >= TARGETS["throughput_speedup"]))
    targets.append(("throughput, 1 thread: minimt (whole process) / PyTorch's translation "
                    "time alone", "%.2fx" % speedup_inner,
                    ">= %.0fx" % TARGETS["throughput_speedup"],
                    speedup_inner >= TARGETS["throughput_speedup"]))
    cpu_speedup = runs["pytorch-1t"]["median_cpu_seconds"] / runs["minimt-1t"]["median_cpu_seconds"]
    cpu_speedup_inner = (runs["pytorch-1t"]["median_translate_only_cpu_seconds"]
                         / runs["minimt-1t"]["median_cpu_seconds"])
    targets.append(("(the same two in CPU seconds: whole processes; PyTorch's translation "
                    "alone)", "%.2fx; %.2fx" % (cpu_speedup, cpu_speedup_inner), "", None))
    scaling = runs["minimt-2t"]["sentences_per_second"] / one
    cpu_ratio = runs["minimt-2t"]["median_cpu_seconds"] / runs["minimt-1t"]["median_cpu_seconds"]
    targets.append(("minimt 2 threads / 1 thread, sentences/s",
                    "%.2fx (CPU seconds 2t / 1t: %.2f)" % (scaling, cpu_ratio),
                    ">= %.1fx" % TARGETS["thread_scaling"],
                    scaling >= TARGETS["thread_scaling"]))
    torch_scaling = (runs["pytorch-2t"]["sentences_per_second"]
                     / runs["pytorch-1t"]["sentences_per_second"])
    targets.append(("(PyTorch 2 threads / 1 thread, for comparison)", "%.2fx" % torch_scaling,
                    "", None))
