#!/usr/bin/python3
"""Checks tools/model/corpus.py: its French against hand-written pairs, its surface rules on a
large random sample, the core lexicon, and that the held-out set never reaches training.

Usage: tests/corpus/test_corpus.py [--quick]   (--quick skips regenerating the full corpus)
Ends with `N passed, N failed`; exits non-zero on any failure.
"""
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

support.use_tools("model")
import toy_corpus as C  # noqa: E402  (the generator of tools/model/corpus.py)

TALLY = support.Tally()
check = TALLY.equal  # check(what, got, want)


def np_(noun, plural=False, definite=True, pre=None, post=None):
    return C.NP(C.NOUN_BY_EN[noun], plural, definite,
                C.ADJ_BY_EN[pre] if pre else None, C.ADJ_BY_EN[post] if post else None)


def pron(en):
    return C.Pronoun(*[p for p in C.PRONOUNS if p[0] == en][0])


def V(en):
    return C.VERB_BY_EN[en]


def A(en):
    return C.ADJ_BY_EN[en]


def P(en):
    return C.PROF_BY_EN[en]


def cap(pair):
    return C.surface(pair[0], pair[1], "cap")


def low(pair):
    return C.surface(pair[0], pair[1], "low")


# (built pair, expected English, expected French), all in the capitalised form
CASES = [
    (C.svo(np_("cat", post="black"), V("see"), np_("dog", pre="small"), False),
     "The black cat sees the small dog.", "Le chat noir voit le petit chien."),
    (C.be_prof(pron("I"), P("student"), False), "I am a student.", "Je suis étudiant."),
    (C.be_prof(pron("she"), P("student"), False), "She is a student.", "Elle est étudiante."),
    (C.be_prof(pron("he"), P("architect"), False), "He is an architect.", "Il est architecte."),
    (C.svo(np_("girl", pre="small"), V("read"), np_("book", definite=False, post="red"), False),
     "The small girl reads a red book.", "La petite fille lit un livre rouge."),
    (C.be_adj(np_("cat"), A("black"), False), "The cat is black.", "Le chat est noir."),
    (C.be_adj(np_("cat"), A("black"), True), "The cat is not black.", "Le chat n'est pas noir."),
    (C.svo(pron("I"), V("have"), np_("book", definite=False), True),
     "I do not have a book.", "Je n'ai pas de livre."),
    (C.svo(pron("I"), V("like"), np_("man"), False), "I like the man.", "J'aime l'homme."),
    (C.svo(pron("I"), V("like"), np_("man"), True), "I do not like the man.", "Je n'aime pas l'homme."),
    (C.svo(pron("she"), V("see"), np_("bird", definite=False), True),
     "She does not see a bird.", "Elle ne voit pas d'oiseau."),
    (C.svo(pron("he"), V("eat"), np_("apple", definite=False), False),
     "He eats an apple.", "Il mange une pomme."),
    (C.svo(pron("I"), V("eat"), np_("egg", definite=False), True),
     "I do not eat an egg.", "Je ne mange pas d'œuf."),
    (C.svo(pron("I"), V("have"), np_("book", definite=False, pre="small"), True),
     "I do not have a small book.", "Je n'ai pas de petit livre."),
    (C.svo(pron("we"), V("want"), np_("car", definite=False, post="white"), True),
     "We do not want a white car.", "Nous ne voulons pas de voiture blanche."),
    (C.svo(pron("they"), V("see"), np_("cat"), True), "They do not see the cat.", "Ils ne voient pas le chat."),
    (C.svo(pron("he"), V("read"), np_("letter"), True), "He does not read the letter.", "Il ne lit pas la lettre."),
    (C.svo(pron("she"), V("have"), np_("apple", plural=True), True),
     "She does not have the apples.", "Elle n'a pas les pommes."),
    (C.be_adj(np_("house"), A("white"), False), "The house is white.", "La maison est blanche."),
    (C.be_adj(np_("car", plural=True), A("white"), False), "The cars are white.", "Les voitures sont blanches."),
    (C.be_adj(pron("she"), A("happy"), False), "She is happy.", "Elle est heureuse."),
    (C.be_adj(pron("she"), A("happy"), True), "She is not happy.", "Elle n'est pas heureuse."),
    (C.be_adj(pron("we"), A("happy"), False), "We are happy.", "Nous sommes heureux."),
    (C.be_adj(pron("I"), A("happy"), True), "I am not happy.", "Je ne suis pas heureux."),
    (C.be_adj(np_("woman", plural=True), A("happy"), False), "The women are happy.", "Les femmes sont heureuses."),
    (C.be_adj(np_("girl", definite=False, post="happy"), A("small"), False),
     "A happy girl is small.", "Une fille heureuse est petite."),
    (C.svo(np_("man", plural=True), V("see"), np_("bird", plural=True), False),
     "The men see the birds.", "Les hommes voient les oiseaux."),
    (C.svo(np_("woman", plural=True), V("eat"), np_("fish"), False),
     "The women eat the fish.", "Les femmes mangent le poisson."),
    (C.svo(np_("fish", plural=True), V("see"), np_("boy"), False),
     "The fish see the boy.", "Les poissons voient le garçon."),
    (C.svo(np_("fish"), V("see"), np_("boy"), False), "The fish sees the boy.", "Le poisson voit le garçon."),
    (C.be_prof(np_("girl", plural=True), P("student"), False),
     "The girls are students.", "Les filles sont étudiantes."),
    (C.be_prof(np_("woman"), P("singer"), False), "The woman is a singer.", "La femme est chanteuse."),
    (C.be_prof(pron("she"), P("doctor"), True), "She is not a doctor.", "Elle n'est pas médecin."),
    (C.be_prof(pron("we"), P("student"), True), "We are not students.", "Nous ne sommes pas étudiants."),
    (C.be_prof(pron("they"), P("nurse"), False), "They are nurses.", "Ils sont infirmiers."),
    (C.be_prof(pron("I"), P("student"), True), "I am not a student.", "Je ne suis pas étudiant."),
    (C.be_adj(np_("man", pre="old"), A("happy"), False), "The old man is happy.", "Le vieil homme est heureux."),
    (C.be_adj(np_("woman", pre="old"), A("happy"), False), "The old woman is happy.", "La vieille femme est heureuse."),
    (C.svo(np_("owl", definite=False, pre="old"), V("eat"), np_("banana"), False),
     "An old owl eats the banana.", "Un vieux hibou mange la banane."),
    (C.be_adj(np_("owl"), A("white"), False), "The owl is white.", "Le hibou est blanc."),
    (C.be_adj(np_("hotel"), A("big"), False), "The hotel is big.", "L'hôtel est grand."),
    (C.be_adj(np_("computer", pre="new"), A("black"), False), "The new computer is black.", "Le nouvel ordinateur est noir."),
    (C.be_adj(np_("cat", pre="small", post="black"), A("happy"), False),
     "The small black cat is happy.", "Le petit chat noir est heureux."),
    (C.be_adj(np_("student"), A("happy"), False), "The student is happy.", "L'étudiant est heureux."),
    (C.svo(pron("we"), V("eat"), np_("cake"), False), "We eat the cake.", "Nous mangeons le gâteau."),
    (C.svo(pron("they"), V("eat"), np_("apple", plural=True), False), "They eat the apples.", "Ils mangent les pommes."),
    (C.svo(pron("I"), V("write"), np_("letter", definite=False), False), "I write a letter.", "J'écris une lettre."),
    (C.svo(pron("I"), V("listen to"), np_("bird", plural=True), True),
     "I do not listen to the birds.", "Je n'écoute pas les oiseaux."),
    (C.svo(np_("horse", plural=True, pre="beautiful"), V("like"), np_("apple", plural=True, post="green"), False),
     "The beautiful horses like the green apples.", "Les beaux chevaux aiment les pommes vertes."),
    (C.svo(np_("bird", pre="beautiful"), V("see"), np_("elephant", definite=False), True),
     "The beautiful bird does not see an elephant.", "Le bel oiseau ne voit pas d'éléphant."),
]

