#!/usr/bin/python3
"""Files that say one thing twice, or say what minimt would read past (issue 24, class 7).

A key given twice in config.json, in a safetensors header or in an attention dump (JSON readers
keep the first or the last), bytes after a NUL (nlohmann's parser stops there and ignores the
rest), a singular protobuf field twice in a SentencePiece model (protobuf merges them), and a
key format v1 does not define are refused with one line naming the key, exit status 1, nothing
on stdout and nothing written; a key that looks like a slip of an optional one is a warning
naming that key (the model reads with its default). A shape of 2^64-1 is printed as such, not
as -1. The hand model (tests/fixtures/hand-model) is the base of every case.

    /usr/bin/python3 tests/e2e/test_said_twice.py MINIMT
"""
import json
import os
import shutil
import struct
import subprocess
import tempfile

import hostile_files
import test_tokenizer_files as spm

HAND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "hand-model")
EMB = "encoder.embed_tokens.weight"


def hand_config():
    with open(os.path.join(HAND, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def config_text(replace=None, add=""):
    """The hand config as JSON text, with `replace` = (old, new) applied and `add` written as
    its first keys."""
    text = json.dumps(hand_config())
    if replace:
        assert replace[0] in text, replace[0]
        text = text.replace(replace[0], replace[1], 1)
    return ("{" + add + text[1:]).encode("utf-8")


def external_model(header_text=None, change=None):
    """(config bytes, safetensors bytes) of the hand model with its weights in a file; the
    header as `header_text` gives it (bytes) or as change(header dict) leaves it."""
    config = hand_config()
    tensors = config["weights"]
    header, data = {}, b""
    for name, tensor in tensors.items():
        raw = struct.pack("<%df" % len(tensor["data"]), *tensor["data"])
        header[name] = {"dtype": "F32", "shape": tensor["shape"],
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if change:
        change(header)
    text = header_text if header_text is not None else json.dumps(header).encode()
    config["weights"] = "model.safetensors"
    return json.dumps(config).encode(), struct.pack("<Q", len(text)) + text + data


def header_with(first_tensor_text):
    """A header whose first tensor entry is the raw JSON `first_tensor_text`."""
    config, weights = external_model()
    (size,) = struct.unpack("<Q", weights[:8])
    header = json.loads(weights[8:8 + size])
    header.pop(EMB)
    text = json.dumps(header)
    return ('{"%s": %s, ' % (EMB, first_tensor_text) + text[1:]).encode()


def entry(shape="[8, 4]", extra=""):
    """The embedding's header entry (where external_model puts it), as JSON text."""
    (size,) = struct.unpack("<Q", external_model()[1][:8])
    offsets = json.loads(external_model()[1][8:8 + size])[EMB]["data_offsets"]
    return '{"dtype": "F32", "shape": %s, "data_offsets": %s%s}' % (shape, offsets, extra)


def dump(text):
    return text.encode()


DUMP = ('{"format": "minimt-attention", "version": 1, "model": "m", "sentences": [%s]%s}')
SENTENCE = '{"source": "a", "translation": "b"%s, "error": "failed"}'


V2 = ('"format_version": 1', '"format_version": 2')  # the hand model as format version 2


def model_cases():
    """(name, {file: bytes}, status, words); status 0 means a warning and a translation."""
    cfg, st = "config.json", "model.safetensors"
    return [
        ("config.json key d_model twice", {cfg: config_text(add='"d_model": 8,')}, 1,
         [cfg, "key 'd_model' appears twice"]),
        ("config.json key special_tokens.eos twice",
         {cfg: config_text(('"eos": 3', '"eos": 3, "eos": 1'))}, 1,
         [cfg, "key 'special_tokens.eos' appears twice"]),
        ("config.json an inline tensor twice",
         {cfg: config_text(('"%s": {' % EMB, '"%s": {"shape": [1], "data": [0]}, "%s": {'
                            % (EMB, EMB)))}, 1,
         [cfg, "key 'weights.%s' appears twice" % EMB]),
        ("config.json bytes after a NUL", {cfg: config_text() + b'\0{"d_model": 8}'}, 1,
         [cfg, "is not valid JSON: a NUL byte at byte %d" % len(config_text())]),
        ("config.json a NUL at its end", {cfg: config_text() + b"\0"}, 1, [cfg, "a NUL byte"]),
        ("config.json unknown key", {cfg: config_text(add='"comment": "mine",')}, 1,
         [cfg, "key 'comment' is not a format-v1 key"]),
        ("config.json misspelled required key",
         {cfg: config_text(('"d_model"', '"d_modle"'))}, 1,
         [cfg, "key 'd_modle' is not a format-v1 key (did you mean 'd_model'?)"]),
        ("config.json unknown special token", {cfg: config_text(('"eos": 3', '"eos": 3, "sep": 5'))},
         1, [cfg, "key 'special_tokens.sep' is not a key of special_tokens (pad, unk, bos, eos)"]),
        ("config.json misspelled tokenizer side",
         {cfg: config_text(('"source": "vocab.spm"', '"sourc": "vocab.spm"'))}, 1,
         [cfg, "key 'tokenizer.sourc' is not a key of tokenizer (did you mean 'source'?)"]),
        ("config.json inline tensor with a dtype",
         {cfg: config_text(('"%s": {' % EMB, '"%s": {"dtype": "F32", ' % EMB))}, 1,
         [cfg, "inline tensor '%s' has key 'dtype'" % EMB]),
        ("config.json inline shape 2^64-1",
         {cfg: config_text(('"%s": {"shape": [8, 4]' % EMB,
                            '"%s": {"shape": [18446744073709551615, 4]' % EMB))}, 1,
         [cfg, "shape entry of 18446744073709551615"]),
        ("config.json misspelled optional key head_dim",
         {cfg: config_text(add='"head_dimm": 2,')}, 0,
         [cfg, "key 'head_dimm' is not a format-v1 key and is ignored; did you mean 'head_dim'?"]),
        ("config.json misspelled optional key decoder_start_token",
         {cfg: config_text(add='"Decoder-Start-Token": 2,')}, 0,
         [cfg, "'Decoder-Start-Token'", "did you mean 'decoder_start_token'?"]),
        ("config.json slip of an optional key that is also there",
         {cfg: config_text(add='"head_dim": 2, "head_dimm": 2,')}, 1,
         [cfg, "key 'head_dimm' is not a format-v1 key (did you mean 'head_dim'?)"]),
        ("config.json v2 unknown key",
         {cfg: config_text(V2, add='"comment": "mine",')}, 1,
         [cfg, "key 'comment' is not a format-v2 key"]),
        ("config.json v2 misspelled optional v2 key biases",
         {cfg: config_text(V2, add='"biasses": true,')}, 0,
         [cfg, "key 'biasses' is not a format-v2 key and is ignored; did you mean 'biases'?"]),
        ("config.json v1 slip of a v2 key",
         {cfg: config_text(add='"biasses": true,')}, 1,
         [cfg, "key 'biasses' is not a format-v1 key (did you mean 'biases'?)"]),
        ("safetensors tensor twice", dict(zip((cfg, st), external_model(
            header_with(entry() + ', "%s": %s' % (EMB, entry()))))), 1,
         [st, "tensor '%s' appears twice" % EMB]),
        ("safetensors dtype twice", dict(zip((cfg, st), external_model(
            header_with(entry(extra=', "dtype": "F16"'))))), 1,
         [st, "tensor '%s' key 'dtype' appears twice" % EMB]),
        ("safetensors __metadata__ key twice", dict(zip((cfg, st), external_model(
            header_with(entry() + ', "__metadata__": {"a": "1", "a": "2"}')))), 1,
         [st, "__metadata__ key 'a' appears twice"]),
        ("safetensors __metadata__ twice", dict(zip((cfg, st), external_model(
            header_with(entry() + ', "__metadata__": {}, "__metadata__": {"a": "1"}')))), 1,
         [st, "__metadata__ appears twice"]),
        ("safetensors header bytes after a NUL", dict(zip((cfg, st), external_model(
            header_with(entry()) + b'\0{"evil": 1}'))), 1,
         [st, "has a header that is not valid JSON: a NUL byte at byte"]),
        ("safetensors unknown entry key", dict(zip((cfg, st), external_model(
            header_with(entry(extra=', "dtyp": "F32"'))))), 1,
         [st, "has key 'dtyp', which safetensors does not define (did you mean 'dtype'?)"]),
        ("safetensors shape 2^64-1", dict(zip((cfg, st), external_model(
            header_with(entry(shape="[18446744073709551615, 4]"))))), 1,
         [st, "has shape [18446744073709551615,4]", "2^31-1"]),
        ("safetensors shape 2^63", dict(zip((cfg, st), external_model(
            header_with(entry(shape="[4, 9223372036854775808]"))))), 1,
         [st, "has shape [4,9223372036854775808]"]),
        ("SentencePiece trainer_spec twice",
         {"vocab.spm": spm.model(extra=spm.field(2, spm.field(3, 2)))}, 1,
         ["vocab.spm", "trainer_spec appears twice"]),
        ("SentencePiece model_type twice",
         {"vocab.spm": spm.model(trainer=spm.field(3, 2))}, 1,
         ["vocab.spm", "trainer_spec.model_type appears twice"]),
        ("SentencePiece charsmap twice",
         {"vocab.spm": spm.model(normalizer=spm.field(2, b""))}, 1,
         ["vocab.spm", "normalizer_spec.precompiled_charsmap appears twice"]),
        ("SentencePiece piece twice",
         {"vocab.spm": spm.model(pieces=spm.PIECES[:7] + [("a", -1.0, 1)])}, 1,
         ["vocab.spm", "pieces[7] is 'a' again (as pieces[4])"]),
    ]


def dump_cases():
    return [
        ("dump key sentences twice", DUMP % (SENTENCE % "", ', "sentences": []'),
         ["key 'sentences' appears twice"]),
        ("dump sentence key twice", DUMP % (SENTENCE % ', "source": "c"', ""),
         ["sentence 1: key 'source' appears twice"]),
        ("dump bytes after a NUL", DUMP % (SENTENCE % "", "") + '\0{"sentences": 1}',
         ["not valid JSON (a NUL byte at byte %d" % len(DUMP % (SENTENCE % "", ""))]),
    ]


def main():
    minimt = hostile_files.minimt_argument()
    results = hostile_files.Results()
    work = tempfile.mkdtemp(prefix="minimt-said-twice-")
    try:
        plain = subprocess.run([minimt, "translate", "--model", HAND, "a b"], capture_output=True)
        results.check(plain.returncode == 0 and plain.stdout, "the hand model translates")
        for number, (name, files, status, words) in enumerate(model_cases()):
            folder = os.path.join(work, "model-%02d" % number)
            shutil.copytree(HAND, folder)
            for file_name, data in files.items():
                with open(os.path.join(folder, file_name), "wb") as f:
                    f.write(data)
            command = [minimt, "translate", "--model", folder, "a b"]
            words = [os.path.join(folder, words[0])] + words[1:]  # the file, named in full
            if status:
                hostile_files.check_refused(results, name, command, folder, status, words)
                continue
            before = hostile_files.snapshot(folder)
            got = hostile_files.run(command, folder)
            err = got.stderr.decode()
            results.check(got.status == 0 and got.stdout == plain.stdout,
                          name + ": status %d, %r (without the key: %r)"
                          % (got.status, got.stdout, plain.stdout))
            # One warning line more than the plain run prints (the hand model's translations
            # stop at max_positions, which it warns about too).
            first, _, rest = err.partition("\n")
            results.check(first.startswith("minimt: warning: ") and all(w in first for w in words)
                          and rest == plain.stderr.decode(), name + ": stderr %r" % err)
            results.check(hostile_files.snapshot(folder) == before, name + ": folder changed")
            print("ok   %-58s %s" % (name, first))
        for name, text, words in dump_cases():
            folder = os.path.join(work, name.replace(" ", "-"))
            os.mkdir(folder)
            with open(os.path.join(folder, "d.json"), "wb") as f:
                f.write(dump(text))
            hostile_files.check_refused(results, name, [minimt, "view", "d.json"], folder, 1,
                                        ["d.json: "] + words)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
