"""The files of a Hugging Face Marian directory: JSON files (absent ones give a default) and the
state dict, from model.safetensors (preferred, as transformers does) or pytorch_model.bin."""
import json
import os

import torch

import safetensors_file


def read_json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_state_dict(hf_dir):
    """-> {name: float32 tensor}."""
    path = os.path.join(hf_dir, "model.safetensors")
    if not os.path.exists(path):
        state = torch.load(os.path.join(hf_dir, "pytorch_model.bin"), map_location="cpu",
                           weights_only=True)
        return {k: v.float() for k, v in state.items()}
    return {name: torch.from_numpy(values)
            for name, values in safetensors_file.read_safetensors(path).items()}