LOWER_CASES = [
    (C.be_adj(np_("cat"), A("black"), False), "the cat is black", "le chat est noir"),
    (C.be_prof(pron("I"), P("student"), False), "i am a student", "je suis étudiant"),
    (C.svo(pron("I"), V("have"), np_("book", definite=False), True),
     "i do not have a book", "je n'ai pas de livre"),
    (C.be_adj(np_("man"), A("tired"), False), "the man is tired", "l'homme est fatigué"),
]

# The core lexicon of the issue, with exactly these translations.
CORE_NOUNS = {"cat": ("chat", "m"), "dog": ("chien", "m"), "boy": ("garçon", "m"),
              "man": ("homme", "m"), "bird": ("oiseau", "m"), "book": ("livre", "m"),
              "fish": ("poisson", "m"), "student": ("étudiant", "m"), "girl": ("fille", "f"),
              "woman": ("femme", "f"), "apple": ("pomme", "f"), "house": ("maison", "f"),
              "car": ("voiture", "f"), "letter": ("lettre", "f")}
CORE_ADJ = {"small": ("pre", "petit"), "big": ("pre", "grand"), "young": ("pre", "jeune"),
            "black": ("post", "noir"), "red": ("post", "rouge"), "green": ("post", "vert"),
            "white": ("post", "blanc"), "happy": ("post", "heureux")}
