"""Reads a Hugging Face model directory: its JSON files, SentencePiece models and weights,
each through tools/common/input_files.py (regular files inside the folder, each kind of file
capped in size, strict JSON).

Weights come from model.safetensors (tools/common/safetensors_file.py: numpy, no safetensors
package) or from pytorch_model.bin (torch.load with weights_only=True: tensors only, no
arbitrary pickles; a zip checkpoint must store its entries uncompressed within the file's size).
Every tensor is returned as a float32 numpy array; F16 and BF16 widen exactly.
"""
import os
import zipfile

import input_files
import safetensors_file
from errors import ConversionError

_folders = {}
_bytes = {}


def folder(hf_dir):
    """The InputFolder of hf_dir (one per directory: its real path is taken once)."""
    if hf_dir not in _folders:
        _folders[hf_dir] = input_files.InputFolder(hf_dir)
    return _folders[hf_dir]


def present(path):
    """True when the file is there as anything: reading it refuses what is not a regular file
    inside the folder, rather than calling it missing."""
    return folder(os.path.dirname(path)).present(os.path.basename(path))


def read_bytes(path, kind):
    """The file's bytes, read once (a tokenizer model is parsed and then checked: both see
    the same bytes)."""
    if path not in _bytes:
        _bytes[path] = folder(os.path.dirname(path)).read(os.path.basename(path), kind)
    return _bytes[path]


def read_json(path, required=True, kind="config"):
    if not present(path):
        if required:
            raise ConversionError(path, "is missing")
        return None
    return input_files.parse_json(path, read_bytes(path, kind))


def read_safetensors(path):
    f, size = folder(os.path.dirname(path)).open(os.path.basename(path), "weights")
    with f:
        return safetensors_file.read_safetensors_file(f, path, size)


def _check_zip(f, path, size):
    """A zip checkpoint's entries must be stored uncompressed and fit in the file: what
    torch.load unpacks is then bounded by the file's size."""
    try:
        with zipfile.ZipFile(f) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as e:
        raise ConversionError(path, "is not a readable zip archive (%s)" % e)
    total = 0
    for entry in entries:
        if entry.compress_type != zipfile.ZIP_STORED:
            raise ConversionError(path, "entry %s is compressed; torch.save stores entries "
                                        "uncompressed" % entry.filename)
        total += entry.file_size
    if total > size:
        raise ConversionError(path, "entries claim %d bytes, more than the file's %d"
                              % (total, size))
    f.seek(0)


def read_pytorch_bin(path):
    f, size = folder(os.path.dirname(path)).open(os.path.basename(path), "weights")
    with f:
        if zipfile.is_zipfile(f):
            _check_zip(f, path, size)
        f.seek(0)
        import torch  # only .bin checkpoints need PyTorch
        try:
            state = torch.load(f, map_location="cpu", weights_only=True)
        except Exception as e:  # torch raises many kinds for a bad pickle
            raise ConversionError(path, "cannot be read as a PyTorch state dict (%s: %s)"
                                  % (type(e).__name__, str(e).strip().split("\n")[0][:300]))
    if not isinstance(state, dict):
        raise ConversionError(path, "does not hold a state dict")
    tensors = {}
    for name, value in state.items():
        if not isinstance(name, str):
            raise ConversionError(path, "entry %r is not named by a string" % (name,))
        if not torch.is_tensor(value) or not value.is_floating_point():
            raise ConversionError(path, "entry %s is not a floating-point tensor" % name)
        tensors[name] = value.detach().to(torch.float32).numpy()
    return tensors


def read_weights(hf_dir):
    """-> (path, {name: float32 array}); prefers model.safetensors, as transformers does."""
    safetensors = os.path.join(hf_dir, "model.safetensors")
    binary = os.path.join(hf_dir, "pytorch_model.bin")
    if present(safetensors):
        return safetensors, read_safetensors(safetensors)
    if present(binary):
        return binary, read_pytorch_bin(binary)
    for name in ("model.safetensors.index.json", "pytorch_model.bin.index.json", "tf_model.h5",
                 "flax_model.msgpack"):
        if present(os.path.join(hf_dir, name)):
            raise ConversionError(os.path.join(hf_dir, name),
                                  "is not read by the converter: it reads one model.safetensors "
                                  "or pytorch_model.bin (PyTorch weights)")
    raise ConversionError(hf_dir, "has neither model.safetensors nor pytorch_model.bin")
