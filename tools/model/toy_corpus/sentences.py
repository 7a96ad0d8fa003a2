"""Sentences (English words, French words) built from a structured description:

  SUBJECT VERB OBJECT            svo
  SUBJECT be ADJECTIVE           be_adj
  SUBJECT be a NOUN (profession) be_prof

The *_tagged builders return (English [(word, tag)], French [(word, {tag: kind})]) after the
surface joins; svo, be_adj and be_prof return the two strings.
"""
from .alignment import POSSIBLE, SURE
from .phrases import ETRE, en_be, en_verb_tagged, fr_negate_tagged, fr_person_index
from .surface import en_join_tagged, fr_join_tagged


def render(tagged):
    en, fr = tagged
    return " ".join(w for w, _ in en), " ".join(w for w, _ in fr)


def svo_tagged(subj, verb, obj, negated):
    en = subj.english_tagged("subj") + en_verb_tagged(subj, verb, negated) + obj.english_tagged("obj")
    # the French verb translates the English verb; its particle and do/does may go with it
    links = {"verb": SURE, "verb.part": POSSIBLE, "aux": POSSIBLE}
    form = (verb.fr[fr_person_index(subj)], links)
    fr = (subj.french_tagged("subj") + fr_negate_tagged(form, negated)
          + obj.french_tagged("obj", negated_object=negated))
    return en_join_tagged(en), fr_join_tagged(fr)


def be_adj_tagged(subj, adj, negated):
    en = (subj.english_tagged("subj") + [(en_be(subj), "be")] + ([("not", "not")] if negated else [])
          + [(adj.en, "adj")])
    form = (ETRE[fr_person_index(subj)], {"be": SURE})
    fr = (subj.french_tagged("subj") + fr_negate_tagged(form, negated)
          + [(adj.fr(subj.gender, subj.plural), {"adj": SURE})])
    return en_join_tagged(en), fr_join_tagged(fr)


def be_prof_tagged(subj, prof, negated):
    en_sg, en_pl, ms, fs, mp, fp = prof
    if subj.plural:
        en_pred = [(en_pl, "prof")]
    else:
        en_pred = [("a", "prof.det"), (en_sg, "prof")]
    fr_pred = {("m", False): ms, ("f", False): fs, ("m", True): mp, ("f", True): fp}[(subj.gender, subj.plural)]
    en = subj.english_tagged("subj") + [(en_be(subj), "be")] + ([("not", "not")] if negated else []) + en_pred
    form = (ETRE[fr_person_index(subj)], {"be": SURE})
    # French drops the article: `a` may go with the profession, nothing more
    fr = (subj.french_tagged("subj") + fr_negate_tagged(form, negated)
          + [(fr_pred, {"prof": SURE, "prof.det": POSSIBLE})])
    return en_join_tagged(en), fr_join_tagged(fr)


def svo(subj, verb, obj, negated):
    return render(svo_tagged(subj, verb, obj, negated))


def be_adj(subj, adj, negated):
    return render(be_adj_tagged(subj, adj, negated))


def be_prof(subj, prof, negated):
    return render(be_prof_tagged(subj, prof, negated))
