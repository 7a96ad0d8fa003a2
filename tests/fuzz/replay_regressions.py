#!/usr/bin/env python3
"""Replays every input the fuzzers found (tests/fuzz/regressions/<target>/) through the minimt
command line, so the normal suite (and tools/test.sh --sanitize) needs no clang:

  safetensors  the file as model.safetensors of the hand model      minimt info
  config       the file as config.json beside the hand tokenizer    minimt info
  model_dir    4-byte length, config.json, model.safetensors        minimt info
  dump         the file as an attention dump                        minimt view --svg
  text         the file as a batch file, then as one sentence       minimt translate
  sentencepiece  first byte even: the rest as the hand model's vocab.spm; odd: the rest as
               its normalizer's charsmap (fuzz_sentencepiece.cpp)  minimt tokenize

expected.json gives, per file, the exit status and a piece of stderr; each run must also finish
within 20 s and never report an internal error or a sanitizer finding.

    replay_regressions.py MINIMT
"""
import json
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
HAND = HERE.parent / "fixtures" / "hand-model"


def model_dir(work, config_bytes, weights_bytes=None):
    d = work / "model"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    shutil.copy(HAND / "vocab.spm", d / "vocab.spm")
    (d / "config.json").write_bytes(config_bytes)
    if weights_bytes is not None:
        (d / "model.safetensors").write_bytes(weights_bytes)
    return d


def varint(value):
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def with_charsmap(charsmap):
    """The hand model's vocab.spm with `charsmap` as its normalizer's (as the fuzz target
    splices it: every top-level field but the normalizer kept, a new normalizer last)."""
    hand, out, at = (HAND / "vocab.spm").read_bytes(), b"", 0
    while at < len(hand):  # the hand model's top-level fields are all length-delimited
        start, tag, length = at, hand[at], 0
        at, shift = at + 1, 0
        while True:
            length |= (hand[at] & 0x7F) << shift
            shift, at = shift + 7, at + 1
            if hand[at - 1] < 0x80:
                break
        at += length
        if tag >> 3 != 3:
            out += hand[start:at]
    field = lambda number, data: varint(number << 3 | 2) + varint(len(data)) + data  # noqa: E731
    return out + field(3, field(1, b"fuzzed") + field(2, charsmap))


def commands(minimt, target, data, work):
    """The minimt runs that replay one input."""
    if target == "safetensors":
        config = json.loads((HAND / "config.json").read_text())
        config["weights"] = "model.safetensors"
        d = model_dir(work, json.dumps(config).encode(), data)
        return [[minimt, "info", "-m", str(d)]]
    if target == "config":
        return [[minimt, "info", "-m", str(model_dir(work, data))]]
    if target == "model_dir":
        n = min(struct.unpack("<I", data[:4])[0], len(data) - 4) if len(data) >= 4 else 0
        d = model_dir(work, data[4:4 + n], data[4 + n:])
        return [[minimt, "info", "-m", str(d)]]
    if target == "dump":
        path = work / "dump.json"
        path.write_bytes(data)
        return [[minimt, "view", str(path), "-o", str(work / "page.html"),
                 "--svg", str(work / "svg")]]
    if target == "text":
        path = work / "input.txt"
        path.write_bytes(data)
        runs = [[minimt, "translate", "-m", str(HAND), "-i", str(path)]]
        if b"\0" in data:  # not a possible argument
            return runs
        return runs + [[minimt, "translate", "-m", str(HAND), "--dump-attention",
                 str(work / "dump.json"), "--", data.decode("utf-8", "surrogateescape")]]
    if target == "sentencepiece":
        d = model_dir(work, (HAND / "config.json").read_bytes())
        (d / "vocab.spm").write_bytes(data[1:] if data[:1] and data[0] % 2 == 0 else
                                      with_charsmap(data[1:]))
        return [[minimt, "tokenize", "-m", str(d), "--side", "target", "a b c \uff21"]]
    raise SystemExit(f"unknown target {target}")


def main():
    minimt = sys.argv[1]
    expected = json.loads((HERE / "regressions" / "expected.json").read_text())
    failures, count = [], 0
    for name, want in sorted(expected.items()):
        target = name.split("/")[0]
        data = (HERE / "regressions" / name).read_bytes()
        with tempfile.TemporaryDirectory() as tmp:
            for command in commands(minimt, target, data, pathlib.Path(tmp)):
                count += 1
                try:
                    run = subprocess.run(command, capture_output=True, timeout=20)
                except subprocess.TimeoutExpired:
                    failures.append(f"{name}: no answer within 20 s")
                    continue
                err = run.stderr.decode(errors="replace")
                if run.returncode != want["status"] or want["stderr"] not in err or \
                        "internal error" in err or "Sanitizer" in err:
                    failures.append(f"{name}: status {run.returncode} (want {want['status']}), "
                                    f"stderr {err.strip()[:300]!r} (want {want['stderr']!r})")
    for failure in failures:
        print("FAIL", failure)
    print(f"{count - len(failures)} of {count} replays as expected")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
