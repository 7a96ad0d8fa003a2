#!/usr/bin/python3
"""Checks the gold word alignments of tools/model/corpus.py (tools/model/data/heldout.align):
hand-aligned sentences, the committed file against the generator, and on a random sample that
every link follows the lexicon (an English word's sure partner is one of its French forms),
independently of the tags the generator links by.

Usage: tests/corpus/test_gold_alignment.py
Ends with `N passed, N failed`; exits non-zero on any failure.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from test_corpus import C, np_, pron  # noqa: E402  (the generator of tools/model/corpus.py)

TALLY = support.Tally()
check = TALLY.equal  # check(what, got, want)


V, A, P = C.VERB_BY_EN.__getitem__, C.ADJ_BY_EN.__getitem__, C.PROF_BY_EN.__getitem__

# (tagged sentence, English, French, gold links) aligned by hand, in the capitalised form.
HAND = [
    (C.svo_tagged(np_("man"), V("see"), np_("house", post="white"), True),
     "The man does not see the white house.", "L'homme ne voit pas la maison blanche.",
     "0-0 1-0 2?2 3-1 3-3 4-2 5-4 6-6 7-5"),
    (C.svo_tagged(pron("I"), V("like"), np_("bird"), False), "I like the bird.", "J'aime l'oiseau.",
     "0-0 1-0 2-1 3-1"),
    (C.be_adj_tagged(pron("he"), A("happy"), True), "He is not happy.", "Il n'est pas heureux.",
     "0-0 1-1 2-1 2-2 3-3"),
    (C.be_prof_tagged(pron("I"), P("student"), False), "I am a student.", "Je suis étudiant.",
     "0-0 1-1 2?2 3-2"),
    (C.svo_tagged(pron("I"), V("listen to"), np_("bird", plural=True), True),
     "I do not listen to the birds.", "Je n'écoute pas les oiseaux.",
     "0-0 1?1 2-1 2-2 3-1 4?1 5-3 6-4"),
    (C.svo_tagged(pron("she"), V("see"), np_("bird", definite=False), True),
     "She does not see a bird.", "Elle ne voit pas d'oiseau.", "0-0 1?2 2-1 2-3 3-2 4-4 5-4"),
    (C.svo_tagged(np_("cat", post="black"), V("see"), np_("dog", pre="small"), False),
     "The black cat sees the small dog.", "Le chat noir voit le petit chien.",
     "0-0 1-2 2-1 3-3 4-4 5-5 6-6"),
    (C.be_adj_tagged(np_("cat", pre="small", post="black"), A("happy"), False),
     "The small black cat is happy.", "Le petit chat noir est heureux.", "0-0 1-1 2-3 3-2 4-4 5-5"),
    (C.svo_tagged(np_("lion"), V("look for"), np_("plane", pre="new"), False),
     "The lion looks for the new plane.", "Le lion cherche le nouvel avion.",
     "0-0 1-1 2-2 3?2 4-3 5-4 6-5"),
    (C.be_prof_tagged(np_("girl", plural=True), P("student"), True),
     "The girls are not students.", "Les filles ne sont pas étudiantes.", "0-0 1-1 2-3 3-2 3-4 4-5"),
    (C.be_adj_tagged(np_("owl"), A("white"), False), "The owl is white.", "Le hibou est blanc.",
     "0-0 1-1 2-2 3-3"),  # aspirate h: no elision, so no double link
]

# Function words: their French partners, for the lexicon check.
FUNCTION = {"the": {"le", "la", "les"}, "a": {"un", "une", "de"}, "an": {"un", "une", "de"},
            "not": {"ne", "pas"}, "am": {"suis"}, "is": {"est"}, "are": {"sommes", "sont"}}
UNELIDE = {"l'": {"le", "la"}, "j'": {"je"}, "n'": {"ne"}, "d'": {"de"}}
# English words whose links are only possible: do/does, particles (a particle is also
# possible), `a` before a profession.
POSSIBLE_ONLY = {"do", "does", "for", "to"}


def lexicon():
    """English word -> every French form of it, from the lexicon tables (not from the tags)."""
    forms = {k: set(v) for k, v in FUNCTION.items()}

    def add(en, fr):
        forms.setdefault(en, set()).update(fr)
    for n in C.NOUNS:
        add(n.en_sg, {n.fr_sg, n.fr_pl})
        add(n.en_pl, {n.fr_sg, n.fr_pl})
    for p in C.PROFESSIONS:
        add(p[0], p[2:])
        add(p[1], p[2:])
    for a in C.ADJECTIVES:
        add(a.en, a.forms)
    for v in C.VERBS:
        add(v.en.split()[0], v.fr)
        add(v.en3.split()[0], v.fr)
    for en, _, fr, _ in C.PRONOUNS:
        add(en.lower(), {fr})
    return forms


def french_readings(word):
    """The French words a surface word stands for: `l'homme` -> {le, la, homme}."""
    w = word.lower().rstrip(".")
    for prefix, full in UNELIDE.items():
        if w.startswith(prefix):
            return full | {w[len(prefix):]}
    return {w}


def parse_gold(line):
    links = []
    for item in line.split():
        sep = "-" if "-" in item else "?"
        i, j = item.split(sep)
        links.append((int(i), int(j), C.SURE if sep == "-" else C.POSSIBLE))
    return links


def check_sentence(en, fr, links, forms, problems):
    """The lexicon rules every gold alignment must follow; appends what breaks them."""
    en_words, fr_words = en.split(), fr.split()
    if any(not (0 <= i < len(en_words) and 0 <= j < len(fr_words)) for i, j, _ in links):
        problems.append((en, fr, "index out of range"))
        return
    sure = [(i, j) for i, j, k in links if k == C.SURE]
    for j, word in enumerate(fr_words):
        linked = sorted(i for i, jj in sure if jj == j)
        want = 2 if "'" in word else 1  # an elided word: both halves
        if len(linked) != want:
            problems.append((en, fr, f"French word {word!r} has {len(linked)} sure links"))
    for i, word in enumerate(en_words):
        w = word.lower().rstrip(".")
        mine = [(j, k) for ii, j, k in links if ii == i]
        before = en_words[i - 1].lower() if i else ""
        if w in POSSIBLE_ONLY or (w in ("a", "an") and before in ("am", "is", "are", "not")):
            if any(k == C.SURE for _, k in mine) or len(mine) != 1:
                problems.append((en, fr, f"{word!r} should have one possible link"))
            continue
        if not any(k == C.SURE for _, k in mine):
            problems.append((en, fr, f"English word {word!r} has no sure link"))
        for j, k in mine:
            if k == C.SURE and not french_readings(fr_words[j]) & forms.get(w, set()):
                problems.append((en, fr, f"{word!r} linked to {fr_words[j]!r}"))


def main():
    for tagged, en, fr, gold in HAND:
        e, f = C.surface(*C.render(tagged), "cap")
        check(f"sentence {en}", (e, f), (en, fr))
        check(f"gold {en}", C.to_pharaoh_gold(C.sentence_links(tagged)), gold)
        check(f"parse {en}", parse_gold(gold), C.sentence_links(tagged))

    # The lexicon rules on the hand cases and on random sentences in both surface forms.
    forms = lexicon()
    problems = []
    for tagged, en, fr, gold in HAND:
        check_sentence(en, fr, parse_gold(gold), forms, problems)
    check("hand cases follow the lexicon rules", problems, [])
    # A broken alignment must be caught: drop the second link of "I like the bird.".
    broken = []
    check_sentence("I like the bird.", "J'aime l'oiseau.", parse_gold("0-0 2-1 3-1"), forms, broken)
    check("the rules see a missing elision link", len(broken) > 0, True)
    broken = []
    check_sentence("The cat is black.", "Le chat est noir.", parse_gold("0-0 1-3 2-2 3-1"), forms, broken)
    check("the rules see swapped links (cat-noir, black-chat)", len(broken), 2)

    rng = random.Random(11)
    problems = []
    for _ in range(5000):
        tagged = C.random_tagged(rng)
        links = C.sentence_links(tagged)
        for form in ("cap", "low"):
            e, f = C.surface(*C.render(tagged), form)
            check_sentence(e, f, links, forms, problems)
    check("5000 random sentences follow the lexicon rules", problems[:3], [])

    # The committed file is what the generator makes, line for line with heldout.tsv.
    data = os.path.dirname(support.HELDOUT)
    heldout, gold = C.heldout_with_gold(seed=1)
    check("heldout.tsv from heldout_with_gold", C.read_tsv(os.path.join(data, "heldout.tsv")), heldout)
    with open(os.path.join(data, "heldout.align"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    check("heldout.align ends with a newline", lines[-1], "")
    check("heldout.align: one line per held-out pair", len(lines) - 1, len(heldout))
    check("heldout.align matches the generator", lines[:-1], [C.to_pharaoh_gold(g) for g in gold])
    problems = []
    for (en, fr), line in zip(heldout, lines):
        check_sentence(en, fr, parse_gold(line), forms, problems)
    check("heldout.align follows the lexicon rules", problems[:3], [])
    elided = sum("'" in w for _, fr in heldout for w in fr.split())
    check("held-out has elided words to test", elided > 200, True)

    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
