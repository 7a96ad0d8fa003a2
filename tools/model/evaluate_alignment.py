#!/usr/bin/python3
"""Measures minimt's word alignments (--align) against gold links.

For every alignment rule, every decoder layer and the average over heads (and, with
--single-heads, each head alone) it runs minimt on DATA and compares the links with GOLD
(tools/model/corpus.py writes it: Pharaoh, `i-j` sure, `i?j` possible, one line per line of
DATA). The gold links belong to the reference translation, so by default minimt is made to
read the reference (forced alignment, teacher forcing):

    MINIMT score --model MODEL -q --align --align-rule R --align-layer L [--align-heads H]

with the lines ENGLISH<TAB>REFERENCE, and every sentence is scored. With --mode translate it
runs `MINIMT translate ... --align` on the English instead and scores only the sentences
translated exactly as the reference (their number is printed). Measures (A: minimt's links,
S: sure gold links, P: sure and possible):

  AER        1 - (|A∩S| + |A∩P|) / (|A| + |S|)        (Och & Ney 2003; lower is better)
  precision  |A∩P| / |A|
  recall     |A∩S| / |S|
  content    recall of the sure links of content words (nouns, adjectives, verbs, professions:
             toy_corpus.content_words())
  unlinked   the share of English content words minimt links to nothing

Usage: tools/model/evaluate_alignment.py [--minimt build/minimt] [--model models/en-fr]
           [--data tools/model/data/heldout.tsv] [--gold DATA with .align] [--rules R,...]
           [--layers 0,1,...] [--single-heads] [--mode forced|translate] [--limit N]
           [--json FILE] [--max-aer X]
--rules and --layers take `default` for minimt's own default (no option given).
Prints a Markdown table. Exit status 0 when the runs worked; --max-aer X makes it 1 when the
AER of any configuration measured is above X.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "model"))
import toy_corpus  # noqa: E402

RULES = ["best-source", "best-target", "intersection", "union", "grow-diag-final"]


def read_gold(path):
    """One (sure, possible) pair of sets of (source, target) per line; possible includes sure."""
    gold = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            sure, possible = set(), set()
            for item in line.split():
                sep = "-" if "-" in item else "?"
                link = tuple(int(x) for x in item.split(sep))
                possible.add(link)
                if sep == "-":
                    sure.add(link)
            gold.append((sure, possible))
    return gold


def parse_links(text):
    links = set()
    for item in text.split():
        i, j = item.split("-")
        links.add((int(i), int(j)))
    return links


def run_minimt(binary, model, pairs, rule, layer, heads, mode="forced"):
    """minimt's (translation, links) per pair for one configuration. Forced: `score` reads the
    reference, which is returned as the translation."""
    command = [binary, "score" if mode == "forced" else "translate", "--model", model, "-q",
               "--align"]
    if rule != "default":
        command += ["--align-rule", rule]
    if layer != "default":
        command += ["--align-layer", str(layer)]
    if heads != "avg":
        command += ["--align-heads", str(heads)]
    if mode == "forced":
        text = "".join(f"{e}\t{f}\n" for e, f in pairs)
    else:
        text = "".join(e + "\n" for e, _ in pairs)
    proc = subprocess.run(command, input=text.encode("utf-8"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit status {proc.returncode}\n"
                 f"{proc.stderr.decode('utf-8', 'replace')}")
    lines = proc.stdout.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(pairs):
        sys.exit(f"{binary} printed {len(lines)} lines for {len(pairs)} sentences")
    out = []
    for line, (_, reference) in zip(lines, pairs):
        first, _, links = line.partition("\t")
        out.append((reference if mode == "forced" else first, parse_links(links)))
    return out


def score(pairs, gold, output, content):
    """The measures over the sentences translated as their reference, and their indices."""
    a = s = a_s = a_p = content_sure = content_found = content_words = unlinked = 0
    scored = []
    for k, ((english, reference), (sure, possible), (translation, links)) in enumerate(
            zip(pairs, gold, output)):
        if translation != reference:
            continue
        scored.append(k)
        a += len(links)
        s += len(sure)
        a_s += len(links & sure)
        a_p += len(links & possible)
        words = [w.lower().rstrip(".") for w in english.split()]
        linked = {i for i, _ in links}
        for i, word in enumerate(words):
            if word not in content:
                continue
            content_words += 1
            unlinked += i not in linked
            mine = {link for link in sure if link[0] == i}
            content_sure += len(mine)
            content_found += len(mine & links)
    ratio = lambda x, y: x / y if y else float("nan")  # noqa: E731
    return {
        "sentences": len(scored),
        "aer": 1.0 - ratio(a_s + a_p, a + s),
        "precision": ratio(a_p, a),
        "recall": ratio(a_s, s),
        "content_recall": ratio(content_found, content_sure),
        "content_unlinked": ratio(unlinked, content_words),
        "links": a,
        "sure": s,
    }, scored


def configurations(args, layers, heads):
    rules = RULES if args.rules is None else args.rules.split(",")
    layer_list = list(range(layers)) if args.layers is None else [
        x if x == "default" else int(x) for x in args.layers.split(",")]
    head_list = ["avg"] + (list(range(heads)) if args.single_heads else [])
    return [(r, l, h) for r in rules for l in layer_list for h in head_list]


def percent(x):
    return f"{100 * x:.1f}%"


def table(results):
    lines = ["| rule | layer | heads | AER | precision | recall | content recall | content unlinked |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        heads = "mean" if r["heads"] == "avg" else r["heads"]
        lines.append(f"| {r['rule']} | {r['layer']} | {heads} | {percent(r['aer'])} | "
                     f"{percent(r['precision'])} | {percent(r['recall'])} | "
                     f"{percent(r['content_recall'])} | {percent(r['content_unlinked'])} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minimt", default=os.path.join(ROOT, "build", "minimt"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr"))
    ap.add_argument("--data", default=os.path.join(ROOT, "tools", "model", "data", "heldout.tsv"))
    ap.add_argument("--gold", help="gold links (default: DATA with .align)")
    ap.add_argument("--rules", help="comma-separated rules (default: all five; `default`: none given)")
    ap.add_argument("--layers", help="comma-separated decoder layers (default: all; `default`: none given)")
    ap.add_argument("--single-heads", action="store_true", help="also each head alone")
    ap.add_argument("--mode", choices=("forced", "translate"), default="forced",
                    help="forced: minimt score reads the reference (every sentence); translate: "
                         "minimt's own translation (only those equal to the reference)")
    ap.add_argument("--limit", type=int, help="only the first N sentences")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--max-aer", type=float, help="exit 1 if an AER (a fraction) is above this")
    args = ap.parse_args()

    pairs = toy_corpus.read_tsv(args.data)
    gold = read_gold(args.gold or toy_corpus.gold_path(args.data))
    if len(gold) != len(pairs):
        sys.exit(f"{len(gold)} gold lines for {len(pairs)} sentence pairs")
    if args.limit:
        pairs, gold = pairs[:args.limit], gold[:args.limit]
    with open(os.path.join(args.model, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    content = toy_corpus.content_words()
    results = []
    for rule, layer, heads in configurations(args, config["decoder_layers"], config["num_heads"]):
        output = run_minimt(args.minimt, args.model, pairs, rule, layer, heads, args.mode)
        measures, _ = score(pairs, gold, output, content)
        results.append({"rule": rule, "layer": layer, "heads": heads, **measures})
    counts = {r["sentences"] for r in results}
    how = ("forced alignment: minimt score reads the reference" if args.mode == "forced" else
           "those minimt translates exactly as the reference")
    print(f"scored: {'/'.join(map(str, sorted(counts)))} of {len(pairs)} sentences ({how})\n")
    print(table(results))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    if args.max_aer is not None:
        worst = max(r["aer"] for r in results)
        if not worst <= args.max_aer:
            print(f"AER {percent(worst)} is above the bound {percent(args.max_aer)}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
