#!/usr/bin/python3
"""Exports a training checkpoint (tools/model/train.py) to a model directory of format v1.

Writes OUT/config.json and OUT/model.safetensors with the PyTorch reference's save_model
(tools/reference/pytorch_reference/model/files.py), copies WORKDIR/data/source.spm and
target.spm to OUT, and checks that the config's vocabulary sizes and special tokens agree with
the tokenizers, then reloads the result.

Usage: tools/model/export_model.py [--workdir /var/tmp/minimt-train] [--out models/en-fr] [--dtype F32]
"""
import argparse
import os
import shutil
import sys

import sentencepiece as spm
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from pytorch_reference.model.files import load_model, save_model  # noqa: E402
from pytorch_reference.model.transformer import MinimtTransformer  # noqa: E402


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", default="/var/tmp/minimt-train")
    ap.add_argument("--checkpoint", help="default WORKDIR/checkpoint.pt")
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "models", "en-fr"))
    ap.add_argument("--dtype", default="F32", choices=["F32", "F16", "BF16"])
    args = ap.parse_args()

    ckpt = torch.load(args.checkpoint or os.path.join(args.workdir, "checkpoint.pt"))
    config = dict(ckpt["config"])
    model = MinimtTransformer(config)
    model.load_state_dict(ckpt["model"])
    model.eval()

    data = os.path.join(args.workdir, "data")
    sp = {}
    for side in ("source", "target"):
        sp[side] = spm.SentencePieceProcessor(model_file=os.path.join(data, side + ".spm"))
    if config["source_vocab_size"] != sp["source"].get_piece_size():
        sys.exit("source vocabulary size differs from source.spm")
    if config["target_vocab_size"] != sp["target"].get_piece_size():
        sys.exit("target vocabulary size differs from target.spm")
    for name, want in config["special_tokens"].items():
        for side in ("source", "target"):
            got = getattr(sp[side], name + "_id")()
            if got != want:
                sys.exit(f"{side}.spm has {name} id {got}, config says {want}")
    config["tokenizer"] = {"source": "source.spm", "target": "target.spm"}
    config["weights"] = "model.safetensors"

    os.makedirs(args.out, exist_ok=True)
    save_model(model, config, args.out, dtype=args.dtype)
    for side in ("source", "target"):
        shutil.copyfile(os.path.join(data, side + ".spm"), os.path.join(args.out, side + ".spm"))

    # reload: names, shapes and values must survive the round trip
    loaded, _ = load_model(args.out)
    with torch.no_grad():
        diff = max(float((a - b).abs().max()) for a, b in
                   zip(model.state_dict().values(), loaded.state_dict().values()))
    size = sum(os.path.getsize(os.path.join(args.out, f)) for f in os.listdir(args.out)
               if os.path.isfile(os.path.join(args.out, f)))
    n_params = sum(p.numel() for p in model.parameters())
    print(f"exported step {ckpt['step']} to {args.out}: {n_params} parameters, {args.dtype}, "
          f"{size / 1e6:.2f} MB in the directory; max reload difference {diff:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
