#!/usr/bin/python3
"""Trains the two SentencePiece models (source.spm, target.spm) on a corpus TSV.

Special ids follow model format v1: pad 0, unk 1, bos 2, eos 3.  BPE models,
identity normalisation (so the C++ tokenizer needs no normalisation tables), full
character coverage (every French accent is a piece).  The vocabularies are nearly
word-level for this small lexicon; `hard_vocab_limit=false` lets SentencePiece stop
below the requested size.

Usage: tools/model/build_tokenizers.py --data DIR/train.tsv --out DIR [--src-vocab 800] [--tgt-vocab 1200]
"""
import argparse
import os
import sys
import tempfile

import sentencepiece as spm


def train_side(lines, prefix, vocab_size):
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
        for line in lines:
            f.write(line + "\n")
        text = f.name
    try:
        spm.SentencePieceTrainer.train(
            input=text, model_prefix=prefix, model_type="bpe", vocab_size=vocab_size,
            hard_vocab_limit=False, character_coverage=1.0,
            normalization_rule_name="identity",
            pad_id=0, unk_id=1, bos_id=2, eos_id=3,
            pad_piece="<pad>", unk_piece="<unk>", bos_piece="<s>", eos_piece="</s>",
            input_sentence_size=0, shuffle_input_sentence=False,
            num_threads=1, minloglevel=2)
    finally:
        os.unlink(text)
    # SentencePiece writes PREFIX.model and PREFIX.vocab; the format wants *.spm
    os.replace(prefix + ".model", prefix + ".spm")
    os.unlink(prefix + ".vocab")
    sp = spm.SentencePieceProcessor(model_file=prefix + ".spm")
    assert (sp.pad_id(), sp.unk_id(), sp.bos_id(), sp.eos_id()) == (0, 1, 2, 3)
    return sp.get_piece_size()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="train.tsv (english<TAB>french)")
    ap.add_argument("--out", required=True, help="directory for source.spm and target.spm")
    ap.add_argument("--src-vocab", type=int, default=800)
    ap.add_argument("--tgt-vocab", type=int, default=1200)
    args = ap.parse_args()
    src, tgt = [], []
    with open(args.data, encoding="utf-8") as f:
        for line in f:
            e, fr = line.rstrip("\n").split("\t")
            src.append(e)
            tgt.append(fr)
    os.makedirs(args.out, exist_ok=True)
    ns = train_side(src, os.path.join(args.out, "source"), args.src_vocab)
    nt = train_side(tgt, os.path.join(args.out, "target"), args.tgt_vocab)
    print(f"source.spm: {ns} pieces, target.spm: {nt} pieces, in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
