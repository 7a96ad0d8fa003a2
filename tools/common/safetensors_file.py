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
    read_safetensors_file(f, path, size, dtypes) the same from a file already opened (the
        converter opens it through input_files.py); the header is strict JSON of at most
        8 MiB, every entry exactly dtype, shape and data_offsets, sizes checked in Python
        integers before any array is made

The one writer of minimt model files in tools/: the PyTorch reference (tools/reference) and the
Marian converter (tools/convert_marian.py) both write through it.
"""
import json
import os
import struct

import numpy as np

import input_files

# dtype -> (numpy type of the stored values, bytes per value)
READ_DTYPES = {"F32": (np.dtype("<f4"), 4), "F16": (np.dtype("<f2"), 2),
               "BF16": (np.dtype("<u2"), 2), "F64": (np.dtype("<f8"), 8)}
WRITE_DTYPES = ("F32", "F16", "BF16")
MAX_HEADER = 8 << 20  # as minimt reads (src/model/safetensors.cpp)
MAX_RANK = 8
MAX_DIMENSION = (1 << 31) - 1


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


def _read_header(f, path, size):
    """-> (header dict, header length n), read from the open file f of `size` bytes."""
    head = f.read(8)
    if len(head) < 8:
        raise SafetensorsError(path, "is too short for a safetensors file (%d bytes)" % size)
    (n,) = struct.unpack("<Q", head)
    if n > MAX_HEADER:
        raise SafetensorsError(path, "claims a header of %d bytes, more than the %d bytes "
                                     "(8 MiB) this reads" % (n, MAX_HEADER))
    if 8 + n > size:
        raise SafetensorsError(path, "claims a header of %d bytes, past the end of the file "
                                     "(%d bytes)" % (n, size))
    data = f.read(n)
    if len(data) != n:
        raise SafetensorsError(path, "ends inside its header")
    try:
        header = input_files.parse_json(path, data)
    except input_files.InputFileError as e:
        raise SafetensorsError(path, "has a header that cannot be read: " + e.what)
    if not isinstance(header, dict):
        raise SafetensorsError(path, "has a header that is not a JSON object")
    return header, n


def _entry(path, name, info, dtypes, body_size):
    """-> (dtype, shape, begin, end) of one header entry, every field checked."""
    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        raise SafetensorsError(path, "tensor %s must hold exactly dtype, shape and data_offsets"
                               % name)
    dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if dtype not in dtypes or dtype not in READ_DTYPES:
        raise SafetensorsError(path, "tensor %s has dtype %s; this reads %s"
                                     % (name, str(dtype)[:40], ", ".join(dtypes)))
    integers = lambda v: isinstance(v, list) and all(  # noqa: E731
        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)
    if not integers(shape) or len(shape) > MAX_RANK or any(d > MAX_DIMENSION for d in shape):
        raise SafetensorsError(path, "tensor %s has shape %s; a shape is at most %d "
                                     "dimensions, each 0 to %d" % (name, str(shape)[:80],
                                                                   MAX_RANK, MAX_DIMENSION))
    if not integers(offsets) or len(offsets) != 2:
        raise SafetensorsError(path, "tensor %s has data_offsets %s, not [begin, end]"
                                     % (name, str(offsets)[:80]))
    begin, end = offsets
    count = 1
    for d in shape:
        count *= d  # Python integers: no overflow
    if not begin <= end <= body_size:
        raise SafetensorsError(path, "tensor %s has data_offsets %s outside the file's %d "
                                     "bytes of data" % (name, offsets, body_size))
    if end - begin != count * READ_DTYPES[dtype][1]:
        raise SafetensorsError(path, "tensor %s has %d bytes for shape %s of %s (%d expected)"
                                     % (name, end - begin, shape, dtype,
                                        count * READ_DTYPES[dtype][1]))
    return dtype, shape, begin, end


def read_safetensors_file(f, path, size, dtypes=tuple(READ_DTYPES)):
    """-> {name: float32 array} from the open binary file f of `size` bytes (path names it in
    messages); a tensor of a dtype not in dtypes is refused."""
    header, n = _read_header(f, path, size)
    entries = {name: _entry(path, name, info, dtypes, size - 8 - n)
               for name, info in header.items() if name != "__metadata__"}
    if "__metadata__" in header and not isinstance(header["__metadata__"], dict):
        raise SafetensorsError(path, "has a __metadata__ that is not a JSON object")
    if 8 + n < size:
        body = np.memmap(f, dtype=np.uint8, mode="r", offset=8 + n, shape=(size - 8 - n,))
    else:
        body = np.zeros(0, dtype=np.uint8)  # numpy cannot map an empty range
    tensors = {}
    for name, (dtype, shape, begin, end) in entries.items():
        stored = READ_DTYPES[dtype][0]
        raw = np.frombuffer(body[begin:end], dtype=stored)
        if dtype == "BF16":
            values = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            values = raw.astype(np.float32)
        tensors[name] = values.reshape(shape)
    return tensors


def read_safetensors(path, dtypes=tuple(READ_DTYPES)):
    """-> {name: float32 array}; a tensor of a dtype not in dtypes is refused."""
    with open(path, "rb") as f:
        return read_safetensors_file(f, path, os.fstat(f.fileno()).st_size, dtypes)
