#!/usr/bin/python3
"""minimt convert and int8 model files, checked against PyTorch.

  test_convert.py --minimt MINIMT_BINARY

On the shipped model (F16) and on a random untied F32 model (tools/reference random-model):
  - `convert --compute-type int8` writes every Linear weight (attention projections, fc1, fc2,
    an untied lm_head) as I8 [out, in] + F32 NAME.weight_scale [out] whose values equal a
    quantization computed here in PyTorch from the original weights (scale = max|w|/127 within
    1 ulp, q = round-half-even(w * 127/max) exactly), and every other tensor byte for byte;
  - those Linear weights take about a quarter of their float32 bytes;
  - the converted model translates (float32 compute) exactly as minimt does on a model whose
    weights were dequantized here in PyTorch (q * scale, written F32): same text and scores;
    and on the random model as the PyTorch reference does on the dequantized weights;
  - `convert --compute-type float32` of the int8 model writes exactly those dequantized
    weights; converting the int8 model to int8 again copies its I8 tensors unchanged;
  - with int8 compute (once the engine has it), the converted model translates exactly as
    the original float model does with int8 compute.
Hostile int8 files (wrong scale shape, NaN or negative scale, I8 in an embedding, a norm or a
bias, truncated data, missing scale, a scale next to a float weight, -128, an F16 scale) are
refused with the file and the tensor named and exit status 1; convert's bad command lines
(bf16, OUT = IN, OUT inside IN, IN inside OUT, a non-empty OUT, missing operands) exit 2 and
leave nothing behind.
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import shutil
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

support.use_tools("reference")
from pytorch_reference.sample_text import ENGLISH  # noqa: E402
from pytorch_reference.translator import Translator  # noqa: E402

DTYPES = {"F32": (torch.float32, 4), "F16": (torch.float16, 2), "BF16": (torch.bfloat16, 2),
          "I8": (torch.int8, 1)}
LINEAR = ("q_proj", "k_proj", "v_proj", "out_proj", "fc1", "fc2")

TALLY = support.Tally()
check = TALLY.check


# ------------------------------------------------------------------ safetensors by hand

def read_raw(path):
    """{name: (dtype, shape, bytes)} and the metadata of a safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    body = raw[8 + n:]
    meta = header.pop("__metadata__", {})
    return {name: (info["dtype"], info["shape"],
                   body[info["data_offsets"][0]:info["data_offsets"][1]])
            for name, info in header.items()}, meta


