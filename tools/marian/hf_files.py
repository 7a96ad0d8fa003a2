"""Reads a Hugging Face MarianMTModel directory: its JSON files and its weights.

Weights come from model.safetensors (tools/common/safetensors_file.py: numpy, no safetensors
package) or from pytorch_model.bin (torch.load with weights_only=True: tensors only, no
arbitrary pickles).
Every tensor is returned as a float32 numpy array; F16 and BF16 widen exactly.
"""
import json
import os

import safetensors_file
from errors import ConversionError


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


def read_safetensors(path):
    try:
        return safetensors_file.read_safetensors(path)
    except safetensors_file.SafetensorsError as e:
        raise ConversionError(e.path, e.what)


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
