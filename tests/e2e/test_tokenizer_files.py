#!/usr/bin/python3
"""Hostile SentencePiece model files (issue 24, class 3): each is refused with one line naming
the file and the field, exit status 1, nothing on stdout and nothing written, in bounded time;
sound ones (SentencePiece's own charsmaps, crafted ones at the limits) tokenize exactly as the
sentencepiece Python module does with the same file.

The files are written here, protobuf field by field: the hand model's 8 pieces, a model type,
and a normalizer whose precompiled charsmap is a double-array trie laid out as darts-clone lays
it out (each node's children in a block of 256 units), then broken in one way at a time.

    /usr/bin/python3 tests/e2e/test_tokenizer_files.py MINIMT
"""
import io
import json
import os
import shutil
import struct
import subprocess
import tempfile

import sentencepiece

import hostile_files

HAND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "hand-model")
PIECES = [("<pad>", 0.0, 3), ("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3),
          ("a", -1.28, 1), ("b", -1.28, 1), ("\u2581", -1.28, 1), ("c", -1.79, 1)]
NORMAL, UNKNOWN, USER_DEFINED = 1, 2, 4


# ----------------------------------------------------------------------------- writing files

def varint(value):
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number, value):
    """One protobuf field: bytes are length-delimited, a float 32-bit, an int a varint."""
    if isinstance(value, bytes):
        return varint(number << 3 | 2) + varint(len(value)) + value
    if isinstance(value, float):
        return varint(number << 3 | 5) + struct.pack("<f", value)
    return varint(number << 3) + varint(value & 0xFFFFFFFFFFFFFFFF)


def piece(text, score=-1.0, kind=NORMAL):
    text = text if isinstance(text, bytes) else text.encode("utf-8")
    body = field(1, text) + field(2, float(score)) + (field(3, kind) if kind != NORMAL else b"")
    return field(1, body)


def trie_units(rules):
    """{key bytes: replacement offset} -> the units of a double array, root at unit 0."""
    trie = {}
    for key, value in rules.items():
        node = trie
        for byte in key:
            node = node.setdefault(byte, {})
        node[None] = value
    units = [0] * 256

    def place(index, node):
        base = len(units)
        # Unused units get a label no walk can match (unit base ^ c has label c ^ 1), as
        # darts-clone fills them; zeros would match byte 0 and lead back into the block.
        units.extend([(c ^ 1) for c in range(256)])
        units[index] |= (index ^ base) << 10            # offset to the children's block
        if None in node:
            units[base] = (1 << 31) | node[None]        # the leaf unit: its value
        for byte, child in node.items():
            if byte is not None:
                units[base ^ byte] = byte | ((1 << 8) if None in child else 0)  # label, has_leaf
                place(base ^ byte, child)
    place(0, trie)
    return units


def charsmap(rules, units=None, strings=None, trie_size=None):
    """The precompiled charsmap of {key: replacement} (bytes): trie size, trie, strings."""
    text, position = b"", {}
    for replacement in sorted(set(rules.values())):
        position[replacement] = len(text)
        text += replacement + b"\0"
    units = units if units is not None else trie_units(
        {k: position[v] for k, v in rules.items()})
    trie = struct.pack("<%dI" % len(units), *units)
    size = len(trie) if trie_size is None else trie_size
    return struct.pack("<I", size) + trie + (text if strings is None else strings)


RULES = {b"A": b"a", b"B": b"b", b"Cc": b"c", b"\xef\xbc\xa1": b"a"}  # U+FF21 (full-width A)


def model(pieces=None, model_type=4, blob=b"", trainer=b"", normalizer=b"", extra=b""):
    body = b"".join(piece(*p) for p in (PIECES if pieces is None else pieces))
    body += field(2, field(3, model_type) + trainer)
    body += field(3, field(1, b"crafted") + field(2, blob) + normalizer)
    return body + extra


def nested_rules(count):
    return {b"a" * n: b"b" for n in range(1, count + 1)}


def with_units(change):
    units = trie_units({b"A": 0, b"B": 2})
    change(units)
    return model(blob=charsmap({b"A": b"a", b"B": b"b"}, units=units))


def leaf_of(units, key_bytes):
    """The index of the leaf unit of `key_bytes` (the unit its value sits in)."""
    node = 0
    for byte in key_bytes:
        node = (node ^ (units[node] >> 10)) ^ byte
    return node ^ (units[node] >> 10)