CORE_VERBS = {"see": "voit", "eat": "mange", "like": "aime", "read": "lit", "have": "a"}

ELISION_MISSED = re.compile(r"(?:^|\s)(le|la|je|ne|de) ([aeiouyàâéèêëîïôûœ]|h(?!ibou))", re.I)
AN_MISSED = re.compile(r"(?:^|\s)a [aeiou]", re.I)
A_WRONG = re.compile(r"(?:^|\s)an [^aeiou]", re.I)


def main():
    quick = "--quick" in sys.argv
    for pair, en, fr in CASES:
        got = cap(pair)
        check(f"cap {en}", got, (en, fr))
        l_en, l_fr = low(pair)
        check(f"low {en}", (l_en, l_fr), (en.rstrip(".").lower(), fr.rstrip(".").lower()))
    for pair, en, fr in LOWER_CASES:
        check(f"low {en}", low(pair), (en, fr))

    # core lexicon
    for en, (fr, g) in CORE_NOUNS.items():
        n = C.NOUN_BY_EN.get(en)
        check(f"noun {en}", (n.fr_sg, n.gender) if n else None, (fr, g))
    check("plural man", C.NOUN_BY_EN["man"].en_pl + "/" + C.NOUN_BY_EN["man"].fr_pl, "men/hommes")
    check("plural woman", C.NOUN_BY_EN["woman"].en_pl + "/" + C.NOUN_BY_EN["woman"].fr_pl, "women/femmes")
    check("plural bird", C.NOUN_BY_EN["bird"].fr_pl, "oiseaux")
    for en, (pos, fr) in CORE_ADJ.items():
        a = C.ADJ_BY_EN.get(en)
        check(f"adj {en}", (a.position, a.forms[0]) if a else None, (pos, fr))
    check("blanche", A("white").fr("f", False), "blanche")
    check("heureuse", A("happy").fr("f", False), "heureuse")
    for en, il in CORE_VERBS.items():
        check(f"verb {en}", V(en).fr[1] if en in C.VERB_BY_EN else None, il)
    check("pronouns", [(p[0], p[2]) for p in C.PRONOUNS],
          [("I", "je"), ("he", "il"), ("she", "elle"), ("we", "nous"), ("they", "ils")])
    n_lex = len(C.lexicon_words())
    check("lexicon has 150+ words", n_lex >= 150, True)

    # surface rules on a random sample
    rng = random.Random(7)
    bad = []
    for _ in range(20000):
        en, fr = C.random_pair(rng)
        for form in ("cap", "low"):
            e, f = C.surface(en, fr, form)
            if ELISION_MISSED.search(f) or AN_MISSED.search(e) or A_WRONG.search(e):
                bad.append((e, f))
            if form == "low" and (e != e.lower() or f != f.lower() or e.endswith(".") or f.endswith(".")):
                bad.append((e, f))
            if form == "cap" and not (e[0].isupper() and f[0].isupper() and e.endswith(".") and f.endswith(".")):
                bad.append((e, f))
            if " pas un " in f or " pas une " in f:
                bad.append((e, f))
    check("surface rules on 20000 random pairs", bad[:3], [])

    # held-out never in training; tools/model/data/heldout.tsv is what the generator makes
    if not quick:
        train, dev, heldout = C.generate(seed=1)
        check("tools/model/data/heldout.tsv matches the generator (seed 1)",
              C.read_tsv(support.HELDOUT) == heldout, True)
        train_keys = {C.key_of(e) for e, _ in train}
        check("held-out keys never in training", sorted({C.key_of(e) for e, _ in heldout} & train_keys)[:3], [])
        check("dev keys never in training", sorted({C.key_of(e) for e, _ in dev} & train_keys)[:3], [])
        train_pairs = set(train)
        check("held-out pairs never in training", [p for p in heldout if p in train_pairs][:3], [])
        check("held-out size", len(heldout) >= 1000, True)
        forms = {("cap" if e.endswith(".") else "low") for e, _ in heldout}
        check("held-out has both surface forms", forms, {"cap", "low"})
        for e, f in C.SHOWCASE:
            check(f"showcase in training: {e}", (e, f) in train_pairs, True)
            check(f"showcase not held out: {e}", C.key_of(e) in {C.key_of(x) for x, _ in heldout}, False)

    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
