#!/usr/bin/python3
"""--dump-attention in batch mode, and the --dump-types/--dump-layers/--dump-heads selection.

  test_batch_dump.py --minimt MINIMT_BINARY

A random model with 3 encoder and 2 decoder layers, 4 heads. Checks one dump entry per input
line, in order, for several thread counts; that a selected dump holds only the chosen kinds,
layers and heads (shapes), with the same numbers as the full dump; that a selection the model
does not have is refused before any file is written; that the dump is complete JSON when the
run stops early. Ends with "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from support import Tally, minimt_path, random_model, run, scratch  # noqa: E402

ENCODER_LAYERS, DECODER_LAYERS, HEADS = 3, 2, 4
KINDS = {"encoder": "encoder_self_attention", "decoder": "decoder_self_attention",
         "cross": "cross_attention"}


def shape(value):
    dims = []
    while isinstance(value, list):
        dims.append(len(value))
        value = value[0] if value else None
    return dims


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# One function on purpose: the checks share the model and files set up at its top and read as
# the list of cases.
def main():
    minimt = minimt_path(__doc__)
    tally = Tally()
    with scratch("batch-dump") as work:
        model = random_model("batch-dump")  # ENCODER_LAYERS, DECODER_LAYERS, HEADS
        base = [minimt, "translate", "--model", model, "--max-length", "6", "-q"]
        source_lines = []
        for i in range(60):
            source_lines.append(b"" if i % 9 == 4 else b"bad \xff" if i % 13 == 7
                                else b"the cat %d sees a dog" % i)
        path = os.path.join(work, "in.txt")
        with open(path, "wb") as f:
            f.write(b"\n".join(source_lines) + b"\n")

        full = None
        for threads, batch in ((1, 16), (2, 3), (3, 1)):
            dump = os.path.join(work, f"full-{threads}-{batch}.json")
            status, out, _ = run(base + ["-i", path, "--dump-attention", dump, "--threads",
                                         str(threads), "--batch-size", str(batch)])
            doc = load(dump)
            entries = doc["sentences"]
            sources = [e["source"] for e in entries]
            want = [line.decode(errors="replace") for line in source_lines]
            tally.check(status == 1 and len(entries) == len(source_lines),
                        f"threads {threads} batch {batch}: one dump entry per line",
                        f"{len(entries)} entries")
            tally.check(sources == want, f"threads {threads} batch {batch}: entries in order")
            tally.check(all(("error" in e) == (b"\xff" in line)
                            for e, line in zip(entries, source_lines)),
                        "failed lines have an error entry")
            if full is None:
                full = doc
            else:
                tally.check(doc == full, f"threads {threads} batch {batch}: the same dump")

        # A selection: only those kinds, layers, heads; the same numbers as the full dump.
        cases = [
            (["--dump-types", "cross", "--dump-layers", "0,-1", "--dump-heads", "0,3"],
             {"cross"}, {"decoder": [0, 1]}, [0, 3]),
            (["--dump-types", "encoder,decoder", "--dump-layers", "-1"],
             {"encoder", "decoder"}, {"encoder": [2], "decoder": [1]}, [0, 1, 2, 3]),
            (["--dump-layers", "-2", "--dump-heads", "2"],
             {"encoder", "decoder", "cross"}, {"encoder": [1], "decoder": [0]}, [2]),
            (["--dump-types", "decoder"], {"decoder"}, {"decoder": [0, 1]}, [0, 1, 2, 3]),
        ]
        for options, kinds, layers, heads in cases:
            dump = os.path.join(work, "selected.json")
            status, _, err = run(base + ["-i", path, "--dump-attention", dump, "--threads", "2"]
                                 + options)
            doc = load(dump)
            entries = doc["sentences"]
            tally.check(len(entries) == len(source_lines), f"{options}: one entry per line")
            tally.check(sorted(doc["selection"]["types"]) == sorted(kinds) and
                        doc["selection"]["heads"] == heads,
                        f"{options}: the header names the selection", repr(doc["selection"]))
            wrong = []
            for e, f in zip(entries, full["sentences"]):
                if "error" in e or not e["source"]:
                    continue
                s, steps = len(e["source_tokens"]), len(e["output_tokens"])
                for kind, key in KINDS.items():
                    if kind not in kinds:
                        if key in e:
                            wrong.append(f"line {e['source']!r}: {key} present")
                        continue
                    stack = "encoder" if kind == "encoder" else "decoder"
                    rows, cols = (s, s) if kind == "encoder" else \
                        (steps, steps) if kind == "decoder" else (steps, s)
                    want_shape = [len(layers[stack]), len(heads), rows, cols]
                    if shape(e.get(key)) != want_shape:
                        wrong.append(f"{key} shape {shape(e.get(key))}, want {want_shape}")
                        continue
                    want = [[f[key][l][h] for h in heads] for l in layers[stack]]
                    if e[key] != want:
                        wrong.append(f"{key}: numbers differ from the full dump")
            tally.check(not wrong, f"{options}: only the selected attention, right shapes",
                        "; ".join(wrong[:3]))

        # Selections the model does not have: refused before translating, no file written.
        for options, message in ((["--dump-layers", "3"], b"layer 3 does not exist"),
                                 (["--dump-layers", "-4"], b"layer -4 does not exist"),
                                 (["--dump-heads", "4"], b"head 4 does not exist")):
            dump = os.path.join(work, "refused.json")
            status, out, err = run(base + ["-i", path, "--dump-attention", dump] + options)
            tally.check(status == 1 and message in err and out == b"" and
                        not os.path.exists(dump),
                        f"{options}: refused with a clear message, no dump file", repr(err))

        # A run that stops early still leaves a complete document.
        dump = os.path.join(work, "early.json")
        status, out, _ = run(base + ["-i", path, "--dump-attention", dump, "--fail-fast"])
        first_bad = next(i for i, line in enumerate(source_lines) if b"\xff" in line) + 1
        tally.check(status == 1 and len(load(dump)["sentences"]) == first_bad,
                    "--fail-fast: the dump ends at the failed line and is valid JSON")
        dump = os.path.join(work, "pipe.json")
        many = os.path.join(work, "many.txt")
        with open(many, "w", encoding="utf-8") as f:
            f.writelines(f"the dog {i} is red\n" for i in range(20000))
        command = " ".join(f"'{a}'" for a in base + ["-i", many, "--dump-attention", dump])
        result = run(["bash", "-c", f"set -o pipefail; {command} | head -2"])
        entries = load(dump)["sentences"]
        tally.check(result.returncode == 0 and 2 <= len(entries) < 20000,
                    "closed pipe: the dump is valid JSON with the lines written",
                    f"status {result.returncode}, {len(entries)} entries")
    tally.exit()


if __name__ == "__main__":
    main()
