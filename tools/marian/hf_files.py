"""Reads a Hugging Face MarianMTModel directory: its JSON files and its weights.

Weights come from model.safetensors (read here with numpy, no safetensors package) or from
pytorch_model.bin (torch.load with weights_only=True: tensors only, no arbitrary pickles).
Every tensor is returned as a float32 numpy array; F16 and BF16 widen exactly.
"""
import json
import os
import struct

import numpy as np

from errors import ConversionError

SAFETENSORS_DTYPES = {"F32": (np.float32, 4), "F16": (np.float16, 2), "BF16": (np.uint16, 2),
                      "F64": (np.float64, 8)}
MAX_HEADER = 100 << 20


def read_json(path, required=True):
    if not os.path.exists(path):
        if required:
            raise ConversionError(path, "is missing")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConversionError(path, "is not valid JSON (%s)" % e)


def _bf16_to_f32(raw):
    return (raw.astype(np.uint32) << 16).view(np.float32)


def read_safetensors(path):
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ConversionError(path, "is too short for a safetensors file")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER or 8 + n > size:
            raise ConversionError(path, "has a header length (%d) past the file" % n)
        try:
            header = json.loads(f.read(n).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ConversionError(path, "has a header that is not JSON (%s)" % e)
    body = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = info.get("dtype")
        if dtype not in SAFETENSORS_DTYPES:
            raise ConversionError(path, "tensor %s has dtype %s; the converter reads F32, F16, "
                                        "BF16 and F64" % (name, dtype))
        np_type, width = SAFETENSORS_DTYPES[dtype]
        shape = [int(d) for d in info["shape"]]
        begin, end = info["data_offsets"]
        count = int(np.prod(shape)) if shape else 1
        if not 0 <= begin <= end <= len(body) or end - begin != count * width:
            raise ConversionError(path, "tensor %s has data_offsets outside the file" % name)
        raw = np.frombuffer(body[begin:end], dtype=np_type)
        values = _bf16_to_f32(raw) if dtype == "BF16" else raw.astype(np.float32)
        tensors[name] = values.reshape(shape)
    return tensors


def read_pytorch_bin(path):
    import torch  # only .bin checkpoints need PyTorch
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a bad pickle
        raise ConversionError(path, "cannot be read as a PyTorch state dict (%s)" % e)
    if not isinstance(state, dict):
        raise ConversionError(path, "does not hold a state dict")
    tensors = {}
    for name, value in state.items():
        if not torch.is_tensor(value) or not value.is_floating_point():
            raise ConversionError(path, "entry %s is not a floating-point tensor" % name)
        tensors[name] = value.detach().to(torch.float32).numpy()
    return tensors


def read_weights(hf_dir):
    """-> (path, {name: float32 array}); prefers model.safetensors, as transformers does."""
    safetensors = os.path.join(hf_dir, "model.safetensors")
    binary = os.path.join(hf_dir, "pytorch_model.bin")
    if os.path.exists(safetensors):
        return safetensors, read_safetensors(safetensors)
    if os.path.exists(binary):
        return binary, read_pytorch_bin(binary)
    for name in ("model.safetensors.index.json", "pytorch_model.bin.index.json", "tf_model.h5",
                 "flax_model.msgpack"):
        if os.path.exists(os.path.join(hf_dir, name)):
            raise ConversionError(os.path.join(hf_dir, name),
                                  "is not read by the converter: it reads one model.safetensors "
                                  "or pytorch_model.bin (PyTorch weights)")
    raise ConversionError(hf_dir, "has neither model.safetensors nor pytorch_model.bin")
