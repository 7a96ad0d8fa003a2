#!/usr/bin/python3
"""English-French sentence-pair generator for minimt's toy model.

A small grammar over a lexicon produces pairs whose French is correct French:

  SUBJECT VERB OBJECT            The black cat sees the small dog. -> Le chat noir voit le petit chien.
  SUBJECT be ADJECTIVE           She is happy. -> Elle est heureuse.
  SUBJECT be a NOUN (profession) I am a student. -> Je suis étudiant.

each also negated (does not / do not / is not / are not / am not -> ne ... pas).

French rules implemented: gender and number agreement of determiners, adjectives,
verbs and professions; adjective position (petit, grand, jeune, ... before the noun,
colours, heureux, ... after it); the pre-vowel forms vieil/bel/nouvel; elision of
le/la/je/ne/de before a vowel or mute h (not before an aspirate h: le hibou);
un/une -> de/d' after a negated verb; French drops the article before a profession
after être. English uses `an` before a vowel.

Every sentence exists in two surface forms: capitalised with a final full stop, and
all lower case without punctuation.

Gold word alignments (heldout.align, one line per line of heldout.tsv): the generator knows
which English word each French word translates.  Pharaoh format, English (source) index
first, words counted from 0 as split on white space (the full stop stays on the last word, as
minimt --align counts them); `i-j` is a sure link, `i?j` a possible one (Och & Ney: every sure
link is also possible).  Sure: determiners, adjectives, nouns, pronouns, the verb, be -> être,
not -> ne and not -> pas; an elided French word (l'homme, j'aime, n'est, d'oiseau) links to
the English words of both halves.  Possible: do/does -> the French verb, a verb's particle
(look *for*, listen *to*) -> the French verb, and `a` -> the profession it precedes (French
drops the article).  Nothing else is linked.

Usage:
  tools/model/corpus.py --out /var/tmp/minimt-train/data [--seed 1] [--train 200000]
      writes train.tsv, dev.tsv, heldout.tsv (english<TAB>french) and heldout.align into
      --out and copies heldout.tsv and heldout.align to tools/model/data/ (--heldout-copy
      PATH.tsv to change; the .align goes beside it).
  tools/model/corpus.py --gold-only     writes only tools/model/data/heldout.tsv and
      heldout.align (the held-out set is drawn first, so no training data is needed).
  tools/model/corpus.py --sample 20      prints a few random pairs
  tools/model/corpus.py --stats          prints lexicon sizes

Held-out and dev sentences never occur in training, in either surface form
(the comparison key is the lower-cased English without punctuation).  Training pairs
are distinct; a sentence may occur in training in both surface forms.
"""
# Over 400 lines on purpose: most of it is the word lists and the grammar of the toy language,
# data that reads best in one place.
import argparse
import os
import random
import sys

# ---------------------------------------------------------------------------
# Lexicon
# ---------------------------------------------------------------------------
# Noun classes: p person, a animal, t thing, x text (readable), o openable,
# l place, w writable, f food, d drink.  A noun may have several classes.

