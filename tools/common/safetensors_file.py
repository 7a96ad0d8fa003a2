"""The safetensors file format, read and written with numpy alone (no safetensors package).

A file is an 8-byte little-endian header length n, n bytes of JSON padded with spaces to a
multiple of 8 ({name: {"dtype", "shape", "data_offsets": [begin, end]}}, and an optional
"__metadata__" of strings), then the tensors' little-endian bytes, offsets counted from the end
of the header.

    write_safetensors(path, tensors, dtype, keep_f32=(), metadata=None)
        tensors {name: float32 array-like} in sorted name order, each converted to dtype
        (F32 | F16 | BF16, rounded to nearest even) unless named in keep_f32
    read_safetensors(path, dtypes=READ_DTYPES) -> {name: float32 array}  (F16, BF16 widen
        exactly; F64 rounds); SafetensorsError (a ValueError) names the file and what is wrong

The one writer of minimt model files in tools/: the PyTorch reference (tools/reference) and the
Marian converter (tools/convert_marian.py) both write through it.
"""
import json
import os
import struct

import numpy as np

# dtype -> (numpy type of the stored values, bytes per value)
READ_DTYPES = {"F32": (np.dtype("<f4"), 4), "F16": (np.dtype("<f2"), 2),
               "BF16": (np.dtype("<u2"), 2), "F64": (np.dtype("<f8"), 8)}
WRITE_DTYPES = ("F32", "F16", "BF16")
MAX_HEADER = 100 << 20


class SafetensorsError(ValueError):
    """A file this module refuses; str() is "PATH: what"."""

    def __init__(self, path, what):
        super().__init__("%s: %s" % (path, what))
        self.path, self.what = path, what


def tensor_bytes(value, dtype):
    """Little-endian bytes of a float32 array-like converted to dtype (F32 | F16 | BF16)."""
    value = np.ascontiguousarray(value, dtype=np.float32)
    if dtype == "BF16":  # round to nearest even on the upper 16 bits, as torch does
        bits = value.view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return rounded.astype("<u2").tobytes()
    if dtype == "F16":
        return value.astype("<f2").tobytes()
    if dtype == "F32":
        return value.astype("<f4").tobytes()
    raise ValueError("cannot write dtype %r (only %s)" % (dtype, ", ".join(WRITE_DTYPES)))


def write_safetensors(path, tensors, dtype, keep_f32=(), metadata=None):
    """{name: float32 array-like} -> a safetensors file; a value F16 cannot hold raises
    ValueError (minimt refuses infinite weights)."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        kind = "F32" if name in keep_f32 else dtype
        data = tensor_bytes(tensors[name], kind)
        if kind == "F16" and not np.all(np.isfinite(np.frombuffer(data, "<f2"))):
            raise ValueError("tensor %s does not fit in F16 (values past 65504)" % name)
        header[name] = {"dtype": kind, "shape": [int(d) for d in np.shape(tensors[name])],
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def _read_header(path, size):
    """-> (header dict, header length n)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise SafetensorsError(path, "is too short for a safetensors file")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER or 8 + n > size:
            raise SafetensorsError(path, "has a header length (%d) past the file" % n)
        try:
            header = json.loads(f.read(n).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise SafetensorsError(path, "has a header that is not JSON (%s)" % e)
    if not isinstance(header, dict):
        raise SafetensorsError(path, "has a header that is not a JSON object")
    return header, n


def read_safetensors(path, dtypes=tuple(READ_DTYPES)):
    """-> {name: float32 array}; a tensor of a dtype not in dtypes is refused."""
    size = os.path.getsize(path)
    header, n = _read_header(path, size)
    if 8 + n < size:
        body = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    else:
        body = np.zeros(0, dtype=np.uint8)  # numpy cannot map an empty range
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = info.get("dtype")
        if dtype not in dtypes or dtype not in READ_DTYPES:
            raise SafetensorsError(path, "tensor %s has dtype %s; this reads %s"
                                         % (name, dtype, ", ".join(dtypes)))
        stored, width = READ_DTYPES[dtype]
        shape = [int(d) for d in info["shape"]]
        begin, end = info["data_offsets"]
        count = int(np.prod(shape)) if shape else 1
        if not 0 <= begin <= end <= len(body) or end - begin != count * width:
            raise SafetensorsError(path, "tensor %s has data_offsets outside the file" % name)
        raw = np.frombuffer(body[begin:end], dtype=stored)
        if dtype == "BF16":
            values = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            values = raw.astype(np.float32)
        tensors[name] = values.reshape(shape)
    return tensors
