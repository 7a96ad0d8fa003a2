#!/usr/bin/python3
"""minimt's default word alignment on the shipped model against the generator's gold links.

  test_alignment_gold.py --minimt MINIMT_BINARY

Checks, with `translate --align` and no --align-rule (the default rule):
  - the elision examples of issue 16 ("I like the bird.", "The man does not see the white
    house.", "He is not happy.", lower-case forms too): the translation, every sure gold link
    present (so both English words of j'aime, l'homme, n'est, l'oiseau), no content word
    unlinked;
  - the default is the union rule, the one with the lowest AER in docs/attention-view.md;
  - the AER of the default on the 2,000 held-out sentences of tools/model/data/heldout.align,
    forced (`minimt score --align` reads the reference the gold links belong to), is at most
    MAX_AER (measured 1.07%); best-source, the old default, is above it (2.5%), so the bound
    tells the rules apart; `translate --align` on the sentences it translates as the
    reference (at least 1,990) is under the bound too;
  - tools/model/evaluate_alignment.py's command line on a subset (its table and --max-aer).
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

MAX_AER = 0.015  # union, last layer, head mean: 1.07% measured (docs/attention-view.md)


def main():
    minimt, root, model = support.minimt_path(__doc__), support.ROOT, support.SHIPPED
    support.use_tools("model")
    import toy_corpus as C
    import evaluate_alignment as E
    tally = support.Tally()
    check = tally.check

    content = C.content_words()
    pron = {p[0]: C.Pronoun(*p) for p in C.PRONOUNS}
    examples = [
        C.svo_tagged(pron["I"], C.VERB_BY_EN["like"], C.NP(C.NOUN_BY_EN["bird"], False, True), False),
        C.svo_tagged(C.NP(C.NOUN_BY_EN["man"], False, True), C.VERB_BY_EN["see"],
                     C.NP(C.NOUN_BY_EN["house"], False, True, post=C.ADJ_BY_EN["white"]), True),
        C.be_adj_tagged(pron["he"], C.ADJ_BY_EN["happy"], True),
    ]
    pairs, sure = [], []
    for tagged in examples:
        for form in ("cap", "low"):
            pairs.append(C.surface(*C.render(tagged), form))
            sure.append({(i, j) for i, j, kind in C.sentence_links(tagged) if kind == C.SURE})
    check(pairs[0] == ("I like the bird.", "J'aime l'oiseau.") and
          pairs[2] == ("The man does not see the white house.", "L'homme ne voit pas la maison blanche.")
          and pairs[4] == ("He is not happy.", "Il n'est pas heureux."), f"the examples: {pairs[::2]}")

    default = E.run_minimt(minimt, model, pairs, "default", "default", "avg", "translate")
    union = E.run_minimt(minimt, model, pairs, "union", "default", "avg", "translate")
    forced = E.run_minimt(minimt, model, pairs, "default", "default", "avg", "forced")
    check(forced == default, f"score --align on the references: {forced}, translate: {default}")
    for (english, french), gold, (translation, links) in zip(pairs, sure, default):
        check(translation == french, f"{english!r}: translated {translation!r}, want {french!r}")
        missing = sorted(gold - links)
        check(not missing, f"{english!r}: sure links {missing} missing from {sorted(links)}")
        words = [w.lower().rstrip(".") for w in english.split()]
        unlinked = [w for i, w in enumerate(words) if w in content and all(s != i for s, _ in links)]
        check(not unlinked, f"{english!r}: content words {unlinked} unlinked in {sorted(links)}")
    check(default == union, f"the default rule should be union: {default} vs {union}")

    # AER of the default on the held-out set, and of best-source for contrast.
    pairs = C.read_tsv(os.path.join(root, "tools", "model", "data", "heldout.tsv"))
    gold = E.read_gold(os.path.join(root, "tools", "model", "data", "heldout.align"))
    check(len(gold) == len(pairs) == 2000, f"{len(gold)} gold lines, {len(pairs)} pairs")
    results = {}
    for rule, mode in (("default", "forced"), ("best-source", "forced"), ("default", "translate")):
        output = E.run_minimt(minimt, model, pairs, rule, "default", "avg", mode)
        results[rule, mode], _ = E.score(pairs, gold, output, content)
        r = results[rule, mode]
        print(f"{rule} ({mode}): AER {100 * r['aer']:.2f}% on {r['sentences']} sentences, "
              f"content recall {100 * r['content_recall']:.2f}%")
    check(results["default", "forced"]["sentences"] == 2000,
          f"forced: scored {results['default', 'forced']['sentences']} sentences, want 2000")
    check(results["default", "translate"]["sentences"] >= 1990,
          f"translate: scored only {results['default', 'translate']['sentences']}")
    check(results["default", "translate"]["aer"] <= MAX_AER,
          f"default AER (translate) {results['default', 'translate']['aer']:.4f} > {MAX_AER}")
    results = {rule: results[rule, "forced"] for rule in ("default", "best-source")}
    check(results["default"]["aer"] <= MAX_AER, f"default AER {results['default']['aer']:.4f} > {MAX_AER}")
    check(results["default"]["content_recall"] >= 0.995,
          f"default content recall {results['default']['content_recall']:.4f} < 0.995")
    check(results["best-source"]["aer"] > MAX_AER,
          f"best-source AER {results['best-source']['aer']:.4f} should be above {MAX_AER}")

    # The tool itself: a table for two rules on 100 sentences, --max-aer failing and passing.
    tool = os.path.join(root, "tools", "model", "evaluate_alignment.py")
    with support.scratch("alignment-gold") as tmp:
        out_json = os.path.join(tmp, "r.json")
        run = support.run([sys.executable, tool, "--minimt", minimt, "--model", model, "--limit",
                           "100", "--rules", "union,best-source", "--layers", "2", "--json",
                           out_json, "--max-aer", "0.99"], text=True, timeout=600)
        check(run.returncode == 0, f"evaluate_alignment.py: exit {run.returncode}: {run.stderr}")
        check("| union | 2 | mean |" in run.stdout and "| best-source | 2 | mean |" in run.stdout,
              f"evaluate_alignment.py table: {run.stdout}")
        rows = json.load(open(out_json, encoding="utf-8")) if os.path.exists(out_json) else []
        check([(r["rule"], r["layer"], r["heads"]) for r in rows] ==
              [("union", 2, "avg"), ("best-source", 2, "avg")], f"json rows {rows}")
        run = support.run([sys.executable, tool, "--minimt", minimt, "--model", model, "--limit",
                           "100", "--rules", "best-source", "--layers", "0", "--max-aer", "0.05",
                           "--mode", "translate"], text=True, timeout=600)
        check(run.returncode == 1 and "above the bound" in run.stdout,
              f"--max-aer 0.05 on layer 0 should fail: exit {run.returncode}, {run.stdout[-200:]}")

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
