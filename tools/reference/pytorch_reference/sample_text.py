"""Seeded sample text and small SentencePiece models for the random models tests write:

    ENGLISH, FRENCH       25 everyday sentences each (the tokenizers' training text, and inputs
                          the tests translate)
    train_tokenizer(text, vocab_size, path, seed=0) -> piece count
    synthetic_corpus(seed, words=12000, sentences=30000) -> text (for vocabularies above
                          LARGE_VOCAB pieces)
"""
import io
import random

import sentencepiece as spm

ENGLISH = """\
The cat sat on the mat and looked at the garden.
A small dog runs quickly through the green park.
I would like a cup of coffee with milk, please.
The weather is cold today, but tomorrow it will be warm.
My brother reads books about history and science.
We are going to the market to buy bread, cheese and apples.
She opened the window because the room was too hot.
The children play football after school every Tuesday.
Where is the railway station? It is near the old bridge.
They have lived in this small village for twenty years.
Please close the door when you leave the house.
The teacher explained the lesson slowly and clearly.
Our neighbours invited us to dinner on Saturday evening.
He forgot his umbrella, so he got wet in the rain.
The museum opens at nine o'clock and closes at six.
Can you help me carry these heavy boxes upstairs?
The river flows from the mountains down to the sea.
I have never seen such a beautiful sunset before.
The doctor said that I should sleep more and work less.
Their new car is red, fast and very expensive.
Yesterday we walked along the beach and collected shells.
The library has thousands of books in many languages.
Do you know what time the next train leaves?
My grandmother makes the best apple pie in the world.
The students must finish their homework before Friday.
"""

FRENCH = """\
Le chat était assis sur le tapis et regardait le jardin.
Un petit chien court rapidement à travers le parc vert.
Je voudrais une tasse de café avec du lait, s'il vous plaît.
Il fait froid aujourd'hui, mais demain il fera chaud.
Mon frère lit des livres sur l'histoire et la science.
Nous allons au marché pour acheter du pain, du fromage et des pommes.
Elle a ouvert la fenêtre parce que la pièce était trop chaude.
Les enfants jouent au football après l'école chaque mardi.
Où est la gare ? Elle est près du vieux pont.
Ils habitent dans ce petit village depuis vingt ans.
Fermez la porte quand vous quittez la maison, s'il vous plaît.
Le professeur a expliqué la leçon lentement et clairement.
Nos voisins nous ont invités à dîner samedi soir.
Il a oublié son parapluie, alors il a été mouillé par la pluie.
Le musée ouvre à neuf heures et ferme à six heures.
Pouvez-vous m'aider à porter ces lourdes boîtes en haut ?
La rivière coule des montagnes jusqu'à la mer.
Je n'ai jamais vu un si beau coucher de soleil.
Le médecin a dit que je devrais dormir plus et travailler moins.
Leur nouvelle voiture est rouge, rapide et très chère.
Hier, nous avons marché le long de la plage et ramassé des coquillages.
La bibliothèque a des milliers de livres en plusieurs langues.
Savez-vous à quelle heure part le prochain train ?
Ma grand-mère fait la meilleure tarte aux pommes du monde.
Les élèves doivent finir leurs devoirs avant vendredi.
"""


# Above this requested vocabulary the 25 sentences above cannot give the pieces asked for:
# the tokenizer is trained on them plus a synthetic corpus (synthetic_corpus).
LARGE_VOCAB = 1000


def synthetic_corpus(seed, words=12000, sentences=30000):
    """Seeded sentences over a lexicon of `words` made-up words (Zipf-like frequencies):
    enough distinct substrings for an 8,000-piece unigram vocabulary."""
    rng = random.Random(seed)
    onsets = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "qu", "r", "s",
              "t", "v", "w", "z", "ch", "sh", "th", "tr", "pl", "gr", "st", "br"]
    vowels = ["a", "e", "i", "o", "u", "ou", "ai", "ea", "ie", "y", "é", "è"]
    codas = ["", "", "n", "r", "s", "t", "l", "m", "x", "nd", "st", "ng"]
    lexicon = set()
    while len(lexicon) < words:
        lexicon.add("".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                            for _ in range(rng.randint(1, 4))))
    lexicon = sorted(lexicon)
    rng.shuffle(lexicon)
    cumulative, total = [], 0.0
    for rank in range(len(lexicon)):
        total += 1.0 / (rank + 10)
        cumulative.append(total)
    lines = []
    for _ in range(sentences):
        chosen = rng.choices(lexicon, cum_weights=cumulative, k=rng.randint(4, 16))
        lines.append(" ".join(chosen).capitalize() + rng.choice([".", ".", "?", "!", ","]))
    return "\n".join(lines)


def train_tokenizer(text, vocab_size, path, seed=0):
    """Train a small unigram SentencePiece model (pad 0, unk 1, bos 2, eos 3) -> piece count.

    hard_vocab_limit=false lets a small corpus yield fewer pieces than asked; the caller
    uses the real count as the vocabulary size. Above LARGE_VOCAB the text is extended by
    a synthetic corpus (seeded), which gives the exact count asked for."""
    if vocab_size > LARGE_VOCAB:
        text = text + "\n" + synthetic_corpus(seed)
    lines = [line for line in text.splitlines() if line.strip()]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, vocab_size=vocab_size,
        model_type="unigram", pad_id=0, unk_id=1, bos_id=2, eos_id=3,
        hard_vocab_limit=False, character_coverage=1.0, num_threads=1, minloglevel=2)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return spm.SentencePieceProcessor(model_file=path).get_piece_size()
