"""Random generation: seeded draws of sentences, the held-out, dev and training sets (held-out and
dev drawn first, never in training in either surface form), and their gold alignments.

    generate(seed=1, n_train=200000, n_dev=500, n_heldout=2000) -> (train, dev, heldout)
    heldout_with_gold(seed=1, n_heldout=2000) -> (heldout, gold links)
    random_pair(rng), random_tagged(rng), key_of(english), SHOWCASE
"""
import random

from .alignment import sentence_links
from .lexicon import ADJECTIVES, COLOURS, EXCLUDED_ADJ_NOUN, NOUNS, PROFESSIONS, PRONOUNS, VERBS
from .phrases import NP, Pronoun
from .sentences import be_adj_tagged, be_prof_tagged, render, svo_tagged
from .surface import surface


def random_np(rng, classes, allow_plural=True, allow_indefinite=True, object_position=False,
              avoid_adj=None):
    nouns = [n for n in NOUNS if n.classes & classes]
    noun = rng.choice(nouns)
    plural = allow_plural and noun.has_plural and rng.random() < 0.3
    if plural and object_position and noun.ambiguous_plural:
        plural = False
    definite = True if plural else (not allow_indefinite or rng.random() < 0.6)
    pre = post = None
    r = rng.random()
    fits = [a for a in ADJECTIVES if a.classes & noun.classes and a is not avoid_adj
            and (a.en, noun.en_sg) not in EXCLUDED_ADJ_NOUN]
    pres = [a for a in fits if a.position == "pre"]
    posts = [a for a in fits if a.position == "post"]
    colours = [a for a in posts if a.en in COLOURS]
    if r < 0.22 and pres:
        pre = rng.choice(pres)
    elif r < 0.44 and posts:
        post = rng.choice(posts)
    elif r < 0.54 and pres and colours:
        # two adjectives: English puts the colour last (the small black cat)
        pre, post = rng.choice(pres), rng.choice(colours)
    return NP(noun, plural, definite, pre, post)




def random_subject(rng, classes):
    if "p" in classes and rng.random() < 0.35:
        return Pronoun(*rng.choice(PRONOUNS))
    return random_np(rng, classes)


def random_pair(rng):
    """Returns (english, french) in the lower-case base form (before surface())."""
    return render(random_tagged(rng))


def random_tagged(rng):
    """random_pair with the words' alignment tags (see sentence_links)."""
    negated = rng.random() < 0.3
    r = rng.random()
    if r < 0.62:
        verb = rng.choice(VERBS)
        subj = random_subject(rng, verb.subjs)
        obj = random_np(rng, verb.objs, allow_indefinite=not verb.definite_only, object_position=True)
        return svo_tagged(subj, verb, obj, negated)
    if r < 0.86:
        subj = random_subject(rng, {"p", "a", "t", "f"})
        cls = subj.noun.classes if isinstance(subj, NP) else {"p"}
        adjs = [a for a in ADJECTIVES if a.classes & cls]
        if isinstance(subj, NP):
            adjs = [a for a in adjs if a is not subj.pre and a is not subj.post]
            # le père est grand is fine French; only the attributive pairs are excluded
        adj = rng.choice(adjs)
        return be_adj_tagged(subj, adj, negated)
    subj = random_subject(rng, {"p"})
    prof = rng.choice(PROFESSIONS)
    return be_prof_tagged(subj, prof, negated)


def key_of(english):
    """Identity of a sentence regardless of its surface form."""
    return english.lower().rstrip(".")


# Sentences shown in the README and checked by tests: always in training.
SHOWCASE = [
    ("The black cat sees the small dog.", "Le chat noir voit le petit chien."),
    ("I am a student.", "Je suis étudiant."),
    ("The small girl reads a red book.", "La petite fille lit un livre rouge."),
]


def generate(seed=1, n_train=200000, n_dev=500, n_heldout=2000):
    """Returns (train, dev, heldout), lists of (english, french) surface pairs.

    Held-out and dev are drawn first (distinct keys; pronoun + be sentences kept at a
    tenth of their rate, see is_small_space); any training draw whose key (the
    lower-cased English) is in either is rejected, so no held-out sentence reaches
    training in any surface form.  Training holds distinct pairs.
    """
    rng = random.Random(seed)
    showcase_keys = {key_of(e) for e, _ in SHOWCASE}
    heldout, held_keys, _ = draw_distinct(rng, n_heldout, showcase_keys)
    dev, dev_keys, _ = draw_distinct(rng, n_dev, showcase_keys | held_keys)
    forbidden = held_keys | dev_keys
    # training: distinct pairs (a sentence may occur in both surface forms), never a
    # held-out or dev sentence in any form; the showcase sentences come first, in both forms.
    train = []
    seen = set()
    for e, f in SHOWCASE:
        for pair in ((e, f), surface(key_of(e), f.rstrip(".").lower(), "low")):
            train.append(pair)
            seen.add(pair)
    while len(train) < n_train:
        en, fr = random_pair(rng)
        if key_of(en) in forbidden:
            continue
        pair = surface(en, fr, "cap" if rng.random() < 0.5 else "low")
        if pair in seen:
            continue
        seen.add(pair)
        train.append(pair)
    return train, dev, heldout


def heldout_with_gold(seed=1, n_heldout=2000):
    """The held-out pairs generate() makes (they are drawn first) and their gold alignments,
    one list of (english index, french index, SURE or POSSIBLE) per pair."""
    rng = random.Random(seed)
    heldout, _, gold = draw_distinct(rng, n_heldout, {key_of(e) for e, _ in SHOWCASE})
    return heldout, gold


def draw_distinct(rng, n, forbidden):
    """n surface pairs with distinct keys, none in `forbidden`: (pairs, keys, gold links)."""
    out, seen, gold = [], set(), []
    while len(out) < n:
        tagged = random_tagged(rng)
        en, fr = render(tagged)
        k = key_of(en)
        if k in seen or k in forbidden:
            continue
        # A pronoun with `be` (she is happy, I am a student) comes from a space of a
        # few hundred sentences that the generator draws often: holding out its share
        # of draws would take most of it away from training.  Keep ~1 in 10.
        if is_small_space(k) and rng.random() >= 0.1:
            continue
        seen.add(k)
        form = "cap" if rng.random() < 0.5 else "low"
        out.append(surface(en, fr, form))
        gold.append(sentence_links(tagged))
    return out, seen, gold


def is_small_space(key):
    """A pronoun subject followed by a form of `be`: a few hundred sentences in all."""
    words = key.split()
    return len(words) >= 2 and words[0] in ("i", "he", "she", "we", "they") and words[1] in ("am", "is", "are")
