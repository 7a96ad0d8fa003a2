"""Surface rules: French elision (le/la/je/ne/de before a vowel or mute h, not before an
aspirate h), English `an` before a vowel, and the two surface forms of a sentence."""
from .alignment import SURE

ASPIRATE_H = {"hibou", "hiboux"}   # no elision: le hibou
FR_VOWELS = set("aeiouyàâäéèêëîïôöùûüœæ")


def fr_starts_with_vowel(word):
    w = word.lower()
    if w in ASPIRATE_H:
        return False
    if w[0] == "h":
        return True           # every other h in the lexicon is mute (homme, hôtel, ...)
    return w[0] in FR_VOWELS


ELIDABLE = {"le": "l'", "la": "l'", "je": "j'", "ne": "n'", "de": "d'"}


def fr_join(words):
    """Joins French words, eliding le/la/je/ne/de before a vowel or mute h."""
    return " ".join(w for w, _ in fr_join_tagged([(w, {}) for w in words]))


def fr_join_tagged(words):
    """fr_join on (word, links) pairs: an elided word keeps the links of both of its halves
    (l'homme: those of le and of homme). Returns the French words as (word, links)."""
    out = []
    i = 0
    while i < len(words):
        w, links = words[i]
        if w in ELIDABLE and i + 1 < len(words) and fr_starts_with_vowel(words[i + 1][0]):
            nxt, nxt_links = words[i + 1]
            merged = dict(links)
            for tag, kind in nxt_links.items():
                merged[tag] = SURE if SURE in (kind, merged.get(tag)) else kind
            out.append((ELIDABLE[w] + nxt, merged))
            i += 2
            # a chain like "je ne" never needs double elision: ne is a consonant
            continue
        out.append((w, links))
        i += 1
    return out


def en_join(words):
    """Joins English words, turning `a` into `an` before a vowel."""
    return " ".join(w for w, _ in en_join_tagged([(w, None) for w in words]))


def en_join_tagged(words):
    """en_join on (word, tag) pairs; the word count never changes."""
    out = []
    for i, (w, tag) in enumerate(words):
        if w == "a" and i + 1 < len(words) and words[i + 1][0][0].lower() in "aeiou":
            w = "an"
        out.append((w, tag))
    return out


def surface(en, fr, form):
    """form 'cap': capitalised with a full stop; 'low': lower case, no punctuation."""
    if form == "cap":
        return en[0].upper() + en[1:] + ".", fr[0].upper() + fr[1:] + "."
    return en.lower(), fr.lower()