# english singular, english plural, french singular, french plural, gender, classes
NOUNS_TEXT = """
boy boys garçon garçons m p
man men homme hommes m p
student students étudiant étudiants m p
girl girls fille filles f p
woman women femme femmes f p
brother brothers frère frères m p
sister sisters sœur sœurs f p
king kings roi rois m p
queen queens reine reines f p
father fathers père pères m p
mother mothers mère mères f p
uncle uncles oncle oncles m p
aunt aunts tante tantes f p
baby babies bébé bébés m p
cat cats chat chats m a
dog dogs chien chiens m a
bird birds oiseau oiseaux m a
fish fish poisson poissons m a
horse horses cheval chevaux m a
mouse mice souris souris f a
cow cows vache vaches f a
duck ducks canard canards m a
rabbit rabbits lapin lapins m a
elephant elephants éléphant éléphants m a
owl owls hibou hiboux m a
bee bees abeille abeilles f a
spider spiders araignée araignées f a
bear bears ours ours m a
donkey donkeys âne ânes m a
squirrel squirrels écureuil écureuils m a
goat goats chèvre chèvres f a
frog frogs grenouille grenouilles f a
wolf wolves loup loups m a
lion lions lion lions m a
pig pigs cochon cochons m a
hen hens poule poules f a
book books livre livres m t,x,o,w
letter letters lettre lettres f t,x,o,w
newspaper newspapers journal journaux m t,x,o
magazine magazines magazine magazines m t,x,o
map maps carte cartes f t,x
house houses maison maisons f t,l
car cars voiture voitures f t,o
table tables table tables f t
chair chairs chaise chaises f t
door doors porte portes f t,o
window windows fenêtre fenêtres f t,o
bag bags sac sacs m t,o
hat hats chapeau chapeaux m t
ball balls ballon ballons m t
key keys clé clés f t
pen pens stylo stylos m t
cup cups tasse tasses f t
box boxes boîte boîtes f t,o
bed beds lit lits m t
shoe shoes chaussure chaussures f t
flower flowers fleur fleurs f t
tree trees arbre arbres m t
bike bikes vélo vélos m t
boat boats bateau bateaux m t
train trains train trains m t
plane planes avion avions m t
computer computers ordinateur ordinateurs m t,o
phone phones téléphone téléphones m t
clock clocks horloge horloges f t
hotel hotels hôtel hôtels m t,l
hospital hospitals hôpital hôpitaux m t,l
school schools école écoles f t,l
church churches église églises f t,l
garden gardens jardin jardins m t,l
picture pictures image images f t
plate plates assiette assiettes f t
wardrobe wardrobes armoire armoires f t,o
umbrella umbrellas parapluie parapluies m t,o
shirt shirts chemise chemises f t
dress dresses robe robes f t
coat coats manteau manteaux m t
lamp lamps lampe lampes f t
bottle bottles bouteille bouteilles f t,o
glass glasses verre verres m t
knife knives couteau couteaux m t
apple apples pomme pommes f f
cake cakes gâteau gâteaux m f
egg eggs œuf œufs m f
orange oranges orange oranges f f
banana bananas banane bananes f f
pear pears poire poires f f
carrot carrots carotte carottes f f
lemon lemons citron citrons m f
tomato tomatoes tomate tomates f f
sandwich sandwiches sandwich sandwichs m f
strawberry strawberries fraise fraises f f
coffee - café - m d
tea - thé - m d
juice - jus - m d
"""

# Nouns whose English plural equals the singular: never used as a plural object
# (`I see the fish` would be ambiguous); as a subject the verb disambiguates.
# Nouns marked '-' in the plural columns are singular only.

# Professions for `SUBJECT be a NOUN`: english sg, english pl, fr m sg, fr f sg,
# fr m pl, fr f pl.  French drops the article after être.
PROFESSIONS_TEXT = """
student students étudiant étudiante étudiants étudiantes
teacher teachers enseignant enseignante enseignants enseignantes
singer singers chanteur chanteuse chanteurs chanteuses
dancer dancers danseur danseuse danseurs danseuses
baker bakers boulanger boulangère boulangers boulangères
cook cooks cuisinier cuisinière cuisiniers cuisinières
lawyer lawyers avocat avocate avocats avocates
nurse nurses infirmier infirmière infirmiers infirmières
farmer farmers agriculteur agricultrice agriculteurs agricultrices
doctor doctors médecin médecin médecins médecins
painter painters peintre peintre peintres peintres
journalist journalists journaliste journaliste journalistes journalistes
architect architects architecte architecte architectes architectes
pilot pilots pilote pilote pilotes pilotes
"""

# Adjectives: english, position (pre|post), classes they may describe,
# fr m sg, f sg, m pl, f pl [, m sg before a vowel].
ADJECTIVES_TEXT = """
small pre p,a,t,f,d petit petite petits petites
big pre p,a,t,f grand grande grands grandes
young pre p,a jeune jeune jeunes jeunes
old pre p,a,t vieux vieille vieux vieilles vieil
beautiful pre p,a,t beau belle beaux belles bel
new pre t nouveau nouvelle nouveaux nouvelles nouvel
good pre f,x bon bonne bons bonnes
bad pre f,x mauvais mauvaise mauvais mauvaises
pretty pre p,a,t joli jolie jolis jolies
long pre t,x long longue longs longues
black post a,t,d noir noire noirs noires
red post a,t,f rouge rouge rouges rouges
green post a,t,f,d vert verte verts vertes
white post a,t blanc blanche blancs blanches
happy post p,a heureux heureuse heureux heureuses
blue post a,t bleu bleue bleus bleues
yellow post a,t,f jaune jaune jaunes jaunes
grey post a,t gris grise gris grises
brown post a brun brune bruns brunes
pink post t rose rose roses roses
sad post p,a triste triste tristes tristes
tired post p,a fatigué fatiguée fatigués fatiguées
sick post p,a malade malade malades malades
rich post p riche riche riches riches
poor post p pauvre pauvre pauvres pauvres
lazy post p,a paresseux paresseuse paresseux paresseuses
clever post p,a intelligent intelligente intelligents intelligentes
polite post p poli polie polis polies
famous post p célèbre célèbre célèbres célèbres
strong post p,a fort forte forts fortes
clean post t propre propre propres propres
dirty post t,a sale sale sales sales
heavy post t lourd lourde lourds lourdes
empty post t vide vide vides vides
round post t,f rond ronde ronds rondes
ripe post f mûr mûre mûrs mûres
cold post f,d froid froide froids froides
hot post f,d chaud chaude chauds chaudes
"""

