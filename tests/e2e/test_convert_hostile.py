#!/usr/bin/python3
"""tools/convert_hf.py on hostile input folders: each case is a good checkpoint (Marian with
safetensors or pytorch_model.bin, M2M100, T5; written by tests/marian/make_fixture.py and
tests/families/make_checkpoint.py) broken one way: a file linked to /dev/zero or /proc/self/mem
or out of the folder, a FIFO, files past their size cap, huge config numbers, JSON nested
100,000 deep or with a key twice, broken safetensors headers and pickles, OUT_DIR a symbolic
link or a file. Each conversion runs under a 2 GiB address-space limit and a 60 s timeout and
must exit 1 (2 for usage) with one stderr line naming the file (and the key or tensor), no
traceback and no "internal error", nothing on stdout, OUT_DIR absent afterwards (or as it was)
and nothing left beside it. The good checkpoints, one read through symbolic links inside the
folder and one laid out as the Hugging Face cache lays out a snapshot, convert under the same
limits (the refusals are not a converter that refuses everything).

    /usr/bin/python3 tests/e2e/test_convert_hostile.py --minimt build/minimt [--verbose]
        [--converter tools/convert_hf.py] [--keep]

docs/robustness.md, "The Hugging Face converter", lists the classes and the messages.
"""
import json
import os
import resource
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

CONVERTER = os.path.join(support.ROOT, "tools", "convert_hf.py")
ADDRESS_SPACE = 2 << 30
TIMEOUT = 60
GiB, MiB = 1 << 30, 1 << 20


# ----------------------------------------------------------------------------- running

def limits():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def convert(converter, hf_dir, out_dir, extra=()):
    env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    return support.run([sys.executable, converter, hf_dir, out_dir, "--quiet"] + list(extra),
                       env=env, timeout=TIMEOUT, preexec_fn=limits)


def snapshot(path):
    """What OUT_DIR is: absent, a link (and where to), a file's bytes or a folder's listing."""
    if not os.path.lexists(path):
        return None
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        return ("link", os.readlink(path))
    if stat.S_ISREG(mode):
        with open(path, "rb") as f:
            return ("file", f.read())
    if stat.S_ISDIR(mode):
        return ("dir", sorted(os.listdir(path)))
    return ("mode", stat.S_IFMT(mode))


def leftovers(parent):
    return sorted(n for n in os.listdir(parent) if n.startswith(".convert-"))


# ----------------------------------------------------------------------------- the fixtures

def make_fixtures(work):
    """{name: folder} of the good checkpoints every case copies."""
    marian = os.path.join(support.ROOT, "tests", "marian", "make_fixture.py")
    family = os.path.join(support.ROOT, "tests", "families", "make_checkpoint.py")
    made = {}
    for name, command in (("marian", [marian]), ("marian-bin", [marian, "--weights", "bin"]),
                          ("m2m100", [family, "m2m100"]), ("t5", [family, "t5"])):
        folder = os.path.join(work, "fixtures", name)
        done = subprocess.run([sys.executable] + command + [folder], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=600)
        if done.returncode:
            raise SystemExit("making fixture %s failed:\n%s" % (name, done.stdout.decode()))
        made[name] = folder
    return made


def write(path, data):
    if os.path.lexists(path):
        os.remove(path)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def link(target):
    def mutate(d):
        os.remove(os.path.join(d, mutate.name))
        os.symlink(target, os.path.join(d, mutate.name))
    return mutate


def edit_json(name, change):
    def mutate(d):
        path = os.path.join(d, name)
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
        change(value)
        write(path, json.dumps(value))
    return mutate


def set_key(name, key, value):
    return edit_json(name, lambda v: v.__setitem__(key, value))


def replace_json_text(name, text):
    return lambda d: write(os.path.join(d, name), text)


def sparse(name, size):
    def mutate(d):
        path = os.path.join(d, name)
        if os.path.lexists(path):
            os.remove(path)
        with open(path, "wb") as f:
            f.truncate(size)
    return mutate


def fifo(name):
    def mutate(d):
        os.remove(os.path.join(d, name))
        os.mkfifo(os.path.join(d, name))
    return mutate


