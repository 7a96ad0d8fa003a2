"""The toy English-French language of minimt's shipped model: a small grammar over a lexicon
whose French is correct French, and the sentence pairs, data sets and gold word alignments
drawn from it (tools/model/corpus.py is the command line; its help describes the grammar).

Reading order: word_lists.py and lexicon.py (the words), surface.py (elision, a/an, the two
surface forms), alignment.py (gold links), phrases.py (noun phrases, pronouns, verb forms),
sentences.py (svo, be_adj, be_prof), generation.py (random draws, the data sets), files.py.

The names below are the package's interface (tests/corpus, tools/model/evaluate_alignment.py).
"""
from .alignment import POSSIBLE, SURE, sentence_links, to_pharaoh_gold
from .files import gold_path, read_tsv, write_gold, write_heldout, write_tsv
from .generation import (SHOWCASE, generate, heldout_with_gold, key_of,
                         random_pair, random_tagged)
from .lexicon import (ADJ_BY_EN, ADJECTIVES, NOUN_BY_EN, NOUNS, PROF_BY_EN,
                      PROFESSIONS, PRONOUNS, VERB_BY_EN, VERBS, content_words, lexicon_words)
from .phrases import NP, Pronoun
from .sentences import (be_adj, be_adj_tagged, be_prof, be_prof_tagged, render,
                        svo, svo_tagged)
from .surface import surface

__all__ = [
    "ADJ_BY_EN", "ADJECTIVES", "be_adj", "be_adj_tagged", "be_prof", "be_prof_tagged",
    "content_words", "generate", "gold_path", "heldout_with_gold", "key_of", "lexicon_words",
    "NOUN_BY_EN", "NOUNS", "NP", "POSSIBLE", "PROF_BY_EN", "PROFESSIONS", "Pronoun", "PRONOUNS",
    "random_pair", "random_tagged", "read_tsv", "render", "sentence_links", "SHOWCASE", "SURE",
    "surface", "svo", "svo_tagged", "to_pharaoh_gold", "VERB_BY_EN", "VERBS", "write_gold",
    "write_heldout", "write_tsv",
]
