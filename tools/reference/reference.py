#!/usr/bin/python3
"""Reference implementation of minimt in PyTorch: the command line of pytorch_reference.

  reference.py translate --model DIR [--max-length N] [--dump-attention FILE]
                         [--batch-size N] [--threads N] [--jsonl] [--mask-heads SPEC] [TEXT ...]
  reference.py beam --model DIR [--beam-size 4] [--n-best K] [--length-penalty A]
                    [--max-length N] [--prefix TEXT] [--mask-heads SPEC] [TEXT ...]
  reference.py score --model DIR [-i FILE] [--dump-attention FILE] [--mask-heads SPEC]
                     [SOURCE TARGET ...]
  reference.py distribution --model DIR [--temperature T] [--top-k K] [--top-p P]
                            [--prefix TEXT] TEXT
  reference.py random-model OUT_DIR [--seed N] [--d-model 16] [--heads 2] ...
  reference.py bench-steps --model DIR [--batch 1] [--steps 64] [--threads 1]

translate prints one translation per line (stdin lines when no TEXT is given) and can
write the attention dump that the C++ engine also writes, so the two can be compared.
Without --dump-attention it runs the fast path: sentences sorted by length into batches,
inference mode, preallocated K/V caches, finished sentences leaving the batch.
beam runs the beam search of pytorch_reference/search/beam.py (no cache, one sentence at a
time) and prints one JSON object per input: the best hypothesis's translation, tokens
(pieces, eos excluded), ids (eos included if produced), token_log_probs (natural log, eos
included), score (their sum), ranking_score, and with --n-best the K best as "n_best".
--prefix forces the start of every translation (its target-tokenizer ids follow the start
token).
score scores given translations by teacher forcing (lines source<TAB>target from -i FILE or
stdin, or SOURCE TARGET argument pairs): the target's ids plus eos, fed as start + ids[:-1]
in one causal pass; one JSON object per pair (line, source, target, tokens incl. eos,
token_log_probs, score), and --dump-attention writes the attention dump of those passes.
distribution prints the probabilities `minimt translate --sample` draws the first generated
token from (after the prefix), most likely first, with temperature, top-k and top-p applied.
random-model writes a complete model directory (config, weights, tokenizers) with
seeded random weights, for tests; a --vocab above 1000 trains the tokenizers on a seeded
synthetic corpus large enough to give that many pieces.
--mask-heads SPEC switches heads off as Hugging Face's head_mask with value 0 (the syntax of
minimt's option, pytorch_reference/head_mask_spec.py; a bad SPEC exits 2): a masked head's
weights are multiplied by 0 in every pass, and the attention dump records the weights after
masking and lists the masked heads as "masked_heads".
bench-steps measures cached decoder steps/s as tools/bench/minimt_bench.cpp does for the
C++ engine (same sources, same loop, median of 5) and prints one JSON object.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from pytorch_reference.attention_dump import attention_dump  # noqa: E402
from pytorch_reference.random_model import write_random_model  # noqa: E402
from pytorch_reference.step_timing import measure_steps  # noqa: E402
from pytorch_reference.threads import set_threads  # noqa: E402
from pytorch_reference.translator import Translator  # noqa: E402


# ----------------------------------------------------------------------------- commands

def apply_mask_heads(translator, spec, command):
    """--mask-heads of a command: a wrong SPEC is a usage error (status 2, as minimt's)."""
    if spec is None:
        return
    try:
        translator.mask_heads(spec)
    except ValueError as e:
        print("reference.py %s: --mask-heads: %s" % (command, e), file=sys.stderr)
        raise SystemExit(2)


def read_inputs(texts):
    if texts:
        return list(texts)
    return [line.rstrip("\r\n") for line in sys.stdin]


def cmd_translate(args):
    started, started_cpu = time.perf_counter(), time.process_time()
    if args.threads:
        set_threads(args.threads)
    translator = Translator(args.model, skip_blank=args.skip_blank)
    apply_mask_heads(translator, args.mask_heads, "translate")
    loaded, loaded_cpu = time.perf_counter(), time.process_time()
    texts = read_inputs(args.text)
    record = bool(args.dump_attention)
    results = translator.translate(texts, args.max_length, args.batch_size, record) if texts else []
    translated, translated_cpu = time.perf_counter(), time.process_time()
    if args.timing:
        # Seconds since this function started: after the imports, so the torch import is not
        # in it (the caller times the whole process).
        print(json.dumps({"load_seconds": round(loaded - started, 4),
                          "translate_seconds": round(translated - loaded, 4),
                          "load_cpu_seconds": round(loaded_cpu - started_cpu, 4),
                          "translate_cpu_seconds": round(translated_cpu - loaded_cpu, 4),
                          "sentences": len(results),
                          "generated_tokens": sum(len(r["ids"]) for r in results),
                          "threads": torch.get_num_threads()}), file=sys.stderr)
    out = sys.stdout
    for res in results:
        if args.jsonl:
            target_ids = res["ids"]
            out.write(json.dumps({
                "source": res["source"], "translation": res["translation"],
                "source_ids": res["source_ids"], "ids": target_ids,
                "tokens": [translator.target_sp.id_to_piece(i) for i in target_ids],
                "scores": res["scores"], "score": sum(res["scores"]),
            }, ensure_ascii=False) + "\n")
        else:
            out.write(res["translation"] + "\n")
    if record:
        with open(args.dump_attention, "w", encoding="utf-8") as f:
            json.dump(attention_dump(translator, results), f, ensure_ascii=False)
            f.write("\n")
    return 0


# ----------------------------------------------------------------------------- beam, score

def hypothesis_json(hyp, length_penalty):
    out = {"translation": hyp["translation"], "tokens": hyp["tokens"], "ids": hyp["ids"],
           "token_log_probs": hyp["token_log_probs"], "score": hyp["score"]}
    if length_penalty != 0:
        out["ranking_score"] = hyp["ranking_score"]
    return out


def cmd_beam(args):
    if args.threads:
        set_threads(args.threads)
    translator = Translator(args.model, skip_blank=args.skip_blank)
    apply_mask_heads(translator, args.mask_heads, "beam")
    texts = read_inputs(args.text)
    n_best = args.n_best or 1
    results = translator.beam(texts, args.beam_size, n_best, args.length_penalty,
                              args.max_length, [args.prefix] * len(texts) if args.prefix else None)
    for line, res in enumerate(results, 1):
        best = res["hypotheses"][0]
        record = {"line": line, "source": res["source"]}
        record.update(hypothesis_json(best, args.length_penalty))
        if args.n_best:
            record["n_best"] = [hypothesis_json(h, args.length_penalty)
                                for h in res["hypotheses"]]
        print(json.dumps(record, ensure_ascii=False))
    return 0


def score_pairs(args):
    """(line number, source, target or None when the line has no tab)."""
    if args.pairs:
        if len(args.pairs) % 2:
            raise SystemExit("reference.py score: SOURCE TARGET arguments come in pairs")
        return [(n + 1, args.pairs[2 * n], args.pairs[2 * n + 1])
                for n in range(len(args.pairs) // 2)]
    stream = open(args.input, encoding="utf-8") if args.input else sys.stdin
    pairs = []
    for n, line in enumerate(stream, 1):
        line = line.rstrip("\r\n")
        source, tab, target = line.partition("\t")
        pairs.append((n, source, target if tab else None))
    return pairs


def cmd_score(args):
    if args.threads:
        set_threads(args.threads)
    translator = Translator(args.model)
    apply_mask_heads(translator, args.mask_heads, "score")
    record = bool(args.dump_attention)
    results, status = [], 0
    for line, source, target in score_pairs(args):
        if target is None:
            print(json.dumps({"line": line, "error": "no tab between source and target"}))
            status = 1
            continue
        try:
            res = translator.score(source, target, record)
        except ValueError as e:
            print(json.dumps({"line": line, "error": str(e)}))
            status = 1
            continue
        results.append(res)
        print(json.dumps({"line": line, "source": source, "target": target,
                          "tokens": res["tokens"], "token_log_probs": res["token_log_probs"],
                          "score": res["score"]}, ensure_ascii=False))
    if record:
        with open(args.dump_attention, "w", encoding="utf-8") as f:
            json.dump(attention_dump(translator, results), f, ensure_ascii=False)
            f.write("\n")
    return status


def cmd_distribution(args):
    translator = Translator(args.model)
    probs = translator.next_distribution(args.text, args.temperature, args.top_k, args.top_p,
                                         args.prefix)
    order = sorted(range(len(probs)), key=lambda i: (-float(probs[i]), i))
    print(json.dumps({"source": args.text, "prefix": args.prefix or "",
                      "distribution": [{"id": i, "piece": translator.target_sp.id_to_piece(i),
                                        "p": float(probs[i])}
                                       for i in order if probs[i] > 0]}, ensure_ascii=False))
    return 0


def cmd_random_model(args):
    write_random_model(
        args.out_dir, seed=args.seed, vocab=args.vocab, target_vocab=args.target_vocab,
        dtype=args.dtype, final_logits_bias=args.final_logits_bias, eos_boost=args.eos_boost,
        decoder_start=args.decoder_start, d_model=args.d_model, num_heads=args.heads,
        head_dim=args.head_dim, d_ff=args.d_ff, encoder_layers=args.encoder_layers,
        decoder_layers=args.decoder_layers, activation=args.activation,
        norm_position=args.norm, layer_norm_eps=args.eps, max_positions=args.max_positions,
        positions=args.positions, scale_embeddings=args.scale_embeddings, tie_output=args.tie)
    return 0


def cmd_bench_steps(args):
    print(json.dumps(measure_steps(args.model, args.batch, args.steps, args.threads,
                                   args.repeats)))
    return 0


# ----------------------------------------------------------------------------- main

def add_mask_heads(parser):
    parser.add_argument("--mask-heads", metavar="SPEC",
                        help="switch heads off: TYPE:LAYER:HEAD,... (TYPE encoder, decoder or "
                             "cross; LAYER, HEAD numbers, negative from the end, or *)")


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    tr = sub.add_parser("translate", help="translate TEXT arguments or stdin lines")
    tr.add_argument("--model", required=True, help="model directory")
    tr.add_argument("--max-length", type=int, default=256,
                    help="most tokens generated, eos included (capped at max_positions)")
    tr.add_argument("--dump-attention", metavar="FILE", help="write attention weights as JSON")
    tr.add_argument("--batch-size", type=int, default=16)
    tr.add_argument("--threads", type=int, default=0,
                    help="torch and OpenBLAS threads (0: leave as is)")
    tr.add_argument("--jsonl", action="store_true",
                    help="print one JSON object per sentence (ids, tokens, log-prob scores)")
    tr.add_argument("--skip-blank", action="store_true",
                    help="blank inputs are not searched: the empty output (eos), scored")
    tr.add_argument("--timing", action="store_true",
                    help="print load and translation seconds as JSON on stderr")
    add_mask_heads(tr)
    tr.add_argument("text", nargs="*")
    tr.set_defaults(func=cmd_translate)

    bm = sub.add_parser("beam", help="beam search of TEXT arguments or stdin lines (JSON Lines)")
    bm.add_argument("--model", required=True, help="model directory")
    bm.add_argument("--beam-size", type=int, default=4)
    bm.add_argument("--n-best", type=int, default=None,
                    help="also print the K best hypotheses as n_best (K <= beam size)")
    bm.add_argument("--length-penalty", type=float, default=0.0,
                    help="ranking score = sum of log-probs / length^A (length counts eos)")
    bm.add_argument("--max-length", type=int, default=256,
                    help="most tokens generated, eos and prefix included (capped at max_positions)")
    bm.add_argument("--prefix", help="force the start of every translation")
    bm.add_argument("--threads", type=int, default=0)
    bm.add_argument("--skip-blank", action="store_true",
                    help="blank inputs give one hypothesis, the empty output (eos), scored")
    add_mask_heads(bm)
    bm.add_argument("text", nargs="*")
    bm.set_defaults(func=cmd_beam)

    sc = sub.add_parser("score", help="teacher-forced log-probabilities of given translations")
    sc.add_argument("--model", required=True, help="model directory")
    sc.add_argument("-i", "--input", help="file of source<TAB>target lines (default: stdin)")
    sc.add_argument("--dump-attention", metavar="FILE", help="write attention weights as JSON")
    sc.add_argument("--threads", type=int, default=0)
    add_mask_heads(sc)
    sc.add_argument("pairs", nargs="*", metavar="SOURCE TARGET")
    sc.set_defaults(func=cmd_score)

    ds = sub.add_parser("distribution", help="the first sampled token's distribution")
    ds.add_argument("--model", required=True, help="model directory")
    ds.add_argument("--temperature", type=float, default=1.0)
    ds.add_argument("--top-k", type=int, default=0, help="0: all tokens")
    ds.add_argument("--top-p", type=float, default=1.0)
    ds.add_argument("--prefix", help="forced start of the translation")
    ds.add_argument("text")
    ds.set_defaults(func=cmd_distribution)

    bs = sub.add_parser("bench-steps", help="decoder steps/s, as minimt_bench steps")
    bs.add_argument("--model", required=True, help="model directory")
    bs.add_argument("--batch", type=int, default=1)
    bs.add_argument("--steps", type=int, default=64)
    bs.add_argument("--threads", type=int, default=1)
    bs.add_argument("--repeats", type=int, default=5)
    bs.set_defaults(func=cmd_bench_steps)

    rm = sub.add_parser("random-model", help="write a model directory with random weights")
    rm.add_argument("out_dir")
    rm.add_argument("--seed", type=int, default=0)
    rm.add_argument("--d-model", type=int, default=16)
    rm.add_argument("--heads", type=int, default=2)
    rm.add_argument("--head-dim", type=int, default=None)
    rm.add_argument("--d-ff", type=int, default=32)
    rm.add_argument("--encoder-layers", type=int, default=2)
    rm.add_argument("--decoder-layers", type=int, default=2)
    rm.add_argument("--norm", choices=["post", "pre"], default="post")
    rm.add_argument("--positions", choices=["sinusoidal", "learned"], default="sinusoidal")
    rm.add_argument("--activation", choices=["relu", "gelu", "silu"], default="relu")
    rm.add_argument("--tie", dest="tie", action="store_true", default=True)
    rm.add_argument("--no-tie", dest="tie", action="store_false")
    rm.add_argument("--final-logits-bias", action="store_true")
    rm.add_argument("--eos-boost", type=float, default=0.0,
                    help="added to final_logits_bias[eos] so sentences end early")
    rm.add_argument("--dtype", choices=["F32", "F16", "BF16", "inline"], default="F32")
    rm.add_argument("--scale-embeddings", dest="scale_embeddings", action="store_true",
                    default=True)
    rm.add_argument("--no-scale-embeddings", dest="scale_embeddings", action="store_false")
    rm.add_argument("--vocab", type=int, default=100, help="requested SentencePiece vocabulary")
    rm.add_argument("--target-vocab", type=int, default=None)
    rm.add_argument("--max-positions", type=int, default=32)
    rm.add_argument("--eps", type=float, default=1e-5, help="layer_norm_eps")
    rm.add_argument("--decoder-start", type=int, default=None, help="decoder_start_token")
    rm.set_defaults(func=cmd_random_model)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