def directory(name):
    def mutate(d):
        os.remove(os.path.join(d, name))
        os.mkdir(os.path.join(d, name))
    return mutate


def outside_copy(name):
    """NAME becomes a link to an identical copy outside the input folder."""
    def mutate(d):
        path = os.path.join(d, name)
        copy = os.path.join(os.path.dirname(d), "outside-" + name)
        shutil.copyfile(path, copy)
        os.remove(path)
        os.symlink(copy, path)
    return mutate


def safetensors(header, body=b"", length=None):
    """model.safetensors of a header (bytes or a JSON value) and a body."""
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    size = len(text) if length is None else length
    return lambda d: write(os.path.join(d, "model.safetensors"),
                           struct.pack("<Q", size) + text + body)


def pickle_bin(payload):
    return lambda d: write(os.path.join(d, "pytorch_model.bin"), payload)


def compressed_zip(d):
    """A zip checkpoint whose one entry inflates to 256 MiB: torch.save never compresses."""
    path = os.path.join(d, "pytorch_model.bin")
    os.remove(path)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/data.pkl", b"\0" * (256 * MiB))


def lying_zip(d):
    """A stored zip entry whose header claims more bytes than the file holds."""
    path = os.path.join(d, "pytorch_model.bin")
    with open(path, "rb") as f:
        data = bytearray(f.read())
    # the central directory's first entry: uncompressed size at offset 24 of the record
    at = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, at + 24, 0xFFFFFFF0)
    struct.pack_into("<I", data, at + 20, 0xFFFFFFF0)
    write(path, bytes(data))


def spm_pieces(count):
    """A SentencePiece ModelProto of `count` one-letter pieces (3 bytes each, 5 with the tag)."""
    piece = b"\x0a\x03\x0a\x01a"
    return piece * count


def nested(depth, inner=b"1"):
    return b"[" * depth + inner + b"]" * depth


def symlink_inside(d):
    """vocab.json and source.spm read through links to files in a subfolder: allowed."""
    os.mkdir(os.path.join(d, "files"))
    for name in ("vocab.json", "source.spm"):
        os.rename(os.path.join(d, name), os.path.join(d, "files", name))
        os.symlink(os.path.join("files", name), os.path.join(d, name))


def cache_layout(d):
    """The Hugging Face cache: models--X/snapshots/REV/F -> ../../blobs/HASH. The case's input
    folder becomes the snapshot folder (returned)."""
    repo = os.path.join(os.path.dirname(d), "models--someone--opus-mt")
    blobs, snap = os.path.join(repo, "blobs"), os.path.join(repo, "snapshots", "0123abcd")
    os.makedirs(blobs)
    os.makedirs(snap)
    for n, name in enumerate(sorted(os.listdir(d))):
        os.rename(os.path.join(d, name), os.path.join(blobs, "blob%02d" % n))
        os.symlink(os.path.join("..", "..", "blobs", "blob%02d" % n), os.path.join(snap, name))
    return snap


# ----------------------------------------------------------------------------- the cases

