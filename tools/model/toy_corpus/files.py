"""The corpus files: pairs as english<TAB>french lines, gold alignments as Pharaoh lines
(heldout.align beside heldout.tsv)."""
import os

from .alignment import to_pharaoh_gold
from .generation import heldout_with_gold


def write_gold(path, gold):
    with open(path, "w", encoding="utf-8") as f:
        for links in gold:
            f.write(to_pharaoh_gold(links) + "\n")


def gold_path(tsv_path):
    """heldout.tsv -> heldout.align, beside it."""
    return os.path.splitext(tsv_path)[0] + ".align"


def write_heldout(tsv_path, seed, n_heldout):
    heldout, gold = heldout_with_gold(seed, n_heldout)
    os.makedirs(os.path.dirname(os.path.abspath(tsv_path)), exist_ok=True)
    write_tsv(tsv_path, heldout)
    write_gold(gold_path(tsv_path), gold)
    return heldout


def write_tsv(path, pairs):
    with open(path, "w", encoding="utf-8") as f:
        for e, fr in pairs:
            f.write(f"{e}\t{fr}\n")


def read_tsv(path):
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                e, fr = line.split("\t")
                pairs.append((e, fr))
    return pairs