def write_raw(path, tensors, pad=True):
    """Write {name: (dtype, shape, bytes)} (no checks: hostile files are made with it)."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def as_tensor(dtype, shape, data):
    torch_dtype, _ = DTYPES[dtype]
    if not data:
        return torch.zeros(shape, dtype=torch_dtype)
    return torch.frombuffer(bytearray(data), dtype=torch_dtype).reshape(shape)


def is_linear_weight(name):
    return name == "lm_head.weight" or (name.endswith(".weight")
                                         and name.split(".")[-2] in LINEAR)


def quantize(w):
    """PyTorch, float32 throughout: scale = max|w|/127, q = round-half-even(w * (127/max))."""
    w = w.float()
    top = w.abs().amax(dim=1)
    safe = torch.where(top == 0, torch.ones_like(top), top)
    inverse = torch.tensor(127.0, dtype=torch.float32) / safe
    q = torch.round(w * inverse[:, None]).clamp(-127, 127).to(torch.int8)
    q[top == 0] = 0
    scale = torch.where(top == 0, torch.zeros_like(top), top / 127.0)
    return q, scale


def ulps(a, b):
    """Distance in float32 units in the last place, elementwise (both non-negative)."""
    return (a.view(torch.int32).long() - b.view(torch.int32).long()).abs()


# ------------------------------------------------------------------ running minimt

def run(minimt, *args, input_text=None, env=None):
    return support.run([minimt, *args], input=input_text, text=True, env=env)


def translate(minimt, model, lines, *extra):
    r = run(minimt, "translate", "--model", model, "-q", "--format", "jsonl", *extra,
            input_text="\n".join(lines) + "\n")
    if r.returncode != 0:
        return None, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    return [(rec["translation"], rec["score"]) for rec in records], r.stderr


def has_int8_compute(minimt):
    return "--compute-type" in run(minimt, "translate", "--help").stdout


# ------------------------------------------------------------------ the checks

def check_int8_file(label, original_dir, int8_dir):
    """The converted file against a quantization computed here; returns the dequantized
    weights {name: float32 tensor} (q * scale) and the original's tensors."""
    before, _ = read_raw(os.path.join(original_dir, "model.safetensors"))
    after, meta = read_raw(os.path.join(int8_dir, "model.safetensors"))
    check(meta.get("compute_type") == "int8", f"{label}: metadata {meta}")
    linear = [n for n in before if is_linear_weight(n)]
    check(len(linear) > 0, f"{label}: no Linear weights found")
    dequantized, float_bytes, int8_bytes = {}, 0, 0
    for name in linear:
        w = as_tensor(*before[name]).float()
        dtype, shape, data = after.get(name, (None, None, b""))
        scale_entry = after.get(name + "_scale")
        check(dtype == "I8" and shape == list(w.shape), f"{label}: {name} is {dtype} {shape}")
        check(scale_entry is not None and scale_entry[0] == "F32"
              and scale_entry[1] == [w.shape[0]], f"{label}: {name}_scale is {scale_entry and scale_entry[:2]}")
        if dtype != "I8" or scale_entry is None:
            continue
        q, scale = as_tensor(dtype, shape, data), as_tensor(*scale_entry)
        want_q, want_scale = quantize(w)
        differ = (q != want_q).sum().item()
        check(differ == 0, f"{label}: {name}: {differ} int8 values differ from PyTorch's")
        worst = ulps(scale, want_scale).max().item()
        check(worst <= 1, f"{label}: {name}_scale differs by {worst} ulp")
        dequantized[name] = q.float() * scale[:, None]
        float_bytes += w.numel() * 4
        int8_bytes += len(data) + len(scale_entry[2])
    # One byte per weight and 4 per output row: a quarter, plus 1/in for the scales.
    ratio = int8_bytes / float_bytes
    rows = sum(before[n][1][0] for n in linear)
    narrowest = min(before[n][1][1] for n in linear)
    check(int8_bytes == float_bytes // 4 + 4 * rows and 0.25 < ratio <= 0.25 + 1 / narrowest,
          f"{label}: Linear weights take {ratio:.3f} of their F32 bytes")
    print(f"{label}: {len(linear)} Linear weights, {float_bytes} bytes as F32, {int8_bytes} as "
          f"I8 + scales ({ratio:.3f})")
    others = [n for n in before if n not in linear]
    same = [n for n in others if after.get(n) == before[n]]
    check(len(same) == len(others), f"{label}: tensors changed: {sorted(set(others) - set(same))[:5]}")
    extra = set(after) - set(before) - {n + "_scale" for n in linear}
    check(not extra, f"{label}: unexpected tensors {sorted(extra)[:5]}")
    return dequantized, before


def write_dequantized(original_dir, out_dir, before, dequantized):
    """A copy of the model whose Linear weights are PyTorch's q * scale, all F32."""
    shutil.copytree(original_dir, out_dir)
    tensors = {}
    for name, entry in before.items():
        value = dequantized[name] if name in dequantized else as_tensor(*entry).float()
        tensors[name] = ("F32", list(value.shape), value.contiguous().numpy().tobytes())
    write_raw(os.path.join(out_dir, "model.safetensors"), tensors)