def trained(rule):
    """A model SentencePiece's own trainer writes, with its normalization rule's charsmap."""
    out = io.BytesIO()
    text = ["a b c", "aab cab", "\uff41 \uff42 \uff43"] * 20
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(text), model_writer=out, vocab_size=8, model_type="char",
        normalization_rule_name=rule, pad_id=0, unk_id=1, bos_id=2, eos_id=3, minloglevel=2)
    return out.getvalue()


# ----------------------------------------------------------------------------- cases

def bad_cases():
    """(name, file bytes, words the message must hold)."""
    cm = "normalizer_spec.precompiled_charsmap"
    big = nested_rules(33)
    return [
        # The example: a leaf that names a replacement far past the charsmap's end.
        ("charsmap leaf offset past its end",
         with_units(lambda u: u.__setitem__(leaf_of(u, b"A"), (1 << 31) | 0x7FFF0000)),
         [cm, "names replacement byte 2147418112"]),
        ("charsmap unit offset past the trie",
         with_units(lambda u: u.__setitem__(0, (u[0] & 0x3FF) | (0x3FFFFF << 10))),
         [cm, "unit 0 points to units", "past the trie's"]),
        ("charsmap trie size past the charsmap",
         model(blob=charsmap(RULES, trie_size=1 << 30)), [cm, "claims a trie of 1073741824"]),
        ("charsmap trie size one byte short of whole units",
         model(blob=charsmap(RULES, trie_size=4 * 256 - 1)), [cm, "whole number of 4-byte units"]),
        ("charsmap of 3 bytes", model(blob=b"\x01\x02\x03"), [cm, "too short"]),
        ("charsmap strings without their last NUL",
         model(blob=charsmap(RULES)[:-1]), [cm, "do not end with a NUL"]),
        ("charsmap replacement that is not UTF-8",
         model(blob=charsmap({b"A": b"\xff"})), [cm, "not valid UTF-8"]),
        ("charsmap leaf inside a replacement string",
         with_units(lambda u: u.__setitem__(leaf_of(u, b"A"), (1 << 31) | 1)),
         [cm, "names replacement byte 1", "does not start"]),
        ("charsmap with 33 nested rules", model(blob=charsmap(big)),
         [cm, "more than 32 matching rules"]),
        # "A" (unit 256 ^ 0x41, no leaf) leads back to the root's children: "AAAA..." loops.
        ("charsmap trie that loops",
         with_units(lambda u: u.__setitem__(256 ^ 0x41, 0x41 | ((256 ^ 0x41 ^ 256) << 10))),
         [cm, "leads back to unit 321, a loop"]),
        ("denormalizer charsmap leaf past its end",
         model(extra=field(5, field(2, charsmap(RULES)[:-1]))),
         ["denormalizer_spec.precompiled_charsmap", "NUL"]),
        ("charsmap over 4 MiB", model(blob=b"\0" * ((4 << 20) + 1)), [cm, "4194305 bytes"]),
        ("model_type 9", model(model_type=9), ["trainer_spec.model_type is 9"]),
        ("piece type 9", model(pieces=PIECES[:4] + [("a", -1.0, 9)] + PIECES[5:]),
         ["pieces[4].type is 9"]),
        ("piece score NaN", model(pieces=PIECES[:4] + [("a", float("nan"), 1)] + PIECES[5:]),
         ["pieces[4].score is NaN"]),
        ("piece with a NUL", model(pieces=PIECES[:4] + [(b"a\0z", -1.0, 1)] + PIECES[5:]),
         ["pieces[4].piece", "NUL"]),
        ("empty piece", model(pieces=PIECES[:4] + [("", -1.0, 1)] + PIECES[5:]),
         ["pieces[4] has no text"]),
        ("piece that is not UTF-8", model(pieces=PIECES[:4] + [(b"\xc3", -1.0, 1)] + PIECES[5:]),
         ["pieces[4].piece is not valid UTF-8"]),
        ("piece of 2049 bytes", model(pieces=PIECES[:4] + [("x" * 2049, -1.0, 1)] + PIECES[5:]),
         ["pieces[4].piece is 2049 bytes"]),
        ("no unknown piece", model(pieces=[p for p in PIECES if p[2] != UNKNOWN]),
         ["no unknown piece"]),
        ("two unknown pieces", model(pieces=PIECES + [("<unk2>", 0.0, UNKNOWN)]),
         ["pieces[8] is a second unknown piece"]),
        ("65 user-defined pieces each beginning the next",
         model(pieces=PIECES + [("x" * n, 0.0, USER_DEFINED) for n in range(1, 66)]),
         ["65 user-defined pieces"]),
        ("more than 524,288 pieces",
         model(pieces=PIECES + [("p%d" % i, -1.0, 1) for i in range(524281)]),
         ["more than 524288"]),
        ("self-test sentences over 1 MiB",
         model(extra=field(4, field(1, field(1, b"a" * (1 << 20) + b"a")))),
         ["self_test_data holds more than 1048576 bytes"]),
        ("a field with wire type 3 (a group)", model(extra=b"\x33"), ["wire type 3"]),
        ("a length past the end", model()[:-3], ["is not a whole protobuf message"]),
        ("pieces of the wrong wire type", model(extra=field(1, 5)), ["pieces is a varint"]),
        ("empty file", b"", ["has no pieces"]),
        ("garbage", b"\x08\x96\x01 this is not a protobuf \xff\xfe" * 20, ["SentencePiece model"]),
    ]


