"""Gold word alignments. Every phrase builds its words with what the gold alignment needs: an
English word carries a tag naming its role ("subj.noun", "verb", "not", ...), a French word a
dict {tag: SURE or POSSIBLE} of the English roles it translates (surface.fr_join_tagged keeps
both halves of an elided word); sentence_links turns the tags into links.
"""

SURE, POSSIBLE = "S", "P"


def sentence_links(tagged):
    """Gold links of a tagged sentence: (english index, french index, SURE or POSSIBLE), sorted.
    Indices count the words split on white space, in both surface forms (surface() changes
    neither the words' number nor their order; the full stop stays on the last word)."""
    en, fr = tagged
    links = []
    for i, (_, tag) in enumerate(en):
        for j, (_, fr_links) in enumerate(fr):
            if tag in fr_links:
                links.append((i, j, fr_links[tag]))
    return links


def to_pharaoh_gold(links):
    """`i-j` for a sure link, `i?j` for a possible one (English index first)."""
    return " ".join(f"{i}{'-' if kind == SURE else '?'}{j}" for i, j, kind in links)
