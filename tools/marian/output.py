"""Writes the converted model directory: config.json, model.safetensors, the tokenizers."""
import json
import os
import shutil
import struct
import tempfile

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16}


def _tensor_bytes(value, dtype):
    value = np.ascontiguousarray(value, dtype=np.float32)
    if dtype == "BF16":  # round to nearest even, as torch does
        bits = value.view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return rounded.astype(np.uint16).tobytes()
    return value.astype(DTYPES[dtype]).tobytes()


def write_safetensors(path, tensors, dtype, keep_f32=(), metadata=None):
    """{name: float32 array} -> a safetensors file; tensors in keep_f32 stay F32."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        kind = "F32" if name in keep_f32 else dtype
        data = _tensor_bytes(tensors[name], kind)
        if kind == "F16" and not np.all(np.isfinite(np.frombuffer(data, np.float16))):
            raise ValueError("tensor %s does not fit in F16 (values past 65504)" % name)
        header[name] = {"dtype": kind, "shape": list(tensors[name].shape),
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


class StagedDirectory:
    """Files are written to a fresh directory beside OUT_DIR, which replaces OUT_DIR only
    when everything is written: a failed conversion leaves no half model behind."""

    def __init__(self, out_dir, force):
        self.out_dir = os.path.abspath(out_dir)
        if os.path.exists(self.out_dir) and not force and os.listdir(self.out_dir):
            raise FileExistsError("%s exists and is not empty (--force replaces it)" % out_dir)
        parent = os.path.dirname(self.out_dir)
        os.makedirs(parent, exist_ok=True)
        self.path = tempfile.mkdtemp(prefix=".convert-", dir=parent)

    def file(self, name):
        return os.path.join(self.path, name)

    def commit(self):
        os.chmod(self.path, 0o755)
        if os.path.exists(self.out_dir):
            shutil.rmtree(self.out_dir)
        os.rename(self.path, self.out_dir)

    def abandon(self):
        shutil.rmtree(self.path, ignore_errors=True)
