"""A model directory of format v1 (docs/model-format.md): config.json and the weights, either a
safetensors file (tools/common/safetensors_file.py) or inline tensors in config.json.
Tokenizers are not written here: the caller provides source.spm / target.spm.

    save_model(model, config, out_dir, dtype="F32")      dtype: F32 | F16 | BF16 | inline
    load_model(model_dir) -> (model in eval mode, config dict)
    file_config(config) -> the subset of config that belongs in config.json
    inside(model_dir, rel) -> path; ValueError for a path that leaves the directory
"""
import json
import os
import sys

import torch

import safetensors_file

from .config import FORMAT_KEYS
from .transformer import MinimtTransformer

DTYPE_TORCH = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
DTYPE_SIZE = {"F32": 4, "F16": 2, "BF16": 2}
# The producer the safetensors metadata names: the shipped model's file says the same (this
# module's name before tools/reference became a package), so files stay byte for byte.
PRODUCER = "minimt_model.py"


def write_safetensors(path, tensors, dtype="F32", metadata=None):
    """{name: tensor} -> a safetensors file of dtype (rounded to nearest even)."""
    arrays = {name: t.detach().cpu().float().numpy() for name, t in tensors.items()}
    safetensors_file.write_safetensors(path, arrays, dtype, metadata=metadata)


def read_safetensors(path):
    """A safetensors file of F32, F16 or BF16 tensors -> {name: float32 tensor}."""
    arrays = safetensors_file.read_safetensors(path, dtypes=tuple(DTYPE_TORCH))
    return {name: torch.from_numpy(a) for name, a in arrays.items()}


def _float_list(t):
    """Row-major values as Python floats; float32 values print exactly through repr."""
    return [float(v) for v in t.detach().float().reshape(-1).tolist()]


def file_config(config):
    """The subset of config that belongs in config.json."""
    out = {k: config[k] for k in FORMAT_KEYS if k in config}
    dropped = sorted(set(config) - set(FORMAT_KEYS) - {"final_logits_bias"})
    if dropped:
        print("save_model: not writing non-format config keys: %s" % ", ".join(dropped),
              file=sys.stderr)
    return out


def save_model(model, config, out_dir, dtype="F32"):
    """Write config.json and the weights (model.safetensors, or inline if dtype == "inline")."""
    if dtype not in ("F32", "F16", "BF16", "inline"):
        raise ValueError("dtype must be F32, F16, BF16 or inline, not %r" % dtype)
    os.makedirs(out_dir, exist_ok=True)
    config = file_config(config)
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    if dtype == "inline":
        config["weights"] = {name: {"shape": list(t.shape), "data": _float_list(t)}
                             for name, t in sorted(state.items())}
    else:
        weights = config.get("weights")
        if not isinstance(weights, str):
            weights = "model.safetensors"
        config["weights"] = weights
        write_safetensors(os.path.join(out_dir, weights), state, dtype,
                          metadata={"format": "pt", "producer": PRODUCER})
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1 if dtype != "inline" else None)
        f.write("\n")


def inside(model_dir, rel):
    if os.path.isabs(rel) or ".." in rel.replace("\\", "/").split("/"):
        raise ValueError("path %r must stay inside the model directory" % rel)
    return os.path.join(model_dir, rel)


def load_model(model_dir):
    """Read config.json + weights -> (model in eval mode, config dict)."""
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    weights = config["weights"]
    if isinstance(weights, str):
        tensors = read_safetensors(inside(model_dir, weights))
    else:
        tensors = {name: torch.tensor(info["data"], dtype=torch.float32).reshape(info["shape"])
                   for name, info in weights.items()}
    model = MinimtTransformer(config, final_logits_bias="final_logits_bias" in tensors)
    expected = model.state_dict()
    for name in tensors:
        if name not in expected:
            raise ValueError("unexpected tensor %s" % name)
    for name, t in expected.items():
        if name not in tensors:
            raise ValueError("missing tensor %s" % name)
        if tuple(tensors[name].shape) != tuple(t.shape):
            raise ValueError("tensor %s has shape %s, expected %s"
                             % (name, list(tensors[name].shape), list(t.shape)))
    model.load_state_dict(tensors, strict=True)
    model.eval()
    if "final_logits_bias" in tensors:
        config["final_logits_bias"] = True  # in-memory flag, so save_model round-trips
    return model, config