def good_cases():
    """(name, file bytes): tokenized by minimt exactly as by the sentencepiece module."""
    cases = [("crafted charsmap", model(blob=charsmap(RULES))),
             ("32 nested rules", model(blob=charsmap(nested_rules(32)))),
             ("64 user-defined pieces each beginning the next",
              model(pieces=PIECES + [("x" * n, 0.0, USER_DEFINED) for n in range(1, 65)]))]
    cases += [("SentencePiece's %s" % rule, trained(rule))
              for rule in ("nmt_nfkc", "nfkc_cf", "identity")]
    return cases


# ----------------------------------------------------------------------------- runs

def model_dir(work, name, data, pieces=8):
    """The hand model with `data` as its tokenizer on both sides; `pieces` other than its 8
    grow the two embedding tables and final_logits_bias with zero rows to fit."""
    folder = os.path.join(work, name.replace(" ", "-").replace("/", "-"))
    shutil.copytree(HAND, folder)
    with open(os.path.join(folder, "vocab.spm"), "wb") as f:
        f.write(data)
    if pieces != 8:
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        config["source_vocab_size"] = config["target_vocab_size"] = pieces
        for tensor in config["weights"].values():
            if tensor["shape"][0] == 8:
                row = len(tensor["data"]) // 8
                tensor["shape"][0] = pieces
                tensor["data"] += [0.0] * (row * (pieces - 8))
        with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f)
    return folder


TEXTS = ["A B Cc", "\uff21bc a", "abc Hello \ufb01ne caf\u00e9 \uff43", "xxxxxxxxx aaaa"]


def main():
    minimt = hostile_files.minimt_argument()
    results = hostile_files.Results()
    work = tempfile.mkdtemp(prefix="minimt-tokenizer-files-")
    try:
        for name, data, words in bad_cases():
            folder = model_dir(work, name, data)
            for command in (["translate", "--model", folder, "a b"],
                            ["tokenize", "--model", folder, "--side", "target", "a b"]):
                hostile_files.check_refused(results, "%s (%s)" % (name, command[0]),
                                            [minimt] + command, folder, 1,
                                            [os.path.join(folder, "vocab.spm")] + words,
                                            cpu=5.0 if "524,288" in name else 2.0,
                                            rss=400 if "524,288" in name else 150)
        for name, data in good_cases():
            processor = sentencepiece.SentencePieceProcessor(model_proto=data)
            folder = model_dir(work, name, data, processor.get_piece_size())
            for text in TEXTS:
                got = subprocess.run([minimt, "tokenize", "--model", folder, "--side", "target",
                                      text], capture_output=True)
                ids = processor.encode(text)
                want = " ".join(processor.id_to_piece(i) for i in ids) + "\t" + \
                    " ".join(map(str, ids)) + "\n"
                results.check(got.returncode == 0 and got.stdout.decode() == want,
                              "%s, %r: status %d, %r (sentencepiece: %r), stderr %r"
                              % (name, text, got.returncode, got.stdout, want, got.stderr))
            print("ok   %s tokenizes as sentencepiece does" % name)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
