"""The lexicon read from word_lists.py: nouns, professions, adjectives and verbs as objects,
indexed by their English form, with the pairs the generator never makes.

    NOUNS, PROFESSIONS, ADJECTIVES, VERBS, PRONOUNS; NOUN_BY_EN, ADJ_BY_EN, VERB_BY_EN, PROF_BY_EN
    lexicon_words(), content_words()
"""
from .word_lists import ADJECTIVES_TEXT, NOUNS_TEXT, PRONOUNS, PROFESSIONS_TEXT, VERBS_TEXT

# Adjective-noun pairs never generated: the French would read as another word or
# idiom (grand-père, beau-frère, belle-mère, petite mère, vieille fille, grand homme).
KIN = ["father", "mother", "brother", "sister", "uncle", "aunt"]
EXCLUDED_ADJ_NOUN = ({("big", n) for n in KIN} | {("beautiful", n) for n in KIN}
                     | {("small", "father"), ("small", "mother"), ("old", "girl"), ("big", "man")})

# The colours: English puts them last of two adjectives (the small black cat).
COLOURS = {"black", "red", "green", "white", "blue", "yellow", "grey", "brown", "pink"}


class Noun:
    def __init__(self, en_sg, en_pl, fr_sg, fr_pl, gender, classes):
        self.en_sg, self.en_pl, self.fr_sg, self.fr_pl = en_sg, en_pl, fr_sg, fr_pl
        self.gender = gender
        self.classes = set(classes.split(","))

    @property
    def has_plural(self):
        return self.en_pl != "-"

    @property
    def ambiguous_plural(self):
        return self.en_pl == self.en_sg


class Adjective:
    def __init__(self, en, position, classes, forms):
        self.en = en
        self.position = position
        self.classes = set(classes.split(","))
        self.forms = forms  # ms, fs, mp, fp [, ms before vowel]

    def fr(self, gender, plural, before_vowel=False):
        if gender == "m" and not plural and before_vowel and len(self.forms) > 4:
            return self.forms[4]
        return self.forms[(2 if plural else 0) + (1 if gender == "f" else 0)]


class Verb:
    def __init__(self, en, en3, fr, objs, subjs, flags):
        self.en, self.en3, self.fr = en, en3, fr
        self.objs = set(objs.split(","))
        self.subjs = set(subjs.split(","))
        self.definite_only = "def" in flags.split(",")


def _load():
    nouns = []
    for line in NOUNS_TEXT.strip().splitlines():
        en_sg, en_pl, fr_sg, fr_pl, g, cl = line.split()
        nouns.append(Noun(en_sg, en_pl, fr_sg, fr_pl, g, cl))
    profs = []
    for line in PROFESSIONS_TEXT.strip().splitlines():
        profs.append(line.split())
    adjs = []
    for line in ADJECTIVES_TEXT.strip().splitlines():
        parts = line.split()
        en, pos, cl = parts[:3]
        forms = parts[3:]
        adjs.append(Adjective(en, pos, cl, forms))
    verbs = []
    for line in VERBS_TEXT.strip().splitlines():
        en, en3, fr, objs, subjs, flags = line.split("|")
        verbs.append(Verb(en, en3, fr.split(), objs, subjs, flags))
    return nouns, profs, adjs, verbs


NOUNS, PROFESSIONS, ADJECTIVES, VERBS = _load()
NOUN_BY_EN = {n.en_sg: n for n in NOUNS}
ADJ_BY_EN = {a.en: a for a in ADJECTIVES}
VERB_BY_EN = {v.en: v for v in VERBS}
PROF_BY_EN = {p[0]: p for p in PROFESSIONS}


def lexicon_words():
    """Distinct English lexical entries (lemmas), for the size statistics."""
    words = set()
    words.update(["the", "a"])
    words.update(p[0].lower() for p in PRONOUNS)
    words.update(n.en_sg for n in NOUNS)
    words.update(p[0] for p in PROFESSIONS)
    words.update(a.en for a in ADJECTIVES)
    words.update(v.en for v in VERBS)
    words.update(["be", "not", "do"])
    return words


def content_words():
    """English word forms of the open classes: nouns and professions (singular and plural),
    adjectives, verbs (base and 3rd person, without a particle). Lower case."""
    words = set()
    for n in NOUNS:
        words.update(w for w in (n.en_sg, n.en_pl) if w != "-")
    for p in PROFESSIONS:
        words.update(p[:2])
    words.update(a.en for a in ADJECTIVES)
    for v in VERBS:
        words.update((v.en.split()[0], v.en3.split()[0]))
    return words