# Verbs: english base | english 3sg | french je, il, nous, ils | object classes |
# subject classes | flags.  Flag 'def': only definite objects (aimer, préférer).
VERBS_TEXT = """
see|sees|vois voit voyons voient|p,a,t,f,d|p,a|
eat|eats|mange mange mangeons mangent|f|p,a|
like|likes|aime aime aimons aiment|p,a,t,f,d|p,a|def
read|reads|lis lit lisons lisent|x|p|
have|has|ai a avons ont|a,t,f,d|p,a|
watch|watches|regarde regarde regardons regardent|p,a,t|p,a|
find|finds|trouve trouve trouvons trouvent|p,a,t,f|p,a|
carry|carries|porte porte portons portent|a,t,f,d|p,a|
buy|buys|achète achète achetons achètent|a,t,f,d|p|
draw|draws|dessine dessine dessinons dessinent|p,a,t,f|p|
wash|washes|lave lave lavons lavent|p,a,t|p|
hear|hears|entends entend entendons entendent|p,a|p,a|
follow|follows|suis suit suivons suivent|p,a|p,a|
take|takes|prends prend prenons prennent|t,f,d|p|
sell|sells|vends vend vendons vendent|a,t,f,d|p|
know|knows|connais connaît connaissons connaissent|p,a|p,a|
write|writes|écris écrit écrivons écrivent|w|p|
open|opens|ouvre ouvre ouvrons ouvrent|o|p|
close|closes|ferme ferme fermons ferment|o|p|
hold|holds|tiens tient tenons tiennent|a,t,f,d|p|
drink|drinks|bois boit buvons boivent|d|p|
help|helps|aide aide aidons aident|p,a|p,a|
call|calls|appelle appelle appelons appellent|p,a|p|
choose|chooses|choisis choisit choisissons choisissent|a,t,f,d|p|
push|pushes|pousse pousse poussons poussent|p,a,t|p,a|
touch|touches|touche touche touchons touchent|p,a,t,f|p,a|
clean|cleans|nettoie nettoie nettoyons nettoient|t|p|
paint|paints|peins peint peignons peignent|t|p|
lose|loses|perds perd perdons perdent|a,t|p,a|
send|sends|envoie envoie envoyons envoient|x,t,f|p|
prefer|prefers|préfère préfère préférons préfèrent|p,a,t,f,d|p,a|def
want|wants|veux veut voulons veulent|a,t,f,d|p,a|
look for|looks for|cherche cherche cherchons cherchent|p,a,t,f|p,a|
wait for|waits for|attends attend attendons attendent|p,a|p,a|
listen to|listens to|écoute écoute écoutons écoutent|p,a|p,a|
catch|catches|attrape attrape attrapons attrapent|a|p,a|
visit|visits|visite visite visitons visitent|l|p|
build|builds|construis construit construisons construisent|l|p|
feed|feeds|nourris nourrit nourrissons nourrissent|a|p|
repair|repairs|répare répare réparons réparent|t|p|
bring|brings|apporte apporte apportons apportent|t,f,d,x|p,a|
"""

# Subject pronouns: english, person index (0 je, 1 il/elle, 2 nous, 3 ils), french,
# gender used for agreement (je and nous take the masculine).
PRONOUNS = [
    ("I", 0, "je", "m"),
    ("he", 1, "il", "m"),
    ("she", 1, "elle", "f"),
    ("we", 2, "nous", "m"),
    ("they", 3, "ils", "m"),
]

# Adjective-noun pairs never generated: the French would read as another word or
# idiom (grand-père, beau-frère, belle-mère, petite mère, vieille fille, grand homme).
KIN = ["father", "mother", "brother", "sister", "uncle", "aunt"]
EXCLUDED_ADJ_NOUN = ({("big", n) for n in KIN} | {("beautiful", n) for n in KIN}
                     | {("small", "father"), ("small", "mother"), ("old", "girl"), ("big", "man")})

