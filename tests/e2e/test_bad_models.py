#!/usr/bin/python3
"""minimt on broken model directories: one clear message, exit status 1, never a crash.

Writes a valid random model with tools/reference/reference.py random-model, checks that it translates,
then breaks a copy of it in one way at a time (config.json, the safetensors file, the
tokenizers) and runs `minimt translate --model DIR x` on each. Every run must exit with status
1, print exactly one line on stderr naming the file and the key or tensor at fault, and print
nothing on stdout. `minimt info` and `minimt tokenize` are run on a few of them too.

    /usr/bin/python3 tests/e2e/test_bad_models.py --minimt build/minimt
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFERENCE = os.path.join(ROOT, "tools", "reference", "reference.py")


# ----------------------------------------------------------------------------- safetensors

def read_safetensors(path):
    """-> (header dict, data bytes); independent of minimt and of tools/reference/minimt_model.py."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n].decode("utf-8")), raw[8 + n:]


def write_safetensors(path, header, data, header_length=None):
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    length = len(text) if header_length is None else header_length
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", length) + text + data)


def tensor_names(header):
    return sorted(k for k in header if k != "__metadata__")


# ----------------------------------------------------------------------------- breakages
# Each takes the model directory (a fresh copy of the valid model) and breaks it; the case
# lists what the one stderr line must contain. "{dir}" stands for the model directory.

def edit_config(change):
    def apply(model_dir):
        path = os.path.join(model_dir, "config.json")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        change(config)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(config, f, indent=1)
    return apply


def set_key(key, value):
    def change(config):
        config[key] = value
    return edit_config(change)


def remove_key(key):
    def change(config):
        del config[key]
    return edit_config(change)


def write_file(name, content):
    def apply(model_dir):
        with open(os.path.join(model_dir, name), "wb") as f:
            f.write(content)
    return apply


def remove_file(name):
    def apply(model_dir):
        os.remove(os.path.join(model_dir, name))
    return apply


def edit_weights(change):
    """change(header, data) -> (header, data[, header_length])."""
    def apply(model_dir):
        path = os.path.join(model_dir, "model.safetensors")
        header, data = read_safetensors(path)
        write_safetensors(path, *change(header, data))
    return apply


def drop_tensor(name):
    def change(header, data):
        assert name in header, name
        del header[name]
        return header, data
    return edit_weights(change)


def transpose_tensor(name):
    def change(header, data):
        rows, cols = header[name]["shape"]
        assert rows != cols
        header[name]["shape"] = [cols, rows]  # same byte count, wrong shape
        return header, data
    return edit_weights(change)


def add_tensor(name):
    def change(header, data):
        header[name] = {"dtype": "F32", "shape": [2],
                        "data_offsets": [len(data), len(data) + 8]}
        return header, data + struct.pack("<2f", 1.0, 2.0)
    return edit_weights(change)


def set_dtype(name, dtype):
    def change(header, data):
        header[name]["dtype"] = dtype
        return header, data
    return edit_weights(change)


def overlap(first, second):
    """Moves `second` so that it starts 4 bytes into `first` (its own size unchanged)."""
    def change(header, data):
        begin = header[first]["data_offsets"][0] + 4
        size = header[second]["data_offsets"][1] - header[second]["data_offsets"][0]
        header[second]["data_offsets"] = [begin, begin + size]
        return header, data
    return edit_weights(change)


def long_header(extra):
    def change(header, data):
        text = json.dumps(header).encode("utf-8")
        length = len(text) + (-len(text) % 8)
        return header, data, length + len(data) + extra
    return edit_weights(change)


def truncate_file(name, keep_fraction):
    def apply(model_dir):
        path = os.path.join(model_dir, name)
        with open(path, "rb") as f:
            raw = f.read()
        with open(path, "wb") as f:
            f.write(raw[:int(len(raw) * keep_fraction)])
    return apply


def copy_file(source, target):
    def apply(model_dir):
        shutil.copy(os.path.join(model_dir, source), os.path.join(model_dir, target))
    return apply


def both(*changes):
    def apply(model_dir):
        for change in changes:
            change(model_dir)
    return apply


