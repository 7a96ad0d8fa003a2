#!/usr/bin/python3
"""A fast beam search in PyTorch, the benchmark's counterpart to `minimt translate --beam-size`.

  beam_fast.py --model DIR [--beam-size 4] [--length-penalty 0] [--batch-size 16]
               [--max-length 256] [--threads 1] [--timing]   < sentences

Written the way PyTorch translators (Hugging Face's generate, fairseq) run beams: inference
mode, a batch of sentences with beam_size rows each, preallocated K/V caches that follow
their beams through index_select, top-2N candidates per sentence by torch.topk, finished
hypotheses leaving the beam, the same stopping rule as minimt (docs/search.md). Prints one
JSON object per sentence ({"translation", "ids", "score"}); with --timing, the seconds spent
translating go to stderr as JSON. The search is pytorch_reference/search/batched_beam.py;
pytorch_reference/search/beam.py holds the plain, checked reference of the same search.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from pytorch_reference.search.batched_beam import beam_batch  # noqa: E402
from pytorch_reference.threads import set_threads  # noqa: E402
from pytorch_reference.translator import Translator, is_blank  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--beam-size", type=int, default=4)
    parser.add_argument("--length-penalty", type=float, default=0.0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--timing", action="store_true")
    args = parser.parse_args()
    set_threads(args.threads)
    translator = Translator(args.model, quiet=True)
    texts = sys.stdin.read().splitlines()
    started = time.perf_counter()
    max_length = translator.max_length(args.max_length)
    results = [None] * len(texts)
    order = sorted((i for i, t in enumerate(texts) if not is_blank(t)),
                   key=lambda i: len(translator.source_ids(texts[i])))
    model = translator.model.eval()
    with torch.inference_mode():
        for begin in range(0, len(order), args.batch_size):
            batch = order[begin:begin + args.batch_size]
            src, pad_mask = translator.padded([translator.source_ids(texts[i]) for i in batch])
            found = beam_batch(model, src, pad_mask if pad_mask.any() else None,
                               args.beam_size, max_length, args.length_penalty)
            for i, (_, ids, total) in zip(batch, found):
                results[i] = (ids, total)
    elapsed = time.perf_counter() - started
    for text, result in zip(texts, results):
        ids, total = result or ([], 0.0)
        print(json.dumps({"translation": translator.detokenize(ids), "ids": ids,
                          "score": total}, ensure_ascii=False))
    if args.timing:
        print(json.dumps({"translate_seconds": round(elapsed, 4), "sentences": len(texts)}),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