ASPIRATE_H = {"hibou", "hiboux"}   # no elision: le hibou
FR_VOWELS = set("aeiouyàâäéèêëîïôöùûüœæ")


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


# ---------------------------------------------------------------------------
# Surface rules
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# Phrases
# ---------------------------------------------------------------------------
# Every phrase builds its words with what the gold alignment needs: an English word carries a
# tag naming its role ("subj.noun", "verb", "not", ...), a French word a dict {tag: SURE or
# POSSIBLE} of the English roles it translates. fr_join_tagged keeps both halves of an elided
# word; sentence_links turns the tags into links.

SURE, POSSIBLE = "S", "P"


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


# ---------------------------------------------------------------------------
# Sentences (English words, French words) built from a structured description
# ---------------------------------------------------------------------------
# The *_tagged builders return (English [(word, tag)], French [(word, {tag: kind})]) after the
# surface joins; svo, be_adj and be_prof return the two strings.

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


# ---------------------------------------------------------------------------
# Random generation
# ---------------------------------------------------------------------------

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


COLOURS = {"black", "red", "green", "white", "blue", "yellow", "grey", "brown", "pink"}


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


def write_gold(path, gold):
    with open(path, "w", encoding="utf-8") as f:
        for links in gold:
            f.write(to_pharaoh_gold(links) + "\n")


def gold_path(tsv_path):
    """heldout.tsv -> heldout.align, beside it."""
    return os.path.splitext(tsv_path)[0] + ".align"


def write_heldout(tsv_path, seed, n_heldout):
    heldout, gold = heldout_with_gold(seed, n_heldout)
    os.makedirs(os.path.dirname(os.path.abspath(tsv_path)), exist_ok=True)
    write_tsv(tsv_path, heldout)
    write_gold(gold_path(tsv_path), gold)
    return heldout


def write_tsv(path, pairs):
    with open(path, "w", encoding="utf-8") as f:
        for e, fr in pairs:
            f.write(f"{e}\t{fr}\n")


def read_tsv(path):
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                e, fr = line.split("\t")
                pairs.append((e, fr))
    return pairs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="directory for train.tsv, dev.tsv, heldout.tsv")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train", type=int, default=200000, help="training pairs")
    ap.add_argument("--dev", type=int, default=500, help="dev pairs (monitoring during training)")
    ap.add_argument("--heldout", type=int, default=2000, help="held-out test pairs")
    ap.add_argument("--heldout-copy", default=os.path.join(here, "data", "heldout.tsv"),
                    help="where to copy heldout.tsv, heldout.align beside it ('' for nowhere)")
    ap.add_argument("--gold-only", action="store_true",
                    help="write only the held-out copy and its gold alignments, then exit")
    ap.add_argument("--sample", type=int, help="print N random pairs and exit")
    ap.add_argument("--stats", action="store_true", help="print lexicon sizes and exit")
    args = ap.parse_args()

    if args.stats:
        print(f"lexicon: {len(lexicon_words())} English lemmas; {len(NOUNS)} nouns, "
              f"{len(PROFESSIONS)} professions, {len(ADJECTIVES)} adjectives "
              f"({sum(a.position == 'pre' for a in ADJECTIVES)} before the noun), "
              f"{len(VERBS)} verbs, {len(PRONOUNS)} pronouns")
        return 0
    if args.sample:
        rng = random.Random(args.seed)
        for _ in range(args.sample):
            en, fr = random_pair(rng)
            e, f = surface(en, fr, "cap" if rng.random() < 0.5 else "low")
            print(f"{e}\t{f}")
        return 0
    if args.gold_only:
        if not args.heldout_copy:
            ap.error("--gold-only needs --heldout-copy")
        heldout = write_heldout(args.heldout_copy, args.seed, args.heldout)
        print(f"wrote {len(heldout)} held-out pairs to {args.heldout_copy} and their gold "
              f"alignments to {gold_path(args.heldout_copy)}")
        return 0
    if not args.out:
        ap.error("--out is required")
    os.makedirs(args.out, exist_ok=True)
    train, dev, heldout = generate(args.seed, args.train, args.dev, args.heldout)
    write_tsv(os.path.join(args.out, "train.tsv"), train)
    write_tsv(os.path.join(args.out, "dev.tsv"), dev)
    write_heldout(os.path.join(args.out, "heldout.tsv"), args.seed, args.heldout)
    if args.heldout_copy:
        write_heldout(args.heldout_copy, args.seed, args.heldout)
    print(f"wrote {len(train)} train, {len(dev)} dev, {len(heldout)} held-out pairs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