def bad_cases(source_pieces, target_pieces):
    """(name, breakage, words the stderr line must contain)."""
    cfg = "config.json"
    st = "model.safetensors"
    fc1 = "encoder.layers.0.fc1.weight"
    return [
        ("missing config.json", remove_file(cfg), [cfg, "missing"]),
        ("config.json is not JSON", write_file(cfg, b'{"format": "minimt-transformer",'),
         [cfg, "JSON"]),
        ("config.json is empty", write_file(cfg, b""), [cfg, "JSON"]),
        ("config.json is a JSON array", write_file(cfg, b"[1, 2, 3]"), [cfg, "object"]),
        ("wrong format", set_key("format", "marian"), [cfg, "'format'", "marian"]),
        ("format_version 2", set_key("format_version", 2), [cfg, "'format_version'", "2", "1"]),
        ("format_version 0", set_key("format_version", 0), [cfg, "'format_version'"]),
        ("negative d_model", set_key("d_model", -16), [cfg, "'d_model'", "-16"]),
        ("d_model a string", set_key("d_model", "16"), [cfg, "'d_model'"]),
        ("zero num_heads", set_key("num_heads", 0), [cfg, "'num_heads'"]),
        ("unknown activation", set_key("activation", "tanh"), [cfg, "'activation'", "tanh"]),
        ("unknown norm_position", set_key("norm_position", "sandwich"),
         [cfg, "'norm_position'"]),
        ("unknown positions", set_key("positions", "rotary"), [cfg, "'positions'"]),
        ("d_model not divisible by num_heads, no head_dim",
         edit_config(lambda c: c.update(d_model=15, num_heads=2)), [cfg, "'head_dim'", "15"]),
        ("zero layers", set_key("decoder_layers", 0), [cfg, "'decoder_layers'"]),
        ("layer_norm_eps zero", set_key("layer_norm_eps", 0), [cfg, "'layer_norm_eps'"]),
        ("scale_embeddings not a bool", set_key("scale_embeddings", "yes"),
         [cfg, "'scale_embeddings'"]),
        ("missing key d_ff", remove_key("d_ff"), [cfg, "'d_ff'", "missing"]),
        ("missing key special_tokens", remove_key("special_tokens"),
         [cfg, "'special_tokens'", "missing"]),
        ("eos past the vocabulary",
         edit_config(lambda c: c["special_tokens"].update(eos=100000)),
         [cfg, "'special_tokens.eos'"]),
        ("decoder_start_token past the vocabulary", set_key("decoder_start_token", 100000),
         [cfg, "'decoder_start_token'"]),
        ("tokenizer path with ..",
         edit_config(lambda c: c["tokenizer"].update(source="../source.spm")),
         [cfg, "'tokenizer.source'", "../source.spm"]),
        ("absolute tokenizer path",
         edit_config(lambda c: c["tokenizer"].update(target="/etc/passwd")),
         [cfg, "'tokenizer.target'", "/etc/passwd"]),
        ("weights path leaving the directory", set_key("weights", "../model.safetensors"),
         [cfg, "'weights'"]),
        ("absolute weights path", set_key("weights", "/tmp/model.safetensors"),
         [cfg, "'weights'"]),
        ("weights neither path nor object", set_key("weights", 7), [cfg, "'weights'"]),
        ("missing tensor", drop_tensor("decoder.layers.1.fc2.bias"),
         [st, "'decoder.layers.1.fc2.bias'", "missing"]),
        ("tensor of the wrong shape", transpose_tensor(fc1),
         [st, "'%s'" % fc1, "[16, 32]", "[32, 16]"]),
        ("unknown extra tensor", add_tensor("encoder.layers.0.adapter.weight"),
         [st, "'encoder.layers.0.adapter.weight'"]),
        ("lm_head with a tied output", add_tensor("lm_head.weight"), [st, "'lm_head.weight'"]),
        ("missing safetensors file", remove_file(st), [st, "missing", "weights"]),
        ("truncated safetensors file", truncate_file(st, 0.5), [st, "data_offsets"]),
        ("safetensors file of 3 bytes", write_file(st, b"abc"), [st, "short"]),
        ("header length larger than the file", long_header(100), [st, "header"]),
        ("safetensors header not JSON",
         write_file(st, struct.pack("<Q", 8) + b"{nope: 1"), [st, "JSON"]),
        ("overlapping data_offsets",
         overlap("decoder.embed_tokens.weight", "decoder.layers.0.fc1.bias"),
         [st, "overlaps", "'decoder.embed_tokens.weight'", "'decoder.layers.0.fc1.bias'"]),
        ("dtype I64", set_dtype("encoder.layers.1.fc2.bias", "I64"),
         [st, "'encoder.layers.1.fc2.bias'", "I64"]),
        ("missing source tokenizer", remove_file("source.spm"),
         ["source.spm", "missing", "'tokenizer.source'"]),
        ("missing target tokenizer", remove_file("target.spm"),
         ["target.spm", "missing", "'tokenizer.target'"]),
        ("vocabulary size not the tokenizer's piece count",
         edit_config(lambda c: c["tokenizer"].update(source="target.spm")),
         [cfg, "'source_vocab_size'", "target.spm", str(source_pieces), str(target_pieces)]),
        ("SentencePiece file that is garbage",
         write_file("source.spm", b"\x08\x96\x01 this is not a protobuf \xff\xfe" * 20),
         ["source.spm", "SentencePiece"]),
        ("empty SentencePiece file", write_file("target.spm", b""), ["target.spm"]),
        ("model directory that does not exist",
         lambda d: shutil.rmtree(d), ["{dir}", "model directory"]),
        ("inline weights with a bad tensor",
         set_key("weights", {"encoder.embed_tokens.weight": {"shape": [2, 2], "data": [1, 2]}}),
         [cfg, "'encoder.embed_tokens.weight'"]),
        ("inline weights missing tensors",
         set_key("weights", {}), [cfg, "'encoder.embed_tokens.weight'", "missing"]),
    ]


