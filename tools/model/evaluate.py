#!/usr/bin/python3
"""Scores a model on the held-out set: exact match and chrF.

By default it runs the C++ engine once, `MINIMT translate --model MODEL -q`, with every
English sentence of DATA on stdin (one per line in, one translation per line out).
With --pytorch it decodes greedily with the PyTorch reference (tools/reference/pytorch_reference)
instead (no binary needed).

chrF is computed here: character n-grams of orders 1..6 with spaces removed, match
counts summed over the whole corpus per order, then the F-beta score (beta = 2) of each
order averaged over the orders (the corpus-level chrF of Popović 2015, as sacreBLEU's
default chrF).

Usage: tools/model/evaluate.py [--minimt build/minimt] [--model models/en-fr]
                         [--data tools/model/data/heldout.tsv] [--pytorch] [--errors 10]
Exit status 0 when the run worked (whatever the scores); --min-exact P makes it 1 below P%.
"""
import argparse
import os
import subprocess
import sys
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def char_ngrams(text, n):
    s = text.replace(" ", "")
    return Counter(s[i:i + n] for i in range(len(s) - n + 1))


def chrf(hyps, refs, max_order=6, beta=2.0):
    """Corpus-level chrF in [0, 100]."""
    match = [0] * max_order
    hyp_total = [0] * max_order
    ref_total = [0] * max_order
    for h, r in zip(hyps, refs):
        for n in range(1, max_order + 1):
            hc, rc = char_ngrams(h, n), char_ngrams(r, n)
            match[n - 1] += sum((hc & rc).values())
            hyp_total[n - 1] += sum(hc.values())
            ref_total[n - 1] += sum(rc.values())
    b2 = beta * beta
    score, orders = 0.0, 0
    for n in range(max_order):
        if hyp_total[n] == 0 or ref_total[n] == 0:
            continue
        orders += 1
        p = match[n] / hyp_total[n]
        r = match[n] / ref_total[n]
        if p + r > 0:
            score += (1 + b2) * p * r / (b2 * p + r)
    return 100.0 * score / orders if orders else 0.0


def translate_minimt(binary, model, sentences):
    text = "".join(s + "\n" for s in sentences)
    proc = subprocess.run([binary, "translate", "--model", model, "-q"], input=text.encode("utf-8"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit(f"{binary} exited with {proc.returncode}:\n{proc.stderr.decode('utf-8', 'replace')}")
    out = proc.stdout.decode("utf-8").split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(sentences):
        sys.exit(f"{binary} printed {len(out)} lines for {len(sentences)} sentences")
    return out


def translate_pytorch(model_dir, sentences, batch=200):
    import sentencepiece as spm
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tools", "reference"))
    from pytorch_reference.model.files import load_model
    from pytorch_reference.search.greedy import greedy
    torch.set_num_threads(2)
    model, config = load_model(model_dir)
    sp_src = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, config["tokenizer"]["source"]))
    sp_tgt = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, config["tokenizer"]["target"]))
    pad, eos = config["special_tokens"]["pad"], config["special_tokens"]["eos"]
    out = []
    for b in range(0, len(sentences), batch):
        ids = [s[:config["max_positions"] - 1] + [eos] for s in sp_src.encode(sentences[b:b + batch])]
        src = torch.full((len(ids), max(len(s) for s in ids)), pad, dtype=torch.long)
        for r, s in enumerate(ids):
            src[r, :len(s)] = torch.tensor(s)
        for res in greedy(model, src, 64, src_pad_mask=src.eq(pad)):
            out.append(sp_tgt.decode([t for t in res["ids"] if t != eos]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minimt", default=os.path.join(ROOT, "build", "minimt"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr"))
    ap.add_argument("--data", default=os.path.join(ROOT, "tools", "model", "data", "heldout.tsv"))
    ap.add_argument("--pytorch", action="store_true", help="decode with the PyTorch reference, not minimt")
    ap.add_argument("--errors", type=int, default=10, help="how many errors to show")
    ap.add_argument("--min-exact", type=float, help="exit 1 when exact match %% is below this")
    args = ap.parse_args()

    pairs = []
    with open(args.data, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                e, fr = line.split("\t")
                pairs.append((e, fr))
    sources = [e for e, _ in pairs]
    refs = [f for _, f in pairs]
    t0 = time.time()
    if args.pytorch:
        engine = "PyTorch (tools/reference/pytorch_reference greedy)"
        hyps = translate_pytorch(args.model, sources)
    else:
        engine = os.path.relpath(args.minimt, ROOT) if args.minimt.startswith(ROOT) else args.minimt
        hyps = translate_minimt(args.minimt, args.model, sources)
    seconds = time.time() - t0

    exact = sum(h == r for h, r in zip(hyps, refs))
    pct = 100.0 * exact / len(refs)
    forms = {}
    for (e, r), h in zip(pairs, hyps):
        form = "capitalised" if e.endswith(".") else "lower case"
        n, k = forms.get(form, (0, 0))
        forms[form] = (n + 1, k + (h == r))
    print(f"engine: {engine}; model: {args.model}; data: {args.data}")
    print(f"sentences: {len(refs)} ({', '.join(f'{k} {n}' for k, (n, _) in sorted(forms.items()))}); "
          f"{seconds:.1f} s")
    print(f"exact match: {exact}/{len(refs)} = {pct:.2f}%  "
          f"({'; '.join(f'{k} {100.0 * c / n:.2f}%' for k, (n, c) in sorted(forms.items()))})")
    print(f"chrF: {chrf(hyps, refs):.2f}")
    errors = [(e, h, r) for (e, r), h in zip(pairs, hyps) if h != r]
    for e, h, r in errors[:args.errors]:
        print(f"  {e}\n    got:  {h}\n    want: {r}")
    if args.min_exact is not None and pct < args.min_exact:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
