"""Phrases: noun phrases (DET [ADJ] NOUN [ADJ]), subject pronouns, and the verb forms of both
languages (agreement, do/does, ne ... pas), each word tagged for the gold alignment
(alignment.py)."""
from .alignment import SURE
from .surface import fr_starts_with_vowel

class NP:
    """DET [pre-noun ADJ] NOUN [post-noun ADJ]."""

    def __init__(self, noun, plural, definite, pre=None, post=None):
        self.noun, self.plural, self.definite = noun, plural, definite
        self.pre, self.post = pre, post

    @property
    def gender(self):
        return self.noun.gender

    @property
    def person(self):
        return 3 if self.plural else 1

    def english(self):
        return [w for w, _ in self.english_tagged("np")]

    def english_tagged(self, role):
        words = [("the" if self.definite else "a", role + ".det")]
        if self.pre:
            words.append((self.pre.en, role + ".pre"))
        if self.post:
            words.append((self.post.en, role + ".post"))
        words.append((self.noun.en_pl if self.plural else self.noun.en_sg, role + ".noun"))
        return words

    def french(self, negated_object=False):
        return [w for w, _ in self.french_tagged("np", negated_object)]

    def french_tagged(self, role, negated_object=False):
        g, pl = self.noun.gender, self.plural
        noun = self.noun.fr_pl if pl else self.noun.fr_sg
        body = []
        if self.pre:
            body.append((self.pre.fr(g, pl, before_vowel=fr_starts_with_vowel(noun)),
                         {role + ".pre": SURE}))
        body.append((noun, {role + ".noun": SURE}))
        if self.post:
            body.append((self.post.fr(g, pl), {role + ".post": SURE}))
        if self.definite:
            det = "les" if pl else ("le" if g == "m" else "la")
        elif negated_object:
            det = "de"                      # pas de livre, pas d'oiseau
        else:
            assert not pl
            det = "un" if g == "m" else "une"
        return [(det, {role + ".det": SURE})] + body


class Pronoun:
    def __init__(self, en, person, fr, gender):
        self.en, self.person, self.fr, self.gender = en, person, fr, gender

    @property
    def plural(self):
        return self.person >= 2

    def english(self):
        return [self.en]

    def english_tagged(self, role):
        return [(self.en, role + ".pron")]

    def french(self):
        return [self.fr]

    def french_tagged(self, role):
        return [(self.fr, {role + ".pron": SURE})]


def en_be(subj):
    if isinstance(subj, Pronoun) and subj.person == 0:
        return "am"
    return "are" if subj.plural else "is"


def en_verb(subj, verb, negated):
    return [w for w, _ in en_verb_tagged(subj, verb, negated)]


def en_verb_tagged(subj, verb, negated):
    """The verb is tagged "verb", its particle (look *for*) "verb.part", do/does "aux"."""
    third_sg = not subj.plural and not (isinstance(subj, Pronoun) and subj.person == 0)
    words = (verb.en if negated or not third_sg else verb.en3).split()
    tagged = [(words[0], "verb")] + [(w, "verb.part") for w in words[1:]]
    if negated:
        return [("does" if third_sg else "do", "aux"), ("not", "not")] + tagged
    return tagged


def fr_person_index(subj):
    if isinstance(subj, Pronoun):
        return subj.person
    return 3 if subj.plural else 1


ETRE = ["suis", "est", "sommes", "sont"]


def fr_negate(verb_form, negated):
    return ["ne", verb_form, "pas"] if negated else [verb_form]


def fr_negate_tagged(verb_form, negated):
    """ne and pas both translate `not` (sure links); the verb (a (form, links) pair) between."""
    return [("ne", {"not": SURE}), verb_form, ("pas", {"not": SURE})] if negated else [verb_form]