def check_model(minimt, label, original, work, lines, reference_lines=()):
    int8_dir = os.path.join(work, label + "-int8")
    r = run(minimt, "convert", "--compute-type", "int8", original, int8_dir)
    check(r.returncode == 0 and "Linear weights as int8" in r.stderr,
          f"{label}: convert exit {r.returncode}: {r.stderr}")
    if r.returncode != 0:
        return
    print(r.stderr.strip())
    check(set(os.listdir(int8_dir)) == {"config.json", "model.safetensors", "source.spm",
                                        "target.spm"}, f"{label}: files {os.listdir(int8_dir)}")
    with open(os.path.join(original, "config.json"), encoding="utf-8") as f:
        config_in = json.load(f)
    with open(os.path.join(int8_dir, "config.json"), encoding="utf-8") as f:
        config_out = json.load(f)
    check(config_in == config_out, f"{label}: config.json changed")
    dequantized, before = check_int8_file(label, original, int8_dir)

    # float32 compute on the int8 file = minimt on PyTorch's dequantized weights, exactly.
    torch_dir = os.path.join(work, label + "-torch-dequantized")
    write_dequantized(original, torch_dir, before, dequantized)
    got, err = translate(minimt, int8_dir, lines, "--compute-type", "float32")
    want, err2 = translate(minimt, torch_dir, lines)
    print(f"{label}: {len(lines)} lines: int8 file vs PyTorch-dequantized F32 file: "
          f"{'identical texts and scores' if got == want else 'DIFFERENT'}")
    check(got is not None and got == want,
          f"{label}: int8 file vs PyTorch-dequantized weights differ ({err}{err2})"
          + (f": first {next(((a, b) for a, b in zip(got, want) if a != b), None)}"
             if got and want else ""))
    if got and reference_lines:
        ref = Translator(torch_dir, quiet=True, skip_blank=True)
        texts = [r["translation"] for r in ref.translate(list(reference_lines), 32)]
        mine, _ = translate(minimt, int8_dir, list(reference_lines), "--max-length", "32",
                            "--compute-type", "float32")
        check(mine is not None and [t for t, _ in mine] == texts,
              f"{label}: minimt on the int8 file vs the PyTorch reference on its weights")

    # float32 files: exactly the dequantized weights; int8 again: the same I8 bytes.
    f32_dir = os.path.join(work, label + "-f32")
    r = run(minimt, "convert", "--compute-type", "float32", int8_dir, f32_dir)
    check(r.returncode == 0, f"{label}: convert to float32: {r.stderr}")
    if r.returncode == 0:
        written, _ = read_raw(os.path.join(f32_dir, "model.safetensors"))
        bad = [n for n, w in dequantized.items()
               if written[n][0] != "F32" or not torch.equal(as_tensor(*written[n]), w)]
        check(not bad and not any(n.endswith("_scale") for n in written),
              f"{label}: float32 conversion differs from q * scale: {bad[:5]}")
        again, _ = translate(minimt, f32_dir, lines)
        check(again == got, f"{label}: the float32 conversion translates differently")
    twice = os.path.join(work, label + "-int8-again")
    r = run(minimt, "convert", "--compute-type", "int8", int8_dir, twice)
    check(r.returncode == 0 and read_raw(os.path.join(twice, "model.safetensors"))[0]
          == read_raw(os.path.join(int8_dir, "model.safetensors"))[0],
          f"{label}: int8 -> int8 is not a copy: {r.stderr}")

    if has_int8_compute(minimt):
        a, err = translate(minimt, int8_dir, lines, "--compute-type", "int8")
        b, err2 = translate(minimt, original, lines, "--compute-type", "int8")
        check(a is not None and a == b,
              f"{label}: int8 compute on the int8 file vs on the float model: {err}{err2}")
        default, err3 = translate(minimt, int8_dir, lines)
        check(default == a, f"{label}: an int8 file computes in int8 by default: {err3}")
        print(f"{label}: int8 compute, file vs load-time quantization: "
              f"{'identical' if a == b else 'DIFFERENT'} on {len(lines)} lines")
        check_info_default(minimt, label, original, int8_dir)
    else:
        print(f"{label}: (this minimt has no --compute-type: the int8 compute check waits)")
    return int8_dir


def info_lines(minimt, model, *extra):
    """minimt info's lines as {first word(s): rest}, e.g. "compute types": "float32, ..."."""
    r = run(minimt, "info", "--model", model, *extra)
    return {line[:15].strip(): line[15:] for line in r.stdout.splitlines()}, r.returncode


def check_info_default(minimt, label, original, int8_dir):
    """info names the compute type that runs without --compute-type: the file's (int8 for the
    converted model, which the translation check above saw run int8 by default), also when
    --compute-type picks another for this one run."""
    for model, default, extra in ((int8_dir, "int8", ()), (int8_dir, "int8", ("--compute-type",
                                  "float32")), (original, "float32", ())):
        info, status = info_lines(minimt, model, *extra)
        types = info.get("compute types", "")
        marked = [part.split(" ")[0] for part in types.split(", ") if "(default)" in part]
        check(status == 0 and marked == [default],
              f"{label}: info {' '.join(extra)} on the {'int8' if model == int8_dir else 'original'}"
              f" model marks {marked} as the default, expected [{default!r}]: {types!r}")
    info, _ = info_lines(minimt, int8_dir)
    check(info.get("linear layers", "").startswith("int8,"),
          f"{label}: info on the int8 model: linear layers {info.get('linear layers')!r}")


