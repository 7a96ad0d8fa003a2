#!/usr/bin/python3
"""English-French sentence-pair generator for minimt's toy model.

A small grammar over a lexicon produces pairs whose French is correct French:

  SUBJECT VERB OBJECT            The black cat sees the small dog. -> Le chat noir voit le petit chien.
  SUBJECT be ADJECTIVE           She is happy. -> Elle est heureuse.
  SUBJECT be a NOUN (profession) I am a student. -> Je suis étudiant.

each also negated (does not / do not / is not / are not / am not -> ne ... pas).

French rules implemented: gender and number agreement of determiners, adjectives,
verbs and professions; adjective position (petit, grand, jeune, ... before the noun,
colours, heureux, ... after it); the pre-vowel forms vieil/bel/nouvel; elision of
le/la/je/ne/de before a vowel or mute h (not before an aspirate h: le hibou);
un/une -> de/d' after a negated verb; French drops the article before a profession
after être. English uses `an` before a vowel.

Every sentence exists in two surface forms: capitalised with a final full stop, and
all lower case without punctuation.

Gold word alignments (heldout.align, one line per line of heldout.tsv): the generator knows
which English word each French word translates.  Pharaoh format, English (source) index
first, words counted from 0 as split on white space (the full stop stays on the last word, as
minimt --align counts them); `i-j` is a sure link, `i?j` a possible one (Och & Ney: every sure
link is also possible).  Sure: determiners, adjectives, nouns, pronouns, the verb, be -> être,
not -> ne and not -> pas; an elided French word (l'homme, j'aime, n'est, d'oiseau) links to
the English words of both halves.  Possible: do/does -> the French verb, a verb's particle
(look *for*, listen *to*) -> the French verb, and `a` -> the profession it precedes (French
drops the article).  Nothing else is linked.

Usage:
  tools/model/corpus.py --out /var/tmp/minimt-train/data [--seed 1] [--train 200000]
      writes train.tsv, dev.tsv, heldout.tsv (english<TAB>french) and heldout.align into
      --out and copies heldout.tsv and heldout.align to tools/model/data/ (--heldout-copy
      PATH.tsv to change; the .align goes beside it).
  tools/model/corpus.py --gold-only     writes only tools/model/data/heldout.tsv and
      heldout.align (the held-out set is drawn first, so no training data is needed).
  tools/model/corpus.py --sample 20      prints a few random pairs
  tools/model/corpus.py --stats          prints lexicon sizes

Held-out and dev sentences never occur in training, in either surface form
(the comparison key is the lower-cased English without punctuation).  Training pairs
are distinct; a sentence may occur in training in both surface forms.
"""
import argparse
import os
import random
import sys

import toy_corpus as C


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="directory for train.tsv, dev.tsv, heldout.tsv")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train", type=int, default=200000, help="training pairs")
    ap.add_argument("--dev", type=int, default=500, help="dev pairs (monitoring during training)")
    ap.add_argument("--heldout", type=int, default=2000, help="held-out test pairs")
    ap.add_argument("--heldout-copy", default=os.path.join(here, "data", "heldout.tsv"),
                    help="where to copy heldout.tsv, heldout.align beside it ('' for nowhere)")
    ap.add_argument("--gold-only", action="store_true",
                    help="write only the held-out copy and its gold alignments, then exit")
    ap.add_argument("--sample", type=int, help="print N random pairs and exit")
    ap.add_argument("--stats", action="store_true", help="print lexicon sizes and exit")
    args = ap.parse_args()

    if args.stats:
        print(f"lexicon: {len(C.lexicon_words())} English lemmas; {len(C.NOUNS)} nouns, "
              f"{len(C.PROFESSIONS)} professions, {len(C.ADJECTIVES)} adjectives "
              f"({sum(a.position == 'pre' for a in C.ADJECTIVES)} before the noun), "
              f"{len(C.VERBS)} verbs, {len(C.PRONOUNS)} pronouns")
        return 0
    if args.sample:
        rng = random.Random(args.seed)
        for _ in range(args.sample):
            en, fr = C.random_pair(rng)
            e, f = C.surface(en, fr, "cap" if rng.random() < 0.5 else "low")
            print(f"{e}\t{f}")
        return 0
    if args.gold_only:
        if not args.heldout_copy:
            ap.error("--gold-only needs --heldout-copy")
        heldout = C.write_heldout(args.heldout_copy, args.seed, args.heldout)
        print(f"wrote {len(heldout)} held-out pairs to {args.heldout_copy} and their gold "
              f"alignments to {C.gold_path(args.heldout_copy)}")
        return 0
    if not args.out:
        ap.error("--out is required")
    os.makedirs(args.out, exist_ok=True)
    train, dev, heldout = C.generate(args.seed, args.train, args.dev, args.heldout)
    C.write_tsv(os.path.join(args.out, "train.tsv"), train)
    C.write_tsv(os.path.join(args.out, "dev.tsv"), dev)
    C.write_heldout(os.path.join(args.out, "heldout.tsv"), args.seed, args.heldout)
    if args.heldout_copy:
        C.write_heldout(args.heldout_copy, args.seed, args.heldout)
    print(f"wrote {len(train)} train, {len(dev)} dev, {len(heldout)} held-out pairs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
