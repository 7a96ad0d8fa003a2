#!/usr/bin/python3
"""minimt on broken model directories: one clear message, exit status 1, never a crash.

Takes a valid random model (tools/reference/reference.py random-model), checks that it translates,
then breaks a copy of it in one way at a time (config.json, the safetensors file, the
tokenizers) and runs `minimt translate --model DIR x` on each. Every run must exit with status
1, print exactly one line on stderr naming the file and the key or tensor at fault, and print
nothing on stdout. `minimt info` and `minimt tokenize` are run on a few of them too.

Model directories come from strangers, so the breakages include hostile ones: JSON nested
100,000 deep, megabytes of `[`, headers that claim gigabytes, symlinks and FIFOs where files
should be, NaN and infinities in the weights. Every run is limited to 1 GiB of address space
and a timeout, and must refuse within CPU_SECONDS of CPU time and MAX_RSS_MB of memory.

    /usr/bin/python3 tests/e2e/test_bad_models.py --minimt build/minimt
"""
# Over 400 lines on purpose: a table of bad models (one short entry each) and the loop that
# runs them.

import json
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

ADDRESS_SPACE = 1 << 30   # RLIMIT_AS of every run
# Under AddressSanitizer (tools/test.sh --sanitize sets ASAN_OPTIONS) the process reserves
# terabytes of shadow address space and runs several times slower and larger: the address-space
# limit and the CPU and memory bounds are checked by the plain run, not by the sanitized one.
SANITIZED = "ASAN_OPTIONS" in os.environ
TIMEOUT = 60              # seconds of wall time before a run is killed
CPU_SECONDS = 2.0         # a refusal takes far less; 5 MB of '[' once took 4-5 s
MAX_RSS_MB = 150          # a refusal of the small random model; 5 MB of '[' once took 380 MB


# ----------------------------------------------------------------------------- safetensors

def read_safetensors(path):
    """-> (header dict, data bytes); independent of minimt and of tools/reference."""
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


def quiet_apart_from_cut(stderr):
    """Nothing on stderr but, at most, the warning that a random model's output reached the
    length limit before eos."""
    return re.fullmatch(rb"(minimt: warning: line 1: the translation stopped at \d+ tokens "
                        rb"[^\n]* before its end \(eos\)\n)?", stderr) is not None


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


def raw_config(key, text):
    """Sets config key `key` to the raw JSON `text` (which json.dump could not write)."""
    def apply(model_dir):
        path = os.path.join(model_dir, "config.json")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        config[key] = "@@RAW@@"
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(config, indent=1).replace('"@@RAW@@"', text))
    return apply


def deep(depth):
    return "[" * depth + "]" * depth


def sparse_file(name, size, prefix=b""):
    """A file of `size` bytes (zeros after `prefix`) that takes no disk space."""
    def apply(model_dir):
        path = os.path.join(model_dir, name)
        if os.path.lexists(path):
            os.remove(path)
        with open(path, "wb") as f:
            f.write(prefix)
            f.truncate(size)
    return apply


def raw_header(text, extra=b""):
    """A safetensors file whose header is `text` (bytes), exactly as given."""
    return write_file("model.safetensors", struct.pack("<Q", len(text)) + text + extra)


def replace_with(name, make):
    """Removes file `name` and calls make(path) to put something else there."""
    def apply(model_dir):
        path = os.path.join(model_dir, name)
        if os.path.lexists(path):
            os.remove(path)
        make(path)
    return apply


def symlink_to(name, target):
    return replace_with(name, lambda path: os.symlink(target, path))


def move_out(name):
    """Moves `name` next to the model directory and leaves a symlink to it behind."""
    def apply(model_dir):
        path = os.path.join(model_dir, name)
        outside = model_dir.rstrip("/") + "-outside-" + name
        shutil.move(path, outside)
        os.symlink(outside, path)
    return apply


def subdir_link_out(name):
    """The config names sub/<name>, and sub is a symlink to a directory outside holding it."""
    def apply(model_dir):
        outside = model_dir.rstrip("/") + "-outside-dir"
        os.mkdir(outside)
        shutil.move(os.path.join(model_dir, name), os.path.join(outside, name))
        os.symlink(outside, os.path.join(model_dir, "sub"))
        key = {"model.safetensors": "weights"}.get(name)
        edit_config(lambda c: c.update(weights="sub/" + name) if key else
                    c["tokenizer"].update(source="sub/" + name))(model_dir)
    return apply