def cases():
    """(label, fixture, mutate(folder) [-> new input folder], words the one line must hold,
    converter arguments, exit status); OUT_DIR cases in out_cases()."""
    c = []
    each_kind = [("marian", "config.json"), ("marian", "generation_config.json"),
                 ("marian", "tokenizer_config.json"), ("marian", "vocab.json"),
                 ("marian", "source.spm"), ("marian", "target.spm"),
                 ("marian", "model.safetensors"), ("marian-bin", "pytorch_model.bin"),
                 ("m2m100", "vocab.json"), ("m2m100", "sentencepiece.bpe.model"),
                 ("t5", "spiece.model"), ("t5", "tokenizer_config.json")]
    # 1. files that are not regular files inside the folder
    for fixture, name in each_kind:
        m = link("/dev/zero")
        m.name = name
        c.append(("%s: %s -> /dev/zero" % (fixture, name), fixture, m,
                  [name, "resolves outside the input folder (/dev/zero)"]))
    for fixture, name in (("marian", "model.safetensors"), ("marian", "vocab.json"),
                          ("marian-bin", "pytorch_model.bin"), ("t5", "spiece.model")):
        m = link("/proc/self/mem")
        m.name = name
        c.append(("%s: %s -> /proc/self/mem" % (fixture, name), fixture, m,
                  [name, "resolves outside the input folder (/proc/"]))
    m = link("/dev/stdin")
    m.name = "config.json"
    c.append(("marian: config.json -> /dev/stdin", "marian", m, ["config.json", "outside"]))
    m = link("/etc/passwd")
    m.name = "vocab.json"
    c.append(("marian: vocab.json -> /etc/passwd", "marian", m,
              ["vocab.json", "resolves outside the input folder (/etc/passwd)"]))
    for fixture, name in (("marian", "vocab.json"), ("marian", "model.safetensors"),
                          ("marian", "source.spm"), ("marian-bin", "pytorch_model.bin")):
        c.append(("%s: %s a link to a copy out of the folder" % (fixture, name), fixture,
                  outside_copy(name), [name, "resolves outside the input folder"]))
    m = link("../../../../../../../../../../etc/hostname")
    m.name = "target.spm"
    c.append(("marian: target.spm -> ../../../etc/hostname", "marian", m,
              ["target.spm", "resolves outside"]))
    for fixture, name in (("marian", "config.json"), ("marian", "vocab.json"),
                          ("marian", "source.spm"), ("marian", "model.safetensors"),
                          ("marian-bin", "pytorch_model.bin"), ("t5", "spiece.model")):
        c.append(("%s: %s a FIFO" % (fixture, name), fixture, fifo(name),
                  [name, "is not a regular file (a FIFO)"]))
    for fixture, name in (("marian", "tokenizer_config.json"), ("marian", "target.spm"),
                          ("m2m100", "model.safetensors")):
        c.append(("%s: %s a directory" % (fixture, name), fixture, directory(name),
                  [name, "is not a regular file (a directory)"]))
    c.append(("marian: HF_DIR a regular file", "marian",
              lambda d: os.path.join(d, "config.json"), ["config.json", "is not a directory"]))
    # 2. sizes past each kind's cap, refused on st_size (sparse files: nothing is read)
    for fixture, name, cap in (("marian", "config.json", 8 * MiB),
                               ("marian", "generation_config.json", 8 * MiB),
                               ("marian", "vocab.json", 64 * MiB),
                               ("m2m100", "vocab.json", 64 * MiB),
                               ("marian", "source.spm", 64 * MiB),
                               ("t5", "spiece.model", 64 * MiB),
                               ("marian", "model.safetensors", 64 * GiB),
                               ("marian-bin", "pytorch_model.bin", 64 * GiB)):
        c.append(("%s: %s one byte past %d" % (fixture, name, cap), fixture,
                  sparse(name, cap + 1), [name, "is %d bytes, more than the %d bytes"
                                          % (cap + 1, cap)]))
    # 3. config numbers out of range, every family
    huge = 1 << 40
    for fixture, key in (("marian", "max_position_embeddings"), ("marian", "vocab_size"),
                         ("marian", "d_model"), ("marian", "encoder_layers"),
                         ("marian", "decoder_ffn_dim"), ("marian", "encoder_attention_heads"),
                         ("m2m100", "max_position_embeddings"), ("m2m100", "vocab_size"),
                         ("m2m100", "decoder_layers"), ("t5", "n_positions"),
                         ("t5", "vocab_size"), ("t5", "num_heads"), ("t5", "d_kv"),
                         ("t5", "relative_attention_num_buckets")):
        c.append(("%s: %s 2^40" % (fixture, key), fixture, set_key("config.json", key, huge),
                  ["config.json", "key '%s'" % key, str(huge)]))
    c.append(("marian: d_model 2^64", "marian", set_key("config.json", "d_model", 1 << 64),
              ["config.json", "key 'd_model'", str(1 << 64)]))
    c.append(("marian: max_position_embeddings -1", "marian",
              set_key("config.json", "max_position_embeddings", -1),
              ["config.json", "key 'max_position_embeddings'"]))
    c.append(("marian: 65536 positions x d_model 1024", "marian",
              edit_json("config.json", lambda v: v.update(max_position_embeddings=65536,
                                                          d_model=1024)),
              ["config.json", "max_position_embeddings", "position table"]))
    c.append(("t5: extra_ids 2^40", "t5", set_key("tokenizer_config.json", "extra_ids", huge),
              ["tokenizer_config.json", "key 'extra_ids'"]))
    c.append(("t5: layer_norm_epsilon 1e999", "t5",
              replace_json_text("config.json", '{"model_type": "t5", "layer_norm_epsilon": '
                                               '1e999}'),
              ["config.json", "past the float range"]))
    c.append(("t5: layer_norm_epsilon NaN", "t5",
              replace_json_text("config.json", '{"model_type": "t5", "layer_norm_epsilon": '
                                               'NaN}'), ["config.json", "NaN"]))
    c.append(("marian: a 5,000-digit number", "marian",
              replace_json_text("config.json", '{"d_model": %s}' % ("9" * 5000)),
              ["config.json", "5000 digits"]))
    c.append(("marian: bad_words_ids a number", "marian",
              set_key("generation_config.json", "bad_words_ids", 5),
              ["generation_config.json", "bad_words_ids"]))
    c.append(("m2m100: language_codes a list", "m2m100",
              set_key("tokenizer_config.json", "language_codes", [1]),
              ["tokenizer_config.json", "language_codes"]))
    c.append(("marian: separate_vocabs a string", "marian",
              set_key("tokenizer_config.json", "separate_vocabs", "yes"),
              ["tokenizer_config.json", "separate_vocabs"]))
    c.append(("marian: activation_function a list", "marian",
              set_key("config.json", "activation_function", ["relu"]),
              ["config.json", "activation_function"]))
    c.append(("t5: task_specific_params a list", "t5",
              set_key("config.json", "task_specific_params", ["x"]),
              ["config.json", "task_specific_params"], ["--source-lang", "en",
                                                        "--target-lang", "fr"]))
    # 4. JSON: nesting, keys said twice, not UTF-8, lone surrogates
    deep = nested(100000)
    c.append(("marian: vocab.json nested 100,000 deep", "marian",
              lambda d: write(os.path.join(d, "vocab.json"), deep),
              ["vocab.json", "nests arrays and objects more than 32 deep"]))
    c.append(("marian: config.json 5 MB of [", "marian",
              lambda d: write(os.path.join(d, "config.json"), b"[" * (5 * MiB)),
              ["config.json", "nests arrays and objects more than 32 deep"]))
    c.append(("marian: generation_config.json key nested 100,000 deep", "marian",
              lambda d: write(os.path.join(d, "generation_config.json"),
                              b'{"num_beams": ' + deep + b"}"),
              ["generation_config.json", "key 'num_beams'", "more than 32 deep"]))
    c.append(("m2m100: vocab.json 5 MB of {\"a\":", "m2m100",
              lambda d: write(os.path.join(d, "vocab.json"), b'{"a":' * MiB),
              ["vocab.json", "more than 32 deep"]))
    c.append(("marian: config.json d_model twice", "marian",
              replace_json_text("config.json", '{"d_model": 16, "d_model": 1024}'),
              ["config.json", "key 'd_model' appears twice"]))
    c.append(("marian: vocab.json a piece twice", "marian",
              replace_json_text("vocab.json", '{"<pad>": 0, "a": 1, "a": 2}'),
              ["vocab.json", "key 'a' appears twice"]))
    c.append(("t5: tokenizer_config.json extra_ids twice", "t5",
              replace_json_text("tokenizer_config.json", '{"extra_ids": 100, "extra_ids": 1}'),
              ["tokenizer_config.json", "key 'extra_ids' appears twice"]))
    c.append(("marian: config.json not UTF-8", "marian",
              lambda d: write(os.path.join(d, "config.json"), b'{"d_model": "\xff"}'),
              ["config.json", "is not UTF-8"]))
    c.append(("marian: unk_token a lone surrogate", "marian",
              replace_json_text("tokenizer_config.json", '{"unk_token": "\\ud800"}'),
              ["tokenizer_config.json", "lone surrogate"]))
    c.append(("marian: vocab.json a piece with NUL", "marian",
              replace_json_text("vocab.json", '{"<pad>": 0, "a\\u0000b": 1}'),
              ["vocab.json", "NUL"]))
    c.append(("marian: vocab.json of 600,000 pieces", "marian",
              lambda d: write(os.path.join(d, "vocab.json"), json.dumps(
                  {"p%d" % i: i for i in range(600000)})),
              ["vocab.json", "600000 pieces, more than the 524288"]))
    c.append(("marian: config.json a JSON array", "marian",
              replace_json_text("config.json", "[1, 2]"), ["config.json", "JSON object"]))
    c.append(("marian: config.json unterminated", "marian",
              replace_json_text("config.json", '{"d_model": "' + "x" * 100000),
              ["config.json", "is not valid JSON"]))
    # 5. safetensors
    entry = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    c += [
        ("safetensors: 5 bytes", "marian",
         lambda d: write(os.path.join(d, "model.safetensors"), b"\x10\0\0\0\0"),
         ["model.safetensors", "too short"]),
        ("safetensors: header length 2^63", "marian", safetensors(b"{}", length=1 << 63),
         ["model.safetensors", "claims a header of 9223372036854775808 bytes"]),
        ("safetensors: header length 2^64-1", "marian", safetensors(b"{}", length=(1 << 64) - 1),
         ["model.safetensors", "claims a header"]),
        ("safetensors: header length past the file", "marian",
         safetensors(b"{}", length=1 << 20), ["model.safetensors", "past the end of the file"]),
        ("safetensors: garbage header", "marian", safetensors(b"\x89PNG garbage!!"),
         ["model.safetensors", "header"]),
        ("safetensors: header not UTF-8", "marian", safetensors(b'{"\xff": 1}'),
         ["model.safetensors", "not UTF-8"]),
        ("safetensors: header nested 100,000 deep", "marian", safetensors(deep),
         ["model.safetensors", "more than 32 deep"]),
        ("safetensors: header a JSON array", "marian", safetensors([1, 2]),
         ["model.safetensors", "not a JSON object"]),
        ("safetensors: a tensor twice", "marian",
         safetensors(b'{"w": %s, "w": %s}' % ((json.dumps(entry).encode(),) * 2), b"\0" * 16),
         ["model.safetensors", "key 'w' appears twice"]),
        ("safetensors: shape 2^40 x 2^40, no bytes", "marian",
         safetensors({"w": {"dtype": "F32", "shape": [1 << 40, 1 << 40],
                            "data_offsets": [0, 0]}}), ["model.safetensors", "tensor w"]),
        ("safetensors: shape 2^32 x 2^32 (wraps to 0 in int64)", "marian",
         safetensors({"w": {"dtype": "F32", "shape": [1 << 31, 1 << 31, 4],
                            "data_offsets": [0, 0]}}), ["model.safetensors", "tensor w"]),
        ("safetensors: a negative dimension", "marian",
         safetensors({"w": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 16]}},
                     b"\0" * 16), ["model.safetensors", "tensor w", "shape"]),
        ("safetensors: data_offsets past the file", "marian",
         safetensors({"w": {"dtype": "F32", "shape": [1 << 28],
                            "data_offsets": [0, 1 << 30]}}, b"\0" * 16),
         ["model.safetensors", "tensor w", "data_offsets"]),
        ("safetensors: an entry a string", "marian", safetensors({"w": "F32"}),
         ["model.safetensors", "tensor w"]),
        ("safetensors: data_offsets a string", "marian",
         safetensors({"w": {"dtype": "F32", "shape": [1], "data_offsets": "0-4"}}, b"\0" * 8),
         ["model.safetensors", "tensor w", "data_offsets"]),
        ("safetensors: dtype an object", "marian",
         safetensors({"w": {"dtype": {"a": 1}, "shape": [1], "data_offsets": [0, 4]}},
                     b"\0" * 8), ["model.safetensors", "tensor w", "dtype"]),
    ]
    # 6. pytorch_model.bin
    evil = (b"\x80\x02cposix\nsystem\nq\x00X\x0b\x00\x00\x00echo pwned!q\x01\x85q\x02Rq\x03.")
    c += [
        ("pytorch_model.bin: garbage", "marian-bin", pickle_bin(b"not a pickle at all"),
         ["pytorch_model.bin", "cannot be read as a PyTorch state dict"]),
        ("pytorch_model.bin: a pickle calling os.system", "marian-bin", pickle_bin(evil),
         ["pytorch_model.bin", "cannot be read as a PyTorch state dict"]),
        ("pytorch_model.bin: a deflated 256 MiB entry", "marian-bin", compressed_zip,
         ["pytorch_model.bin", "compressed"]),
        ("pytorch_model.bin: an entry larger than the file", "marian-bin", lying_zip,
         ["pytorch_model.bin"]),
        ("pytorch_model.bin: empty", "marian-bin", pickle_bin(b""),
         ["pytorch_model.bin", "cannot be read"]),
    ]
    # 7. SentencePiece models
    c += [
        ("marian: source.spm garbage", "marian",
         lambda d: write(os.path.join(d, "source.spm"), b"\xff" * 64),
         ["source.spm", "is not a SentencePiece model"]),
        ("marian: target.spm of 600,000 pieces", "marian",
         lambda d: write(os.path.join(d, "target.spm"), spm_pieces(600000)),
         ["target.spm", "is not a SentencePiece model", "more than"]),
        ("t5: spiece.model of 3M empty fields", "t5",
         lambda d: write(os.path.join(d, "spiece.model"), b"\x08\x00" * (3 * MiB)),
         ["spiece.model", "is not a SentencePiece model"]),
        ("m2m100: sentencepiece.bpe.model a piece not UTF-8", "m2m100",
         lambda d: write(os.path.join(d, "sentencepiece.bpe.model"), b"\x0a\x03\x0a\x01\xff"),
         ["sentencepiece.bpe.model", "UTF-8"]),
    ]
    return c


