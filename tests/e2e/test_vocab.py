#!/usr/bin/python3
"""minimt vocab: a model's pieces and ids, against the SentencePiece models read in Python.

  test_vocab.py --minimt MINIMT_BINARY

- the shipped model, both sides, text (`id<TAB>piece`) and jsonl: every id and piece equals
  what the sentencepiece module reads from models/en-fr/source.spm and target.spm, the count
  equals config.json's vocabulary size, the special ids are marked in jsonl;
- the hand-written model (tests/fixtures/hand-model), through $MINIMT_MODEL;
- --help and --version, usage errors (exit 2, nothing on stdout), a missing model and a full
  standard output (exit 1, one message).
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""
import json
import os
import sys

import sentencepiece as spm

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def run(minimt, *args, env=None, stdout=None):
    """(status, stdout, stderr) of minimt ARGS as text; stdout to a file when given."""
    result = support.run([minimt, *args], env=env, **({"stdout": stdout} if stdout else {}))
    out = result.out.decode("utf-8") if result.out is not None else ""
    return result.status, out, result.err.decode("utf-8", "replace")


def main():
    minimt, root = support.minimt_path(__doc__), support.ROOT
    shipped, hand = support.SHIPPED, support.HAND
    tally = support.Tally()
    check = tally.check

    config = json.load(open(os.path.join(shipped, "config.json"), encoding="utf-8"))
    special = {v: k for k, v in config["special_tokens"].items() if k in ("pad", "unk", "bos", "eos")}
    for side in ("source", "target"):
        sp = spm.SentencePieceProcessor(model_file=os.path.join(shipped, config["tokenizer"][side]))
        want = [(i, sp.id_to_piece(i)) for i in range(sp.get_piece_size())]
        check(len(want) == config[f"{side}_vocab_size"], f"{side}: {len(want)} pieces in Python")
        status, out, err = run(minimt, "vocab", "--side", side, "-m", shipped)
        lines = out.split("\n")
        check(status == 0 and err == "" and lines[-1] == "", f"vocab --side {side}: {status} {err}")
        got = [(int(i), p) for i, p in (line.split("\t") for line in lines[:-1])]
        first_diff = next((pair for pair in zip(got + [None] * len(want), want) if pair[0] != pair[1]), None)
        check(got == want, f"vocab --side {side}: {len(got)} pieces; first difference (minimt, "
                           f"sentencepiece): {first_diff}")
        status, out, err = run(minimt, "vocab", "--side", side, "--format", "jsonl", "--model", shipped)
        records = [json.loads(line) for line in out.splitlines()]
        check(status == 0 and [(r["id"], r["piece"]) for r in records] == want,
              f"vocab --side {side} --format jsonl: status {status}, {records[:5]}")
        marked = {r["id"]: r["special"] for r in records if "special" in r}
        check(marked == special, f"jsonl special ids {marked}, want {special}")
    status, out, _ = run(minimt, "vocab", "--model", shipped)
    check(out.startswith("0\t<pad>\n1\t<unk>\n2\t<s>\n3\t</s>\n") and "\t▁cat\n" in out,
          f"the default side is source: {out[:60]!r}")
    check("\t▁chat\n" not in out, "the source vocabulary has no '▁chat'")

    # The hand-written model, named by $MINIMT_MODEL.
    hand_config = json.load(open(os.path.join(hand, "config.json"), encoding="utf-8"))
    sp = spm.SentencePieceProcessor(model_file=os.path.join(hand, hand_config["tokenizer"]["target"]))
    status, out, err = run(minimt, "vocab", "--side", "target", env={"MINIMT_MODEL": hand})
    want = "".join(f"{i}\t{sp.id_to_piece(i)}\n" for i in range(sp.get_piece_size()))
    check(status == 0 and out == want, f"hand model: {status} {out!r} {err}")

    for args in (["vocab", "--help"], ["vocab", "-h"]):
        status, out, err = run(minimt, *args)
        check(status == 0 and "Usage" in out and "--side" in out and err == "", f"{args}: {status}")
    status, out, err = run(minimt, "vocab", "--version")
    check(status == 0 and out.startswith("minimt ") and err == "", f"vocab --version: {status} {out}")
    for args, word in ((["vocab", "--side", "middle"], "--side"), (["vocab", "--format", "csv"], "--format"),
                       (["vocab", "--bogus"], "--bogus"), (["vocab", "extra"], "extra")):
        status, out, err = run(minimt, *args, "--model", shipped)
        check(status == 2 and out == "" and word in err, f"{args}: status {status}, stderr {err!r}")
    status, out, err = run(minimt, "vocab", "--model", os.path.join(root, "no-such-model"))
    check(status == 1 and out == "" and "no-such-model" in err and err.count("\n") == 1,
          f"missing model: status {status}, stderr {err!r}")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            status, _, err = run(minimt, "vocab", "--model", shipped, stdout=full)
        check(status == 1 and "cannot write standard output" in err, f"stdout on /dev/full: status {status}, {err!r}")

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