def set_value(name, index, value, dtype="F32"):
    """Stores tensor `name` as `dtype` (F32, F16 or BF16) with element `index` set to value."""
    def change(header, data):
        begin, end = header[name]["data_offsets"]
        values = list(struct.unpack("<%df" % ((end - begin) // 4), data[begin:end]))
        values[index] = value
        if dtype == "F32":
            raw = struct.pack("<%df" % len(values), *values)
        elif dtype == "F16":
            raw = struct.pack("<%de" % len(values), *values)
        else:  # BF16: the high half of each F32
            raw = b"".join(struct.pack("<f", v)[2:] for v in values)
        header[name]["dtype"] = dtype
        header[name]["data_offsets"] = [len(data), len(data) + len(raw)]
        return header, data + raw
    return edit_weights(change)


# One long list on purpose: each entry is one bad model (a few lines each); splitting it would
# only scatter the table of cases.
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
        ("format_version 3", set_key("format_version", 3), [cfg, "'format_version'", "3", "2"]),
        ("format_version 0", set_key("format_version", 0), [cfg, "'format_version'"]),
        # format 2's generation block (docs/model-format.md, "Generation settings")
        ("generation in format 1", set_key("generation", {"beam_size": 4}),
         [cfg, "'generation'", "format_version 2"]),
        ("generation beam_size 0", both(set_key("format_version", 2),
                                        set_key("generation", {"beam_size": 0})),
         [cfg, "'generation.beam_size'", "between 1 and 256"]),
        ("generation repetition_penalty 0", both(set_key("format_version", 2), set_key(
            "generation", {"repetition_penalty": 0})), [cfg, "'generation.repetition_penalty'"]),
        ("generation no_repeat_ngram_size huge", both(set_key("format_version", 2), set_key(
            "generation", {"no_repeat_ngram_size": 1 << 40})),
         [cfg, "'generation.no_repeat_ngram_size'"]),
        ("generation early_stopping 'sometimes'", both(set_key("format_version", 2), set_key(
            "generation", {"early_stopping": "sometimes"})), [cfg, "'generation.early_stopping'"]),
        ("generation bad word past the vocabulary", both(set_key("format_version", 2), set_key(
            "generation", {"bad_words": [[1, 1 << 30]]})), [cfg, "'generation.bad_words[0][1]'"]),
        ("generation forced_last_token -1", both(set_key("format_version", 2), set_key(
            "generation", {"forced_last_token": -1})), [cfg, "'generation.forced_last_token'"]),
        ("generation unknown key", both(set_key("format_version", 2), set_key(
            "generation", {"beam_sizes": 4})), [cfg, "'generation.beam_sizes'", "beam_size"]),
        ("generation task without prefix", both(set_key("format_version", 2), set_key(
            "generation", {"tasks": {"t": {"beam_size": 2}}})),
         [cfg, "'generation.tasks.t.source_prefix_tokens'", "missing"]),
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
    ] + hostile_config_cases() + hostile_file_cases() + hostile_weight_cases()


def hostile_config_cases():
    cfg = "config.json"
    emb = "encoder.embed_tokens.weight"
    return [
        ("d_model nested 100,000 deep", raw_config("d_model", deep(100000)),
         [cfg, "key 'd_model'", "more than 32 deep"]),
        ("d_model nested 32 deep (33 with the top object)", raw_config("d_model", deep(32)),
         [cfg, "key 'd_model'", "more than 32 deep"]),
        ("d_model nested 31 deep (32 with the top object)", raw_config("d_model", deep(31)),
         [cfg, "'d_model'", "must be an integer, got an array"]),
        ("inline tensor data nested 100,000 deep",
         raw_config("weights", '{"%s": {"shape": [1], "data": %s}}' % (emb, deep(100000))),
         [cfg, "key 'weights'", "more than 32 deep"]),
        ("config.json of 5 MB of [", write_file(cfg, b"[" * 5000000), [cfg, "32 deep"]),
        ("config.json of 5 MB of {\"a\":", write_file(cfg, b'{"a":' * 1000000),
         [cfg, "key 'a'", "32 deep"]),
        ("config.json over 8 MiB", sparse_file(cfg, (8 << 20) + 1, b"{"),
         [cfg, "8388609 bytes", "8 MiB"]),
        ("config.json of 7.5 MiB of numbers",
         raw_config("d_model", "[" + "0," * (15 << 18) + "0]"),
         [cfg, "'d_model'", "got an array"]),
        ("config.json with an unterminated 1 MB string",
         write_file(cfg, b'{"format": "' + b"x" * 1000000), [cfg, "not valid JSON"]),
        ("activation a 1 MB string", set_key("activation", "x" * 1000000),
         [cfg, "'activation'", "xxx..."]),
        ("format with a newline", set_key("format", "mar\nian"),
         [cfg, "'format'", "mar\\x0aian"]),
        ("d_model 2^64-1", raw_config("d_model", "18446744073709551615"),
         [cfg, "'d_model'", "18446744073709551615"]),
        ("d_model 2^63", raw_config("d_model", "9223372036854775808"),
         [cfg, "'d_model'", "9223372036854775808"]),
        ("inline weight past the float range",
         set_key("weights", {emb: {"shape": [2], "data": [1, 1e39]}}),
         [cfg, "'%s'" % emb, "+inf", "element 1", "finite"]),
        ("inline weight past the negative float range",
         set_key("weights", {emb: {"shape": [2], "data": [-1e39, 1]}}),
         [cfg, "'%s'" % emb, "-inf", "element 0"]),
    ]


def hostile_file_cases():
    cfg = "config.json"
    st = "model.safetensors"
    src = "'tokenizer.source'"
    return [
        ("config.json a FIFO", replace_with(cfg, os.mkfifo), [cfg, "not a regular file (a FIFO)"]),
        ("config.json a directory", replace_with(cfg, os.mkdir),
         [cfg, "not a regular file (a directory)"]),
        ("config.json a symlink out of the directory", move_out(cfg),
         [cfg, "resolves outside the model directory", "-outside-config.json"]),
        ("config.json a symlink to /dev/zero", symlink_to(cfg, "/dev/zero"),
         [cfg, "outside the model directory (/dev/zero)"]),
        ("source.spm a symlink to /etc/passwd", symlink_to("source.spm", "/etc/passwd"),
         ["source.spm", "resolves outside the model directory (/etc/passwd)", src]),
        ("target.spm a symlink to /dev/zero", symlink_to("target.spm", "/dev/zero"),
         ["target.spm", "outside the model directory (/dev/zero)", "'tokenizer.target'"]),
        ("source.spm a symlink out of the directory", move_out("source.spm"),
         ["source.spm", "outside the model directory", src]),
        ("tokenizer under a subdirectory symlinked out", subdir_link_out("source.spm"),
         ["sub/source.spm", "outside the model directory", src]),
        ("source.spm a FIFO", replace_with("source.spm", os.mkfifo),
         ["source.spm", "not a regular file (a FIFO)", src]),
        ("source.spm a dangling symlink", symlink_to("source.spm", "nowhere.spm"),
         ["source.spm", "missing", src]),
        ("source.spm a symlink loop", symlink_to("source.spm", "source.spm"),
         ["source.spm", "cannot be resolved", src]),
        ("tokenizer.source the directory itself",
         edit_config(lambda c: c["tokenizer"].update(source=".")),
         ["not a regular file (a directory)", src]),
        ("source.spm over 64 MiB", sparse_file("source.spm", (64 << 20) + 1),
         ["source.spm", "67108865 bytes", "64 MiB", src]),
        ("weights a symlink out of the directory", move_out(st),
         [st, "resolves outside the model directory", "'weights'"]),
        ("weights under a subdirectory symlinked out", subdir_link_out(st),
         ["sub/" + st, "outside the model directory", "'weights'"]),
        ("weights a symlink to /dev/zero", symlink_to(st, "/dev/zero"),
         [st, "outside the model directory (/dev/zero)", "'weights'"]),
        ("weights a FIFO", replace_with(st, os.mkfifo), [st, "not a regular file (a FIFO)"]),
        ("weights a directory", replace_with(st, os.mkdir),
         [st, "not a regular file (a directory)", "'weights'"]),
    ]


def hostile_weight_cases():
    st = "model.safetensors"
    fc1 = "encoder.layers.0.fc1.weight"
    bias = "decoder.layers.1.fc2.bias"
    cases = [
        ("header of 5 MB of [", raw_header(b"[" * 5000000), [st, "32 deep"]),
        ("header with a shape nested 100,000 deep",
         raw_header(b'{"%s": {"dtype": "F32", "shape": %s}}'
                    % (fc1.encode(), deep(100000).encode())),
         [st, "tensor '%s'" % fc1, "more than 32 deep"]),
        ("header claiming 2^64-1 bytes", write_file(st, b"\xff" * 8 + b"{}"),
         [st, "18446744073709551615-byte header"]),
        ("header over 8 MiB", sparse_file(st, (8 << 20) + 9, struct.pack("<Q", (8 << 20) + 1)),
         [st, "8388609-byte header", "8 MiB"]),
        ("header of 7.5 MiB of empty arrays",
         raw_header(b"[" + b"[]," * (5 << 19) + b"[]]"), [st, "not a JSON object"]),
        ("tensor name with a newline", add_tensor("evil\nname"), [st, "'evil\\x0aname'"]),
        ("tensor name of 1 MB", add_tensor("n" * 1000000), [st, "nnn...'"]),
    ]
    for dtype in ("F32", "F16", "BF16"):
        for value, text in ((float("nan"), "NaN"), (float("inf"), "+inf"),
                            (float("-inf"), "-inf")):
            cases.append(("%s %s in a weight" % (dtype, text), set_value(fc1, 5, value, dtype),
                          [st, "tensor '%s'" % fc1, "holds %s at element 5" % text, dtype]))
    cases.append(("F32 NaN in the last element of a bias", set_value(bias, 15, float("nan")),
                  [st, "tensor '%s'" % bias, "NaN at element 15"]))
    return cases


# Runs that may take more than a plain refusal: parsing the largest document minimt reads.
# (peak RSS in MB, CPU seconds); measured about (170, 1.3) for both.
ALLOWANCE = {"config.json of 7.5 MiB of numbers": (400, 5.0),
             "header of 7.5 MiB of empty arrays": (400, 5.0)}


# ----------------------------------------------------------------------------- runner

class Result:
    def __init__(self, returncode, stdout, stderr, cpu_seconds, max_rss_mb):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.cpu_seconds, self.max_rss_mb = cpu_seconds, max_rss_mb


def limit_resources():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(minimt, *args, stdin=None):
    """Runs minimt under limit_resources() and TIMEOUT; measures its CPU time and peak RSS
    (os.wait4 on this one child, not the running maximum over all children)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as inp:
        inp.write(stdin or b"")
        inp.seek(0)
        proc = subprocess.Popen([minimt, *args], stdin=inp, stdout=out, stderr=err,
                                preexec_fn=limit_resources, env=support.environment())
        timer = threading.Timer(TIMEOUT, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return Result(proc.returncode, out.read(), err.read(), usage.ru_utime + usage.ru_stime,
                      usage.ru_maxrss / 1024.0)


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
    checker.check(len(err) < 1000, label + "a stderr line of %d characters" % len(err))
    rss_limit, cpu_limit = ALLOWANCE.get(name, (MAX_RSS_MB, CPU_SECONDS))
    if SANITIZED:
        rss_limit, cpu_limit = 10**9, 10**9
    checker.check(result.cpu_seconds < cpu_limit,
                  label + "took %.2f s of CPU time" % result.cpu_seconds)
    checker.check(result.max_rss_mb < rss_limit,
                  label + "peak RSS %.0f MB, limit %d MB" % (result.max_rss_mb, rss_limit))
    for word in words:
        word = word.replace("{dir}", model_dir)
        checker.check(word in err, label + "stderr %r does not contain %r" % (err, word))
    return err, result


def check_symlinks_inside(checker, minimt, work, valid, expected):
    """Symlinks that stay inside the model directory are followed (relative, absolute, through
    a symlinked subdirectory), and so is a symlink to the model directory itself: the model
    translates as the valid one does."""
    linked = os.path.join(work, "linked")
    shutil.copytree(valid, linked)
    sub = os.path.join(linked, "sub")
    os.mkdir(sub)
    for name, moved in (("target.spm", "t.spm"), ("source.spm", "s.spm"),
                        ("model.safetensors", "w")):
        shutil.move(os.path.join(linked, name), os.path.join(sub, moved))
    os.symlink("sub/t.spm", os.path.join(linked, "target.spm"))        # relative
    os.symlink(os.path.join(sub, "s.spm"), os.path.join(linked, "source.spm"))  # absolute
    os.symlink("sub", os.path.join(linked, "sub2"))                     # a directory
    edit_config(lambda c: c.update(weights="sub2/w",
                                   tokenizer={"source": "./source.spm",
                                              "target": "target.spm"}))(linked)
    alias = os.path.join(work, "alias")
    os.symlink(linked, alias)
    for model_dir in (linked, alias, alias + "/"):
        result = run(minimt, "translate", "--model", model_dir, "x")
        checker.check(result.returncode == 0 and quiet_apart_from_cut(result.stderr) and
                      result.stdout == expected,
                      "symlinks inside %s: status %d, stdout %r (expected %r), stderr %r"
                      % (model_dir, result.returncode, result.stdout, expected, result.stderr))


def main():
    args = support.parser(__doc__, workdir=True).parse_args()
    minimt = support.minimt_from(args)
    checker = support.Tally()
    with support.Workdir(args, "bad-models") as work:
        valid = support.random_model("bad-models")
        with open(os.path.join(valid, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        source_pieces, target_pieces = config["source_vocab_size"], config["target_vocab_size"]
        if source_pieces == target_pieces:
            raise SystemExit("the random model's tokenizers have the same size; "
                             "the vocabulary-size case needs them to differ")

        # The valid model works: one line out, nothing on stderr, status 0.
        ok = run(minimt, "translate", "--model", valid, "x")
        checker.check(ok.returncode == 0 and quiet_apart_from_cut(ok.stderr) and
                      ok.stdout.decode().count("\n") == 1,
                      "the valid model: status %d, stdout %r, stderr %r"
                      % (ok.returncode, ok.stdout, ok.stderr))
        info = run(minimt, "info", "--model", valid)
        checker.check(info.returncode == 0 and b"d_model" in info.stdout,
                      "info on the valid model: status %d" % info.returncode)

        check_symlinks_inside(checker, minimt, work, valid, ok.stdout)

        cases = bad_cases(source_pieces, target_pieces)
        names = [name for name, _, _ in cases]
        assert len(names) == len(set(names))
        for number, (name, breakage, words) in enumerate(cases):
            model_dir = os.path.join(work, "bad-%02d" % number)
            shutil.copytree(valid, model_dir)
            breakage(model_dir)
            err, result = check_refused(checker, minimt, name, model_dir, words, "translate")
            print("ok   %-50s %.2f s %3.0f MB  %s" % (name, result.cpu_seconds, result.max_rss_mb,
                                                  err.strip()[:300]))
            # Loading is shared by every subcommand: info and tokenize refuse the same way.
            if name in ("format_version 3", "missing tensor", "overlapping data_offsets",
                        "SentencePiece file that is garbage"):
                for command in ("info", "tokenize"):
                    check_refused(checker, minimt, name, model_dir, words, command)

        # Sentences on stdin instead of arguments: the model is refused before any is read.
        broken = os.path.join(work, "bad-stdin")
        shutil.copytree(valid, broken)
        set_key("format_version", 3)(broken)
        piped = run(minimt, "translate", "--model", broken, stdin=b"one\ntwo\n")
        checker.check(piped.returncode == 1 and piped.stdout == b"" and
                      piped.stderr.decode().count("\n") == 1,
                      "stdin input on a bad model: status %d, stdout %r, stderr %r"
                      % (piped.returncode, piped.stdout, piped.stderr))
    return checker.finish()


if __name__ == "__main__":
    sys.exit(main())