def check_refused(minimt, label, model_dir, tensor, expect, tensors):
    """A copy of model_dir with `tensors` as its weights file: exit 1, one line naming the
    file and `tensor`, and containing `expect`."""
    bad = model_dir + "-" + label.replace(" ", "-")
    shutil.copytree(model_dir, bad)
    path = os.path.join(bad, "model.safetensors")
    if callable(tensors):
        tensors(path)
    else:
        write_raw(path, tensors)
    r = run(minimt, "translate", "--model", bad, "hello")
    line = r.stderr.strip()
    check(r.returncode == 1 and "\n" not in line and path in line and f"'{tensor}'" in line
          and expect in line, f"hostile ({label}): exit {r.returncode}: {line!r}")
    print(f"  {label}: exit {r.returncode}: {line}")
    # convert refuses it the same way and leaves no directory behind.
    out = bad + "-converted"
    r = run(minimt, "convert", "--compute-type", "int8", bad, out)
    left = [n for n in os.listdir(os.path.dirname(bad)) if n.startswith("." + os.path.basename(out))]
    check(r.returncode == 1 and f"'{tensor}'" in r.stderr and not os.path.exists(out) and not left,
          f"convert of hostile ({label}): exit {r.returncode}, left {left}: {r.stderr!r}")


def check_hostile(minimt, int8_dir):
    good, _ = read_raw(os.path.join(int8_dir, "model.safetensors"))
    fc1 = "encoder.layers.0.fc1.weight"
    scale = fc1 + "_scale"
    out = good[scale][1][0]

    def replaced(**changes):
        t = dict(good)
        for name, value in changes.items():
            name = name.replace("__", ".")
            if value is None:
                del t[name]
            else:
                t[name] = value
        return t

    def named(changes):
        return replaced(**{k.replace(".", "__"): v for k, v in changes.items()})

    f32 = lambda values: struct.pack(f"<{len(values)}f", *values)  # noqa: E731
    cases = [
        ("wrong scale shape", scale, "has shape [%d], expected [%d]" % (out + 1, out),
         named({scale: ("F32", [out + 1], f32([0.01] * (out + 1)))})),
        ("scale 2-d", scale, "expected [%d]" % out,
         named({scale: ("F32", [out, 1], good[scale][2])})),
        ("NaN scale", scale, "holds NaN at element 3",
         named({scale: ("F32", [out], f32([0.01] * 3 + [float("nan")] + [0.01] * (out - 4)))})),
        ("negative scale", scale, "scales must be >= 0",
         named({scale: ("F32", [out], f32([0.01] * 5 + [-0.5] + [0.01] * (out - 6)))})),
        ("F16 scale", scale, "the scale of an I8 weight is F32",
         named({scale: ("F16", [out], bytes(2 * out))})),
        ("missing scale", fc1, "is missing", named({scale: None})),
        ("scale next to a float weight", "decoder.layers.0.fc2.weight_scale",
         "is the scale of an I8 weight",
         named({"decoder.layers.0.fc2.weight": ("F32", good["decoder.layers.0.fc2.weight"][1],
                                                as_tensor(*good["decoder.layers.0.fc2.weight"])
                                                .float().numpy().tobytes())})),
        ("I8 embedding", "decoder.embed_tokens.weight", "is I8, but format v1",
         named({"decoder.embed_tokens.weight":
                ("I8", good["decoder.embed_tokens.weight"][1],
                 bytes(len(good["decoder.embed_tokens.weight"][2])
                       // (2 if good["decoder.embed_tokens.weight"][0] != "F32" else 4)))})),
        ("I8 layer norm", "encoder.layers.1.final_layer_norm.weight", "is I8",
         named({"encoder.layers.1.final_layer_norm.weight":
                ("I8", good["encoder.layers.1.final_layer_norm.weight"][1],
                 bytes(good["encoder.layers.1.final_layer_norm.weight"][1][0]))})),
        ("I8 bias", "encoder.layers.0.fc1.bias", "is I8",
         named({"encoder.layers.0.fc1.bias": ("I8", [out], bytes(out))})),
        ("-128 in a weight", fc1, "holds -128 at element 7",
         named({fc1: ("I8", good[fc1][1], good[fc1][2][:7] + b"\x80" + good[fc1][2][8:])})),
        ("I8 bytes do not match the shape", fc1, "of I8 needs",
         named({fc1: ("I8", good[fc1][1], good[fc1][2][:-1])})),
    ]
    print("hostile int8 files:")
    for label, tensor, expect, tensors in cases:
        check_refused(minimt, label, int8_dir, tensor, expect, tensors)

    def truncate(path):
        shutil.copyfile(os.path.join(int8_dir, "model.safetensors"), path)
        with open(path, "rb+") as f:
            f.truncate(os.path.getsize(path) - 10)
    # The I8 tensors are written last, so a cut file loses the end of one of them.
    with open(os.path.join(int8_dir, "model.safetensors"), "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    last = max((k for k in header if k != "__metadata__"),
               key=lambda k: header[k]["data_offsets"][1])
    check(good[last][0] == "I8", f"the last tensor of the file is {good[last][0]}, not I8")
    check_refused(minimt, "truncated data", int8_dir, last, "outside the", truncate)


def check_command_line(minimt, model, work):
    def refused(label, *args, status=2, expect=""):
        r = run(minimt, "convert", *args)
        check(r.returncode == status and expect in r.stderr,
              f"convert {label}: exit {r.returncode}: {r.stderr!r}")
        print(f"  {label}: exit {r.returncode}: {r.stderr.strip().splitlines()[0] if r.stderr else ''}")

    print("convert command lines:")
    copy = os.path.join(work, "cli-model")
    shutil.copytree(model, copy)
    refused("bf16", "--compute-type", "bf16", copy, os.path.join(work, "x"), expect="bf16")
    refused("unknown type", "--compute-type", "int4", copy, os.path.join(work, "x"))
    refused("no type", copy, os.path.join(work, "x"))
    refused("no OUT", "--compute-type", "int8", copy)
    refused("OUT = IN", "--compute-type", "int8", copy, copy, expect="overlap")
    os.symlink(copy, os.path.join(work, "link"))
    refused("OUT = IN via a link", "--compute-type", "int8", copy, os.path.join(work, "link"),
            expect="overlap")
    refused("OUT inside IN", "--compute-type", "int8", copy, os.path.join(copy, "sub"),
            expect="overlap")
    empty = os.path.join(work, "empty-parent")
    os.makedirs(empty)
    inner = os.path.join(empty, "m")
    shutil.copytree(model, inner)
    os.remove(os.path.join(inner, "README.md")) if os.path.exists(os.path.join(inner, "README.md")) else None
    refused("IN inside OUT", "--compute-type", "int8", inner, empty, expect="overlap")
    os.makedirs(os.path.join(work, "full"))
    open(os.path.join(work, "full", "x"), "w").close()
    refused("non-empty OUT", "--compute-type", "int8", copy, os.path.join(work, "full"),
            expect="not an empty directory")
    refused("OUT a file", "--compute-type", "int8", copy, os.path.join(work, "full", "x"),
            expect="not an empty directory")
    refused("missing IN", "--compute-type", "int8", os.path.join(work, "absent"),
            os.path.join(work, "y"), status=1)
    leftovers = [n for n in os.listdir(work) if n.startswith(".")]
    check(not os.path.exists(os.path.join(work, "x")) and not leftovers,
          f"convert left files behind: {leftovers}")
    out = os.path.join(work, "empty-out")
    os.makedirs(out)
    r = run(minimt, "convert", "--compute-type", "int8", copy, out)
    check(r.returncode == 0 and os.path.exists(os.path.join(out, "model.safetensors")),
          f"convert into an empty directory: {r.stderr}")


def main():
    minimt, shipped = support.minimt_path(__doc__), support.SHIPPED
    heldout = [english for english, _ in support.heldout_pairs(300)]
    with support.scratch("convert") as work:
        check_model(minimt, "shipped", shipped, work, heldout)
        random_dir = support.random_model("convert-untied")
        texts = ENGLISH.splitlines()[:20]
        int8_random = check_model(minimt, "random-untied", random_dir, work, texts, texts)
        if int8_random:
            check_hostile(minimt, int8_random)
        check_command_line(minimt, shipped, work)
    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
