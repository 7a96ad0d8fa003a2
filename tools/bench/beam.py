"""The `beam` section: the held-out sentences through `minimt translate --beam-size 4` and
PyTorch's beam search (tools/reference/beam_fast.py), 1 thread, batch 16."""
import json
import os

from child_runs import PYTHON, ROOT, log, median, run_translation
from report_format import fmt, mb

BEAM_FAST = os.path.join(ROOT, "tools", "reference", "beam_fast.py")


def bench_beam(args, results, sentences, workdir, beam=4, batch=16):
    input_path = os.path.join(workdir, "beam-input.txt")
    with open(input_path, "w", encoding="utf-8") as f:
        f.write("\n".join(sentences) + "\n")
    output_path = os.path.join(workdir, "beam.jsonl")
    commands = {
        "minimt": [args.minimt, "translate", "-m", args.model, "-i", input_path, "-o",
                   output_path, "--format", "jsonl", "-q", "--threads", "1", "--batch-size",
                   str(batch), "--beam-size", str(beam)],
        "pytorch": [PYTHON, BEAM_FAST, "--model", args.model, "--beam-size", str(beam),
                    "--batch-size", str(batch), "--threads", "1", "--timing"],
    }
    runs = {key: [] for key in commands}
    translations = {}
    for r in range(1 if args.quick else 3):
        for key, cmd in commands.items():  # interleaved: a busy machine slows both alike
            log("beam: %s, beam size %d, %d sentences (%d)" % (key, beam, len(sentences), r + 1))
            result, text = run_translation(cmd, key == "pytorch", input_path, output_path)
            translations[key] = [json.loads(line)["translation"] for line in text.splitlines()]
            runs[key].append(result)
    out = {"sentences": len(sentences), "beam_size": beam, "batch_size": batch, "runs": {}}
    for key, cmd in commands.items():
        wall = median([x.wall for x in runs[key]])
        entry = {"command": cmd, "wall_seconds": [round(x.wall, 3) for x in runs[key]],
                 "median_seconds": wall, "sentences_per_second": len(sentences) / wall,
                 "peak_rss_bytes": max(x.rss for x in runs[key])}
        if key == "pytorch":
            translate = median([x.timing["translate_seconds"] for x in runs[key]])
            entry["median_translate_only_seconds"] = translate
            entry["translate_only_sentences_per_second"] = len(sentences) / translate
        out["runs"][key] = entry
    out["identical_translations"] = sum(
        a == b for a, b in zip(translations["minimt"], translations["pytorch"]))
    results["beam"] = out


def report_beam(b, add, targets):
    m, p = b["runs"]["minimt"], b["runs"]["pytorch"]
    add("")
    add("### Beam search (beam size %d, batch %d, 1 thread, %d sentences)"
        % (b["beam_size"], b["batch_size"], b["sentences"]))
    add("")
    add("| engine | median wall s | sentences/s | peak RSS |")
    add("|---|---:|---:|---:|")
    add("| minimt (whole process) | %s | %s | %s |" % (fmt(m["median_seconds"]),
                                                     fmt(m["sentences_per_second"]),
                                                     mb(m["peak_rss_bytes"])))
    add("| PyTorch beam_fast.py (whole process) | %s | %s | %s |"
        % (fmt(p["median_seconds"]), fmt(p["sentences_per_second"]), mb(p["peak_rss_bytes"])))
    add("| PyTorch, translation only | %s | %s | |"
        % (fmt(p["median_translate_only_seconds"]),
           fmt(p["translate_only_sentences_per_second"])))
    add("")
    add("minimt's whole process against PyTorch's translation alone: %.2fx; identical "
        "translations: %d of %d." % (p["median_translate_only_seconds"] / m["median_seconds"],
                                      b["identical_translations"], b["sentences"]))
    targets.append(("beam-4 speed-up over PyTorch's beam search (translation only)",
                    "%.2fx" % (p["median_translate_only_seconds"] / m["median_seconds"]),
                    "> 1x", p["median_translate_only_seconds"] > m["median_seconds"]))
