#!/usr/bin/python3
"""A fast beam search in PyTorch, the benchmark's counterpart to `minimt translate --beam-size`.

  beam_fast.py --model DIR [--beam-size 4] [--length-penalty 0] [--batch-size 16]
               [--max-length 256] [--threads 1] [--timing]   < sentences

Written the way PyTorch translators (Hugging Face's generate, fairseq) run beams: inference
mode, a batch of sentences with beam_size rows each, preallocated K/V caches that follow
their beams through index_select, top-2N candidates per sentence by torch.topk, finished
hypotheses leaving the beam, the same stopping rule as minimt (docs/search.md). Prints one
JSON object per sentence ({"translation", "ids", "score"}); with --timing, the seconds spent
translating go to stderr as JSON. tools/reference/reference.py holds the plain, checked
reference of the same search; this file is about speed.
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import reference  # noqa: E402


def best_reachable(total, length, max_length, penalty):
    if penalty > 0:
        return total / max_length ** penalty
    if penalty < 0:
        return total / (length + 1) ** penalty
    return total


def beam_batch(model, src, pad_mask, beam, max_length, penalty):
    """Best hypothesis (ids, summed log-prob) of every sentence of the batch src [B, S]."""
    b = src.shape[0]
    enc_out = model.encode(src, pad_mask)
    state = model.start_decoding(enc_out, pad_mask, max_length)
    eos, start = model.eos, model.decoder_start
    live = [(i, [], 0.0) for i in range(b)]            # (sentence, ids, summed log-prob)
    finished = [[] for _ in range(b)]                  # (ranking score, ids, sum)
    tokens = torch.full((b, 1), start, dtype=torch.long)
    while live:
        logp = torch.log_softmax(model.decode_step(tokens, state).float(), dim=-1)  # [R, V]
        next_live, parents = [], []
        row = 0
        while row < len(live):
            sentence = live[row][0]
            end = row
            while end < len(live) and live[end][0] == sentence:
                end += 1
            sums = torch.tensor([live[r][2] for r in range(row, end)], dtype=torch.float64)
            scores = (sums[:, None] + logp[row:end].double()).flatten()
            top = torch.topk(scores, min(2 * beam, scores.numel()))
            vocab = logp.shape[1]
            kept, first = 0, len(next_live)
            for rank, (value, index) in enumerate(zip(top.values.tolist(), top.indices.tolist())):
                parent, token = row + index // vocab, index % vocab
                ids = live[parent][1] + [token]
                if token == eos:
                    if rank < beam:
                        finished[sentence].append((value / len(ids) ** penalty, ids, value))
                    continue
                if kept == beam:
                    break
                kept += 1
                next_live.append((sentence, ids, value))
                parents.append(parent)
            length = len(live[row][1]) + 1
            done = finished[sentence]
            if length >= max_length:
                for s, ids, value in next_live[first:]:
                    done.append((value / len(ids) ** penalty, ids, value))
                del next_live[first:], parents[first:]
            elif len(done) >= beam and next_live[first:]:
                worst = sorted((d[0] for d in done), reverse=True)[beam - 1]
                best = max(v for _, _, v in next_live[first:])
                if best_reachable(best, length, max_length, penalty) <= worst:
                    del next_live[first:], parents[first:]
            row = end
        if not next_live:
            break
        state.select(torch.tensor(parents, dtype=torch.long))  # caches follow their beams
        live = next_live
        tokens = torch.tensor([[ids[-1]] for _, ids, _ in live], dtype=torch.long)
    return [max(done, key=lambda d: d[0]) if done else (0.0, [], 0.0) for done in finished]


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
    reference.set_threads(args.threads)
    translator = reference.Translator(args.model, quiet=True)
    texts = sys.stdin.read().splitlines()
    started = time.perf_counter()
    max_length = translator.max_length(args.max_length)
    results = [None] * len(texts)
    order = sorted((i for i, t in enumerate(texts) if not reference.is_blank(t)),
                   key=lambda i: len(translator.source_ids(texts[i])))
    model = translator.model.eval()
    with torch.inference_mode():
        for begin in range(0, len(order), args.batch_size):
            batch = order[begin:begin + args.batch_size]
            src, pad_mask = translator._padded([translator.source_ids(texts[i]) for i in batch])
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