# ----------------------------------------------------------------------------- runner

class Checker:
    def __init__(self):
        self.failures = []
        self.checks = 0

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures.append(what)
            print("FAIL: " + what, file=sys.stderr)


def run(minimt, *args, stdin=None):
    return subprocess.run([minimt, *args], input=stdin, capture_output=True, timeout=120)


def check_refused(checker, minimt, name, model_dir, words, command):
    args = {"translate": ["translate", "--model", model_dir, "x"],
            "info": ["info", "--model", model_dir],
            "tokenize": ["tokenize", "--model", model_dir, "x"]}[command]
    result = run(minimt, *args)
    out = result.stdout.decode("utf-8", "replace")
    err = result.stderr.decode("utf-8", "replace")
    label = "%s (%s): " % (name, command)
    checker.check(result.returncode == 1,
                  label + "exit status %d, expected 1; stderr: %r" % (result.returncode, err))
    checker.check(out == "", label + "stdout not empty: %r" % out)
    lines = err.splitlines()
    checker.check(len(lines) == 1 and err.endswith("\n"),
                  label + "expected exactly one line on stderr, got %r" % err)
    checker.check("internal error" not in err, label + "an internal error: %r" % err)
    for word in words:
        word = word.replace("{dir}", model_dir)
        checker.check(word in err, label + "stderr %r does not contain %r" % (err, word))
    return err


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minimt", required=True, help="the minimt executable")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    minimt = os.path.abspath(args.minimt)
    env_model = os.environ.pop("MINIMT_MODEL", None)  # every run names its model
    del env_model

    checker = Checker()
    work = tempfile.mkdtemp(prefix="minimt-bad-models-")
    try:
        valid = os.path.join(work, "valid")
        subprocess.run([sys.executable, REFERENCE, "random-model", valid, "--seed", "5",
                        "--target-vocab", "60"], check=True, capture_output=True, timeout=300)
        with open(os.path.join(valid, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        source_pieces, target_pieces = config["source_vocab_size"], config["target_vocab_size"]
        if source_pieces == target_pieces:
            raise SystemExit("the random model's tokenizers have the same size; "
                             "the vocabulary-size case needs them to differ")

        # The valid model works: one line out, nothing on stderr, status 0.
        ok = run(minimt, "translate", "--model", valid, "x")
        checker.check(ok.returncode == 0 and ok.stderr == b"" and
                      ok.stdout.decode().count("\n") == 1,
                      "the valid model: status %d, stdout %r, stderr %r"
                      % (ok.returncode, ok.stdout, ok.stderr))
        info = run(minimt, "info", "--model", valid)
        checker.check(info.returncode == 0 and b"d_model" in info.stdout,
                      "info on the valid model: status %d" % info.returncode)

        cases = bad_cases(source_pieces, target_pieces)
        names = [name for name, _, _ in cases]
        assert len(names) == len(set(names))
        for number, (name, breakage, words) in enumerate(cases):
            model_dir = os.path.join(work, "bad-%02d" % number)
            shutil.copytree(valid, model_dir)
            breakage(model_dir)
            err = check_refused(checker, minimt, name, model_dir, words, "translate")
            print("ok   %-50s %s" % (name, err.strip()))
            # Loading is shared by every subcommand: info and tokenize refuse the same way.
            if name in ("format_version 2", "missing tensor", "overlapping data_offsets",
                        "SentencePiece file that is garbage"):
                for command in ("info", "tokenize"):
                    check_refused(checker, minimt, name, model_dir, words, command)

        # Sentences on stdin instead of arguments: the model is refused before any is read.
        broken = os.path.join(work, "bad-stdin")
        shutil.copytree(valid, broken)
        set_key("format_version", 2)(broken)
        piped = run(minimt, "translate", "--model", broken, stdin=b"one\ntwo\n")
        checker.check(piped.returncode == 1 and piped.stdout == b"" and
                      piped.stderr.decode().count("\n") == 1,
                      "stdin input on a bad model: status %d, stdout %r, stderr %r"
                      % (piped.returncode, piped.stdout, piped.stderr))
    finally:
        if args.keep:
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    print("%d checks, %d failed" % (checker.checks, len(checker.failures)))
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