def out_cases():
    """(label, make(case folder) -> OUT_DIR, words, converter arguments)."""
    def symlink_dir(case):
        target = os.path.join(case, "elsewhere")
        os.mkdir(target)
        write(os.path.join(target, "keep.txt"), "keep\n")
        os.symlink(target, os.path.join(case, "out"))
        return os.path.join(case, "out")

    def symlink_dangling(case):
        os.symlink(os.path.join(case, "nowhere"), os.path.join(case, "out"))
        return os.path.join(case, "out")

    def regular(case):
        write(os.path.join(case, "out"), "not a folder\n")
        return os.path.join(case, "out")

    def full(case):
        os.mkdir(os.path.join(case, "out"))
        write(os.path.join(case, "out", "mine.txt"), "mine\n")
        return os.path.join(case, "out")

    def fifo_out(case):
        os.mkfifo(os.path.join(case, "out"))
        return os.path.join(case, "out")

    return [("OUT a symlink to a folder", symlink_dir, ["symbolic link"], []),
            ("OUT a symlink to a folder, --force", symlink_dir, ["symbolic link"], ["--force"]),
            ("OUT a dangling symlink", symlink_dangling, ["symbolic link"], []),
            ("OUT a regular file", regular, ["not a directory"], []),
            ("OUT a regular file, --force", regular, ["not a directory"], ["--force"]),
            ("OUT a FIFO", fifo_out, ["not a directory"], ["--force"]),
            ("OUT a folder not empty", full, ["exists and is not empty"], [])]


