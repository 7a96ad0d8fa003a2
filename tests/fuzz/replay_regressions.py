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
within 20 s and never report an internal error or a sanitizer finding. The seed corpus of each
fuzzer (tests/fuzz/corpus/<target>/) is replayed the same way: exit status 0 or 1, within 20 s,
no internal error, no sanitizer finding (the sanitized build runs this test on every change).

    replay_regressions.py --minimt MINIMT

Ends with the line "N passed, N failed"; exits 1 on any failure.
"""
import json
import pathlib
import shutil
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import support  # noqa: E402

HAND = pathlib.Path(support.HAND)


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


# Targets whose inputs are a server's requests: tests/e2e/test_serve_hostile.py sends them to a
# live minimt serve.
SERVED = {"http_request"}


def main():
    minimt = support.minimt_path(__doc__)
    expected = json.loads((HERE / "regressions" / "expected.json").read_text())
    tally = support.Tally()
    for name, want in sorted(expected.items()):
        target = name.split("/")[0]
        data = (HERE / "regressions" / name).read_bytes()
        replay(tally, minimt, name, target, data, (want["status"],), want["stderr"])
    for path in sorted((HERE / "corpus").glob("*/*")):
        if path.parent.name in SERVED:
            continue
        name = "corpus/" + str(path.relative_to(HERE / "corpus"))
        replay(tally, minimt, name, path.parent.name, path.read_bytes(), (0, 1), "")
    return tally.finish()


def replay(tally, minimt, name, target, data, statuses, stderr):
    """Each run of one input exits with one of `statuses`, its stderr holding `stderr`."""
    with support.scratch("replay") as tmp:
        for command in commands(minimt, target, data, pathlib.Path(tmp)):
            run = support.run(command, timeout=20)
            err = run.err.decode(errors="replace")
            tally.check(run.status in statuses and stderr in err and
                        "internal error" not in err and "Sanitizer" not in err,
                        f"{name}: status {run.status} (want one of {statuses}), "
                        f"stderr {err.strip()[:300]!r} (want {stderr!r})")


if __name__ == "__main__":
    sys.exit(main())
