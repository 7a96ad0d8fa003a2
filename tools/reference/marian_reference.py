#!/usr/bin/python3
"""The Marian reference's command line: Hugging Face's MarianMTModel and MarianTokenizer in
PyTorch (pytorch_reference/marian), on a Hugging Face model directory as it is.

  marian_reference.py translate HF_DIR [--max-length N] TEXT...   -> one JSON line per text

Greedy search as transformers' generate(num_beams=1, do_sample=False) does it, with the
model's single-token bad_words_ids set to -inf before the arg-max; generation stops after N new
tokens, as minimt's --max-length N does.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from pytorch_reference.marian.model import translate  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("translate")
    tr.add_argument("hf_dir")
    tr.add_argument("--max-length", type=int, default=32)
    tr.add_argument("texts", nargs="+")
    args = ap.parse_args()
    torch.set_num_threads(1)
    for result in translate(args.hf_dir, args.texts, args.max_length):
        print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