# ----------------------------------------------------------------------------- checking

def check_run(tally, label, got, words, out, before, status=1):
    err = got.err.decode("utf-8", "replace")
    lines = err.splitlines()
    problems = []
    if got.status != status:
        problems.append("exit status %s, expected %d" % (got.status, status))
    if len(lines) != 1 or not err.endswith("\n"):
        problems.append("%d stderr lines, expected 1" % len(lines))
    if "Traceback" in err or "internal error" in err:
        problems.append("a traceback or an internal error")
    if got.out:
        problems.append("stdout %r" % got.out[:200])
    for word in words:
        if word not in err:
            problems.append("stderr lacks %r" % word)
    if snapshot(out) != before:
        problems.append("OUT_DIR %s afterwards (before: %s)" % (str(snapshot(out))[:80],
                                                                str(before)[:80]))
    rest = leftovers(os.path.dirname(out))
    if rest:
        problems.append("left beside OUT_DIR: %s" % rest)
    shown = err if len(err) < 600 else err[:300] + " ... " + err[-300:]
    tally.check(not problems, "%-58s %s" % (label, "; ".join(problems)),
                "stderr: %r" % shown)
    if not problems:
        print("ok   %-58s %s" % (label, lines[0][:150]), flush=True)


def run_case(tally, converter, fixtures, work, n, case):
    label, fixture, mutate, words = case[:4]
    extra = case[4] if len(case) > 4 else []
    folder = os.path.join(work, "case%03d" % n)
    hf_dir = os.path.join(folder, "in")
    shutil.copytree(fixtures[fixture], hf_dir, symlinks=True)
    hf_dir = mutate(hf_dir) or hf_dir
    out = os.path.join(folder, "out")
    got = convert(converter, hf_dir, out, extra)
    check_run(tally, label, got, words, out, None)
    shutil.rmtree(folder, ignore_errors=True)


