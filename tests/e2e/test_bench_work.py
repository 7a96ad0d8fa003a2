"""minimt_bench work: the operations it counts for a file against a hand count from the model's
shapes, and its JSON's parts adding up.

The count by hand, for the shipped model (config.json; every product counts a multiply and an
add per weight and row): an encoder row runs q, k, v, out (d x d each) and fc1, fc2 (d x d_ff)
in each layer, and the decoder's cross-attention projects it once per layer to k and v
(d x d); a decoder row runs self q, k, v, out, cross q, out (d x d) and fc1, fc2 in each layer,
and the output projection (d x vocab). Encoder rows are the source pieces with the eos (minimt
tokenize); decoder rows one per output token, eos included (translate --format jsonl). Greedy:
each sentence leaves the batch at its eos, so no row is counted twice.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def hand_count(config, source_rows, output_rows):
    d, ff, vocab = config["d_model"], config["d_ff"], config["target_vocab_size"]
    encoder_row = config["encoder_layers"] * 2 * (4 * d * d + 2 * d * ff)
    cross_kv_row = config["decoder_layers"] * 2 * (2 * d * d)
    decoder_row = config["decoder_layers"] * 2 * (6 * d * d + 2 * d * ff) + 2 * d * vocab
    return source_rows * (encoder_row + cross_kv_row) + output_rows * decoder_row


def main():
    p = support.parser(__doc__)
    p.add_argument("--bench", required=True, type=os.path.abspath, help="minimt_bench")
    args = p.parse_args()
    minimt = support.minimt_from(args)
    check = support.Tally()
    with open(os.path.join(support.SHIPPED, "config.json")) as f:
        config = json.load(f)
    sentences = [english for english, _ in support.heldout_pairs(23)]
    with support.scratch("bench-work") as folder:
        lines = os.path.join(folder, "lines.en")
        with open(lines, "w", encoding="utf-8") as f:
            f.write("\n".join(sentences) + "\n")
        pieces = support.run([minimt, "tokenize", "-m", support.SHIPPED],
                             input="\n".join(sentences) + "\n", text=True)
        check.equal("tokenize exits 0", pieces.status, 0)
        # "▁the ▁cat </s>\t6 25 3": the ids after the tab, eos included.
        source_rows = sum(len(line.split("\t")[1].split()) for line in pieces.out.splitlines())
        check.check(source_rows > len(sentences), f"{source_rows} source rows")

        for compute_type in ("float32", "int8"):
            out = os.path.join(folder, f"{compute_type}.jsonl")
            support.run_ok(check.check, [minimt, "translate", "-m", support.SHIPPED, "-i", lines,
                                   "-o", out, "-q", "--threads", "1", "--batch-size", "5",
                                   "--compute-type", compute_type, "--format", "jsonl"],
                           f"translate {compute_type}")
            with open(out, encoding="utf-8") as f:
                output_rows = sum(len(json.loads(line)["tokens"]) for line in f)
            want = hand_count(config, source_rows, output_rows)
            for batch in (1, 5):
                what = f"{compute_type}, batch {batch}"
                result = support.run([args.bench, "work", support.SHIPPED, lines, str(batch),
                                      compute_type], text=True, timeout=300)
                check.equal(f"{what}: exit status", result.status, 0)
                try:
                    report = json.loads(result.out)
                except ValueError:
                    check.check(False, f"{what}: one JSON object", result.out[-300:])
                    continue
                check.equal(f"{what}: lines", report["lines"], len(sentences))
                check.equal(f"{what}: failed", report["failed"], 0)
                check.equal(f"{what}: operations, by hand ({source_rows} source rows, "
                            f"{output_rows} output rows)", report["gemm_ops"], want)
                parts = report["products_seconds"] + report["rest_seconds"]
                # Each printed to the microsecond: the sum within rounding.
                check.check(abs(parts - report["cpu_seconds"]) <= 2e-6,
                            f"{what}: products + rest = CPU seconds",
                            f"{parts} against {report['cpu_seconds']}")
                shares = {"share_of_vnni_peak", "products_share_of_vnni_peak", "vnni_peak_gops"}
                if compute_type == "float32":
                    check.check(not shares & set(report), f"{what}: no share of the int8 peak")
                elif "vnni_peak_gops" in report:
                    # The share is the operations over the time over the peak: recomputed
                    # from the printed figures (4 decimals, the time to the microsecond of a
                    # run of some milliseconds, the peak to 0.1 of some hundreds).
                    share = report["gemm_ops"] / report["cpu_seconds"] / 1e9 / report[
                        "vnni_peak_gops"]
                    check.check(abs(share - report["share_of_vnni_peak"]) <= 3e-4,
                                f"{what}: share of the peak = ops / CPU time / peak",
                                f"{share} against {report['share_of_vnni_peak']}")

        bad = support.run([args.bench, "work", support.SHIPPED, os.path.join(folder, "none"), "4"],
                          text=True)
        check.equal("a missing file: exit 1", bad.status, 1)
        check.check("cannot read" in bad.err and "none" in bad.err,
                    "a missing file: named on stderr", bad.err)
        zero = support.run([args.bench, "work", support.SHIPPED, lines, "0"], text=True)
        check.equal("batch 0: exit 1", zero.status, 1)
    check.exit()


if __name__ == "__main__":
    main()