def run_out_case(tally, converter, fixtures, work, n, case):
    label, make, words, extra = case
    folder = os.path.join(work, "out%03d" % n)
    os.mkdir(folder)
    out = make(folder)
    before = snapshot(out)
    elsewhere = snapshot(os.path.join(folder, "elsewhere"))
    got = convert(converter, fixtures["marian"], out, extra)
    check_run(tally, label, got, words + [out], out, before)
    tally.check(snapshot(os.path.join(folder, "elsewhere")) == elsewhere,
                "%-58s the symlink's target folder changed" % label)
    shutil.rmtree(folder, ignore_errors=True)


def run_good(tally, converter, fixtures, work):
    """The good checkpoints, read through links inside the folder and through the cache's
    layout, convert under the same limits; OUT_DIR replaced with --force."""
    goods = [("marian", None, []), ("marian-bin", None, []),
             ("m2m100", None, ["--source-lang", "en", "--target-lang", "fr"]),
             ("t5", None, ["--source-lang", "en", "--target-lang", "fr"]),
             ("marian", symlink_inside, []), ("marian", cache_layout, [])]
    for n, (fixture, mutate, extra) in enumerate(goods):
        folder = os.path.join(work, "good%d" % n)
        hf_dir = os.path.join(folder, "in")
        shutil.copytree(fixtures[fixture], hf_dir, symlinks=True)
        if mutate:
            hf_dir = mutate(hf_dir) or hf_dir
        out = os.path.join(folder, "out")
        label = "converts: %s%s" % (fixture, " (%s)" % mutate.__name__ if mutate else "")
        got = convert(converter, hf_dir, out, extra)
        ok = got.status == 0 and os.path.isfile(os.path.join(out, "config.json"))
        tally.check(ok, label, "status %s, stderr %r" % (got.status, got.err[-600:]))
        if ok and n == 0:
            got = convert(converter, hf_dir, out, ["--force"] + extra)
            tally.check(got.status == 0 and os.path.isfile(os.path.join(out, "config.json"))
                        and not leftovers(folder), "converts: %s again with --force" % fixture,
                        "status %s, stderr %r" % (got.status, got.err[-600:]))
        if ok:
            print("ok   %s" % label, flush=True)
        shutil.rmtree(folder, ignore_errors=True)


def main():
    p = support.parser(__doc__)
    p.add_argument("--converter", default=CONVERTER, type=os.path.abspath,
                   help="the converter to test (default tools/convert_hf.py)")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder")
    p.add_argument("--verbose", "-v", action="store_true")
    args = p.parse_args()
    tally = support.Tally(args.verbose)
    work = os.path.realpath(tempfile.mkdtemp(prefix="minimt-convert-hostile-"))
    try:
        fixtures = make_fixtures(work)
        run_good(tally, args.converter, fixtures, work)
        for n, case in enumerate(cases()):
            run_case(tally, args.converter, fixtures, work, n, case)
        for n, case in enumerate(out_cases()):
            run_out_case(tally, args.converter, fixtures, work, n, case)
        usage = convert(args.converter, fixtures["marian"], os.path.join(work, "u"),
                        ["--dtype", "F64"])
        tally.check(usage.status == 2 and b"Traceback" not in usage.err
                    and not os.path.lexists(os.path.join(work, "u")),
                    "usage error: exit status 2", "status %s %r" % (usage.status, usage.err))
    finally:
        if args.keep:
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    tally.exit()


if __name__ == "__main__":
    main()
