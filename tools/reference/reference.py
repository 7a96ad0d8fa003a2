#!/usr/bin/python3
"""Reference implementation of minimt in PyTorch (see tools/reference/minimt_model.py).

  reference.py translate --model DIR [--max-length N] [--dump-attention FILE]
                         [--batch-size N] [--threads N] [--jsonl] [--mask-heads SPEC] [TEXT ...]
  reference.py beam --model DIR [--beam-size 4] [--n-best K] [--length-penalty A]
                    [--max-length N] [--prefix TEXT] [--mask-heads SPEC] [TEXT ...]
  reference.py score --model DIR [-i FILE] [--dump-attention FILE] [--mask-heads SPEC]
                     [SOURCE TARGET ...]
  reference.py distribution --model DIR [--temperature T] [--top-k K] [--top-p P]
                            [--prefix TEXT] TEXT
  reference.py random-model OUT_DIR [--seed N] [--d-model 16] [--heads 2] ...
  reference.py bench-steps --model DIR [--batch 1] [--steps 64] [--threads 1]

translate prints one translation per line (stdin lines when no TEXT is given) and can
write the attention dump that the C++ engine also writes, so the two can be compared.
Without --dump-attention it runs the fast path: sentences sorted by length into batches,
inference mode, preallocated K/V caches, finished sentences leaving the batch.
beam runs the beam search of minimt_search.py (no cache, one sentence at a time) and prints
one JSON object per input: the best hypothesis's translation, tokens (pieces, eos
excluded), ids (eos included if produced), token_log_probs (natural log, eos included),
score (their sum), ranking_score, and with --n-best the K best as "n_best". --prefix forces
the start of every translation (its target-tokenizer ids follow the start token).
score scores given translations by teacher forcing (lines source<TAB>target from -i FILE or
stdin, or SOURCE TARGET argument pairs): the target's ids plus eos, fed as start + ids[:-1]
in one causal pass; one JSON object per pair (line, source, target, tokens incl. eos,
token_log_probs, score), and --dump-attention writes the attention dump of those passes.
distribution prints the probabilities `minimt translate --sample` draws the first generated
token from (after the prefix), most likely first, with temperature, top-k and top-p applied.
random-model writes a complete model directory (config, weights, tokenizers) with
seeded random weights, for tests; a --vocab above 1000 trains the tokenizers on a seeded
synthetic corpus large enough to give that many pieces.
--mask-heads SPEC switches heads off as Hugging Face's head_mask with value 0 (the syntax of
minimt's option, head_mask_spec.py; a bad SPEC exits 2): a masked head's weights are
multiplied by 0 in every pass, and the attention dump records the weights after masking and
lists the masked heads as "masked_heads".
bench-steps measures cached decoder steps/s as tools/bench/minimt_bench.cpp does for the
C++ engine (same sources, same loop, median of 5) and prints one JSON object.
"""
# Over 400 lines on purpose: the whole PyTorch reference the tests and benchmark use (translation,
# greedy search, the beam/score/distribution commands over minimt_search.py, decoder-step
# timing, the random-model writer) in one file that can be read against the format document.

import argparse
import io
import json
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import sentencepiece as spm  # noqa: E402

import head_mask_spec  # noqa: E402
import minimt_model as mm  # noqa: E402
import minimt_search as ms  # noqa: E402


# ----------------------------------------------------------------------------- threads

def set_threads(threads):
    """torch.set_num_threads(threads), and the same for the BLAS library under torch.

    Debian's torch runs its matrix products in the system OpenBLAS (pthread build), which
    torch.set_num_threads does not reach: left alone, OpenBLAS uses every core in each
    product, and under torch's own threads it oversubscribes the machine."""
    torch.set_num_threads(threads)
    import ctypes
    for name in ("libopenblas.so.0", "libopenblasp.so.0", "libblas.so.3"):
        try:
            setter = getattr(ctypes.CDLL(name, mode=os.RTLD_NOLOAD), "openblas_set_num_threads")
        except (OSError, AttributeError):
            continue
        setter(ctypes.c_int(threads))
        return


# ----------------------------------------------------------------------------- translate

class Translator:
    """A loaded model directory: model, config and both tokenizers."""

    def __init__(self, model_dir, quiet=False, skip_blank=False):
        """skip_blank: translate empty / all-whitespace inputs to "" without running the
        model (the C++ engine's policy); by default they run as [eos], as the format's
        forward pass reads."""
        self.model_dir = model_dir
        self.quiet = quiet
        self.skip_blank = skip_blank
        self.model, self.config = mm.load_model(model_dir)
        tok = self.config["tokenizer"]
        self.source_sp = spm.SentencePieceProcessor(model_file=mm._inside(model_dir, tok["source"]))
        self.target_sp = spm.SentencePieceProcessor(model_file=mm._inside(model_dir, tok["target"]))
        self.pad = int(self.config["special_tokens"]["pad"])
        self.eos = int(self.config["special_tokens"]["eos"])
        self.start = mm.decoder_start_of(self.config)
        self.max_positions = int(self.config["max_positions"])
        self.masked_heads = ""  # mask_heads(): the masked heads as TYPE:LAYER:HEAD,...

    def mask_heads(self, spec):
        """Switch the heads of a --mask-heads SPEC off for every later run (None: none); a
        wrong SPEC (an empty one too) raises ValueError."""
        head_mask = head_mask_spec.parse(spec, self.config) if spec is not None else None
        self.model.set_head_mask(head_mask)
        self.masked_heads = head_mask_spec.describe(head_mask) if head_mask else ""

    def source_ids(self, text):
        """SentencePiece ids + eos, cut to max_positions.

        A cut keeps the final eos (pieces are cut to max_positions - 1): the format says
        max_positions covers the "source incl. EOS", models are trained on terminated
        sources, and the C++ engine does the same."""
        ids = list(self.source_sp.encode(text))
        if len(ids) + 1 > self.max_positions:
            if not self.quiet:
                print("reference: source of %d tokens cut to max_positions %d"
                      % (len(ids) + 1, self.max_positions), file=sys.stderr)
            ids = ids[:self.max_positions - 1]
        return ids + [self.eos]

    def max_length(self, requested):
        return max(0, min(int(requested), self.max_positions))

    def translate_batch(self, texts, max_length, record_attention=False):
        """texts -> list of result dicts (source, translation, ids, scores, [attention])."""
        if self.skip_blank:
            run = [t for t in texts if not is_blank(t)]
            done = iter(self._run_batch(run, max_length, record_attention) if run else [])
            return [blank_result(t) if is_blank(t) else next(done) for t in texts]
        return self._run_batch(texts, max_length, record_attention)

    def _padded(self, sources):
        """Source id lists as one padded batch: ids [B, S] and the padding mask [B, S]."""
        width = max(len(s) for s in sources)
        src = torch.full((len(sources), width), self.pad, dtype=torch.long)   # [B, S]
        pad_mask = torch.ones(len(sources), width, dtype=torch.bool)
        for i, ids in enumerate(sources):
            src[i, :len(ids)] = torch.tensor(ids, dtype=torch.long)
            pad_mask[i, :len(ids)] = False
        return src, pad_mask

    def _run_batch(self, texts, max_length, record_attention):
        sources = [self.source_ids(t) for t in texts]
        src, pad_mask = self._padded(sources)
        results = self.model.greedy(src, self.max_length(max_length), pad_mask, record_attention)
        out = []
        for text, ids, res in zip(texts, sources, results):
            res = dict(res)
            res["source"] = text
            res["source_ids"] = ids
            res["translation"] = self.detokenize(res["ids"])
            out.append(res)
        return out

    def translate(self, texts, max_length, batch_size=16, record_attention=False):
        """Results in the order of texts. With record_attention, consecutive texts form the
        batches and the recording greedy search runs (model.greedy); otherwise texts are
        sorted by source length first, so that a batch carries little padding, and the fast
        search runs (model.greedy_fast)."""
        batch_size = max(1, batch_size)
        if record_attention:
            results = []
            for begin in range(0, len(texts), batch_size):
                results += self.translate_batch(texts[begin:begin + batch_size], max_length,
                                                record_attention)
            return results
        sources = [None if self.skip_blank and is_blank(t) else self.source_ids(t)
                   for t in texts]
        results = [blank_result(t) if ids is None else None for t, ids in zip(texts, sources)]
        order = sorted((i for i, ids in enumerate(sources) if ids is not None),
                       key=lambda i: len(sources[i]))
        for begin in range(0, len(order), batch_size):
            batch = order[begin:begin + batch_size]
            for i, res in zip(batch, self._run_fast([sources[i] for i in batch], max_length)):
                res["source"] = texts[i]
                res["source_ids"] = sources[i]
                res["translation"] = self.detokenize(res["ids"])
                results[i] = res
        return results

    def _run_fast(self, sources, max_length):
        src, pad_mask = self._padded(sources)
        return self.model.greedy_fast(src, self.max_length(max_length),
                                      pad_mask if pad_mask.any() else None)

    def detokenize(self, ids):
        """Target decoding of the generated ids without eos."""
        return self.target_sp.decode([i for i in ids if i != self.eos])

    def target_ids(self, text):
        """Target tokenizer ids of text (no eos): forced prefixes and scored targets."""
        return list(self.target_sp.encode(text))

    def pieces(self, ids):
        return [self.target_sp.id_to_piece(i) for i in ids]

    def hypothesis(self, hyp):
        """A beam result of minimt_search.beam_search with its text and pieces (eos excluded,
        as in minimt's JSON Lines)."""
        out = dict(hyp)
        out["translation"] = self.detokenize(hyp["ids"])
        out["tokens"] = self.pieces([i for i in hyp["ids"] if i != self.eos])
        return out

    def beam(self, texts, beam_size, n_best, length_penalty, max_length, prefixes=None):
        """Beam search of each text -> list of {source, source_ids, hypotheses (best first)}.
        prefixes: None, or one prefix text (or None) per text. A blank input with skip_blank
        gives one empty hypothesis without running the model."""
        results = []
        for n, text in enumerate(texts):
            prefix = prefixes[n] if prefixes else None
            if self.skip_blank and is_blank(text):
                hyps = [{"ids": [], "token_log_probs": [], "score": 0.0, "ranking_score": 0.0,
                         "eos": False}]
                results.append({"source": text, "source_ids": [],
                                "hypotheses": [self.hypothesis(h) for h in hyps]})
                continue
            ids = self.source_ids(text)
            hyps = ms.beam_search(self.model, ids, beam_size, n_best, length_penalty,
                                  self.max_length(max_length),
                                  self.target_ids(prefix) if prefix else ())
            results.append({"source": text, "source_ids": ids,
                            "hypotheses": [self.hypothesis(h) for h in hyps]})
        return results

    def force(self, source, target_ids, record_attention=False):
        """Teacher-forced scoring of given target ids (eos included) -> a result dict with
        the keys attention_record reads (ids = target_ids) and token_log_probs, score."""
        src = self.source_ids(source)
        if len(target_ids) > self.max_positions:
            raise ValueError("target of %d tokens (eos included) exceeds max_positions %d"
                             % (len(target_ids), self.max_positions))
        res = ms.score_target(self.model, src, target_ids, record_attention)
        res.update({"source": source, "source_ids": src, "ids": list(target_ids),
                    "translation": self.detokenize(target_ids)})
        return res

    def score(self, source, target, record_attention=False):
        """minimt score of one pair: target tokenized, eos appended, teacher forced."""
        res = self.force(source, self.target_ids(target) + [self.eos], record_attention)
        res["target"] = target
        res["translation"] = target
        res["tokens"] = self.pieces(res["ids"])
        return res

    def next_distribution(self, text, temperature=1.0, top_k=0, top_p=1.0, prefix=None):
        """The sampling distribution of the first token generated after start + prefix."""
        tgt_in = [self.start] + (self.target_ids(prefix) if prefix else [])
        logits = self.model.teacher_forced(self.source_ids(text), tgt_in)["logits"][-1]
        return ms.sampling_distribution(logits, temperature, top_k, top_p)

    def attention_record(self, res):
        """One sentence of the minimt-attention dump."""
        if res.get("blank"):
            return {"source": res["source"], "translation": "", "source_tokens": [],
                    "decoder_input_tokens": [], "output_tokens": [],
                    "encoder_self_attention": [], "decoder_self_attention": [],
                    "cross_attention": []}
        ids = res["ids"]
        decoder_input = [self.start] + ids[:-1]
        return {
            "source": res["source"],
            "translation": res["translation"],
            "source_tokens": [self.source_sp.id_to_piece(i) for i in res["source_ids"]],
            "decoder_input_tokens": [self.target_sp.id_to_piece(i) for i in decoder_input[:len(ids)]],
            "output_tokens": [self.target_sp.id_to_piece(i) for i in ids],
            "encoder_self_attention": res["encoder_self"].tolist(),
            "decoder_self_attention": res["decoder_self"].tolist(),
            "cross_attention": res["cross"].tolist(),
        }

    def attention_dump(self, results):
        dump = {"format": "minimt-attention", "version": 1, "model": self.model_dir}
        if self.masked_heads:
            dump["masked_heads"] = self.masked_heads
        dump["sentences"] = [self.attention_record(r) for r in results]
        return dump


def is_blank(text):
    """Empty or only ASCII whitespace (the engine's definition)."""
    return all(c in " \t\n\v\f\r" for c in text)


def blank_result(text):
    return {"source": text, "source_ids": [], "ids": [], "scores": [], "translation": "",
            "blank": True}


def apply_mask_heads(translator, spec, command):
    """--mask-heads of a command: a wrong SPEC is a usage error (status 2, as minimt's)."""
    if spec is None:
        return
    try:
        translator.mask_heads(spec)
    except ValueError as e:
        print("reference.py %s: --mask-heads: %s" % (command, e), file=sys.stderr)
        raise SystemExit(2)


def read_inputs(texts):
    if texts:
        return list(texts)
    return [line.rstrip("\r\n") for line in sys.stdin]


def cmd_translate(args):
    started, started_cpu = time.perf_counter(), time.process_time()
    if args.threads:
        set_threads(args.threads)
    translator = Translator(args.model, skip_blank=args.skip_blank)
    apply_mask_heads(translator, args.mask_heads, "translate")
    loaded, loaded_cpu = time.perf_counter(), time.process_time()
    texts = read_inputs(args.text)
    record = bool(args.dump_attention)
    results = translator.translate(texts, args.max_length, args.batch_size, record) if texts else []
    translated, translated_cpu = time.perf_counter(), time.process_time()
    if args.timing:
        # Seconds since this function started: after the imports, so the torch import is not
        # in it (the caller times the whole process).
        print(json.dumps({"load_seconds": round(loaded - started, 4),
                          "translate_seconds": round(translated - loaded, 4),
                          "load_cpu_seconds": round(loaded_cpu - started_cpu, 4),
                          "translate_cpu_seconds": round(translated_cpu - loaded_cpu, 4),
                          "sentences": len(results),
                          "generated_tokens": sum(len(r["ids"]) for r in results),
                          "threads": torch.get_num_threads()}), file=sys.stderr)
    out = sys.stdout
    for res in results:
        if args.jsonl:
            target_ids = res["ids"]
            out.write(json.dumps({
                "source": res["source"], "translation": res["translation"],
                "source_ids": res["source_ids"], "ids": target_ids,
                "tokens": [translator.target_sp.id_to_piece(i) for i in target_ids],
                "scores": res["scores"], "score": sum(res["scores"]),
            }, ensure_ascii=False) + "\n")
        else:
            out.write(res["translation"] + "\n")
    if record:
        with open(args.dump_attention, "w", encoding="utf-8") as f:
            json.dump(translator.attention_dump(results), f, ensure_ascii=False)
            f.write("\n")
    return 0


# ----------------------------------------------------------------------------- beam, score

def hypothesis_json(hyp, length_penalty):
    out = {"translation": hyp["translation"], "tokens": hyp["tokens"], "ids": hyp["ids"],
           "token_log_probs": hyp["token_log_probs"], "score": hyp["score"]}
    if length_penalty != 0:
        out["ranking_score"] = hyp["ranking_score"]
    return out


def cmd_beam(args):
    if args.threads:
        set_threads(args.threads)
    translator = Translator(args.model, skip_blank=args.skip_blank)
    apply_mask_heads(translator, args.mask_heads, "beam")
    texts = read_inputs(args.text)
    n_best = args.n_best or 1
    results = translator.beam(texts, args.beam_size, n_best, args.length_penalty,
                              args.max_length, [args.prefix] * len(texts) if args.prefix else None)
    for line, res in enumerate(results, 1):
        best = res["hypotheses"][0]
        record = {"line": line, "source": res["source"]}
        record.update(hypothesis_json(best, args.length_penalty))
        if args.n_best:
            record["n_best"] = [hypothesis_json(h, args.length_penalty)
                                for h in res["hypotheses"]]
        print(json.dumps(record, ensure_ascii=False))
    return 0


def score_pairs(args):
    """(line number, source, target or None when the line has no tab)."""
    if args.pairs:
        if len(args.pairs) % 2:
            raise SystemExit("reference.py score: SOURCE TARGET arguments come in pairs")
        return [(n + 1, args.pairs[2 * n], args.pairs[2 * n + 1])
                for n in range(len(args.pairs) // 2)]
    stream = open(args.input, encoding="utf-8") if args.input else sys.stdin
    pairs = []
    for n, line in enumerate(stream, 1):
        line = line.rstrip("\r\n")
        source, tab, target = line.partition("\t")
        pairs.append((n, source, target if tab else None))
    return pairs


def cmd_score(args):
    if args.threads:
        set_threads(args.threads)
    translator = Translator(args.model)
    apply_mask_heads(translator, args.mask_heads, "score")
    record = bool(args.dump_attention)
    results, status = [], 0
    for line, source, target in score_pairs(args):
        if target is None:
            print(json.dumps({"line": line, "error": "no tab between source and target"}))
            status = 1
            continue
        try:
            res = translator.score(source, target, record)
        except ValueError as e:
            print(json.dumps({"line": line, "error": str(e)}))
            status = 1
            continue
        results.append(res)
        print(json.dumps({"line": line, "source": source, "target": target,
                          "tokens": res["tokens"], "token_log_probs": res["token_log_probs"],
                          "score": res["score"]}, ensure_ascii=False))
    if record:
        with open(args.dump_attention, "w", encoding="utf-8") as f:
            json.dump(translator.attention_dump(results), f, ensure_ascii=False)
            f.write("\n")
    return status


def cmd_distribution(args):
    translator = Translator(args.model)
    probs = translator.next_distribution(args.text, args.temperature, args.top_k, args.top_p,
                                         args.prefix)
    order = sorted(range(len(probs)), key=lambda i: (-float(probs[i]), i))
    print(json.dumps({"source": args.text, "prefix": args.prefix or "",
                      "distribution": [{"id": i, "piece": translator.target_sp.id_to_piece(i),
                                        "p": float(probs[i])}
                                       for i in order if probs[i] > 0]}, ensure_ascii=False))
    return 0


# ----------------------------------------------------------------------------- random model

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


def randomize(model, config, seed, eos_boost=0.0):
    """Seeded random weights, scaled so attention rows are informative (neither uniform
    nor one-hot) and logits are well separated (greedy is not decided by rounding)."""
    gen = torch.Generator().manual_seed(seed)
    d_model = config["d_model"]
    embed_std = 1.0 / math.sqrt(d_model) if config["scale_embeddings"] else 1.0

    def normal(shape, std, mean=0.0):
        return torch.randn(shape, generator=gen) * std + mean

    state = model.state_dict()
    new = {}
    for name in sorted(state):
        shape = state[name].shape
        if name.endswith("embed_tokens.weight"):
            value = normal(shape, embed_std)
        elif name.endswith("embed_positions.weight"):
            value = normal(shape, 0.5)
        elif "layer_norm" in name:
            value = normal(shape, 0.1, 1.0 if name.endswith("weight") else 0.0)
        elif name.endswith(("q_proj.weight", "k_proj.weight")):
            value = normal(shape, 1.2 / math.sqrt(shape[1]))
        elif name.endswith(("out_proj.weight", "fc2.weight")):
            # sublayer outputs comparable to the residual stream, so that generated
            # tokens vary instead of the embedding of the last token winning again
            value = normal(shape, 2.0 / math.sqrt(shape[1]))
        elif name.endswith(".weight") and name != "lm_head.weight":
            value = normal(shape, 1.0 / math.sqrt(shape[1]))
        elif name == "lm_head.weight":
            value = normal(shape, 1.0 / math.sqrt(shape[1]) * 2.0)
        elif name == "final_logits_bias":
            value = normal(shape, 0.5)
            value[int(config["special_tokens"]["eos"])] += eos_boost
        else:  # Linear biases
            value = normal(shape, 0.1)
        new[name] = value
    model.load_state_dict(new, strict=True)


def cmd_random_model(args):
    out_dir = args.out_dir
    os.makedirs(out_dir, exist_ok=True)
    source_vocab = train_tokenizer(ENGLISH, args.vocab, os.path.join(out_dir, "source.spm"),
                                   seed=args.seed)
    target_vocab = train_tokenizer(FRENCH, args.target_vocab or args.vocab,
                                   os.path.join(out_dir, "target.spm"), seed=args.seed + 1)
    config = mm.make_config(
        d_model=args.d_model, num_heads=args.heads, head_dim=args.head_dim,
        d_ff=args.d_ff, encoder_layers=args.encoder_layers, decoder_layers=args.decoder_layers,
        activation=args.activation, norm_position=args.norm, layer_norm_eps=args.eps,
        max_positions=args.max_positions, positions=args.positions,
        scale_embeddings=args.scale_embeddings, source_vocab_size=source_vocab,
        target_vocab_size=target_vocab, tie_output=args.tie)
    if args.decoder_start is not None:
        config["decoder_start_token"] = args.decoder_start
    torch.manual_seed(args.seed)
    model = mm.MinimtTransformer(config, final_logits_bias=args.final_logits_bias)
    randomize(model, config, args.seed, args.eos_boost)
    mm.save_model(model, config, out_dir, args.dtype)
    return 0


# ----------------------------------------------------------------------------- bench-steps

def bench_sources(config, batch):
    """The sources minimt_bench steps uses: 11 tokens 4 + (b + i) % (V - 4), then eos."""
    vocab = int(config["source_vocab_size"])
    eos = int(config["special_tokens"]["eos"])
    return [[4 + (b + i) % (vocab - 4) for i in range(11)] + [eos] for b in range(batch)]


def cmd_bench_steps(args):
    """Cached decoder steps/s at a batch size, measured as minimt_bench steps measures them:
    fixed 12-token sources, encode once, then `steps` decoder steps each fed the arg-max of
    the previous one (no sentence leaves the batch); median of 5 repeats, wall and thread
    CPU time."""
    set_threads(max(1, args.threads))
    model, config = mm.load_model(args.model)
    steps = min(args.steps, int(config["max_positions"]) - 1)
    src = torch.tensor(bench_sources(config, args.batch), dtype=torch.long)
    start = mm.decoder_start_of(config)
    rates, cpu_rates = [], []
    with torch.inference_mode():
        for _ in range(args.repeats):
            enc_out = model.encode(src)
            state = model.start_decoding(enc_out, None, steps)
            tokens = torch.full((args.batch, 1), start, dtype=torch.long)
            wall, cpu = time.perf_counter(), time.thread_time()
            for _ in range(steps):
                logits = model.decode_step(tokens, state)
                tokens = torch.argmax(logits, dim=-1)[:, None]
            cpu = time.thread_time() - cpu
            wall = time.perf_counter() - wall
            rates.append(steps / wall)
            cpu_rates.append(steps / cpu if cpu > 0 else float("inf"))
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    rate = median(rates)
    print(json.dumps({"batch": args.batch, "steps": steps, "steps_per_second": round(rate, 2),
                      "ms_per_step": round(1000.0 / rate, 3),
                      "cpu_steps_per_second": round(median(cpu_rates), 2),
                      "threads": torch.get_num_threads(), "torch": torch.__version__}))
    return 0


# ----------------------------------------------------------------------------- main

def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    tr = sub.add_parser("translate", help="translate TEXT arguments or stdin lines")
    tr.add_argument("--model", required=True, help="model directory")
    tr.add_argument("--max-length", type=int, default=256,
                    help="most tokens generated, eos included (capped at max_positions)")
    tr.add_argument("--dump-attention", metavar="FILE", help="write attention weights as JSON")
    tr.add_argument("--batch-size", type=int, default=16)
    tr.add_argument("--threads", type=int, default=0,
                    help="torch and OpenBLAS threads (0: leave as is)")
    tr.add_argument("--jsonl", action="store_true",
                    help="print one JSON object per sentence (ids, tokens, log-prob scores)")
    tr.add_argument("--skip-blank", action="store_true",
                    help="blank inputs give blank outputs without running the model")
    tr.add_argument("--timing", action="store_true",
                    help="print load and translation seconds as JSON on stderr")
    tr.add_argument("--mask-heads", metavar="SPEC",
                    help="switch heads off: TYPE:LAYER:HEAD,... (TYPE encoder, decoder or cross; "
                         "LAYER, HEAD numbers, negative from the end, or *)")
    tr.add_argument("text", nargs="*")
    tr.set_defaults(func=cmd_translate)

    bm = sub.add_parser("beam", help="beam search of TEXT arguments or stdin lines (JSON Lines)")
    bm.add_argument("--model", required=True, help="model directory")
    bm.add_argument("--beam-size", type=int, default=4)
    bm.add_argument("--n-best", type=int, default=None,
                    help="also print the K best hypotheses as n_best (K <= beam size)")
    bm.add_argument("--length-penalty", type=float, default=0.0,
                    help="ranking score = sum of log-probs / length^A (length counts eos)")
    bm.add_argument("--max-length", type=int, default=256,
                    help="most tokens generated, eos and prefix included (capped at max_positions)")
    bm.add_argument("--prefix", help="force the start of every translation")
    bm.add_argument("--threads", type=int, default=0)
    bm.add_argument("--skip-blank", action="store_true",
                    help="blank inputs give an empty hypothesis without running the model")
    bm.add_argument("--mask-heads", metavar="SPEC",
                    help="switch heads off: TYPE:LAYER:HEAD,... (TYPE encoder, decoder or cross; "
                         "LAYER, HEAD numbers, negative from the end, or *)")
    bm.add_argument("text", nargs="*")
    bm.set_defaults(func=cmd_beam)

    sc = sub.add_parser("score", help="teacher-forced log-probabilities of given translations")
    sc.add_argument("--model", required=True, help="model directory")
    sc.add_argument("-i", "--input", help="file of source<TAB>target lines (default: stdin)")
    sc.add_argument("--dump-attention", metavar="FILE", help="write attention weights as JSON")
    sc.add_argument("--threads", type=int, default=0)
    sc.add_argument("--mask-heads", metavar="SPEC",
                    help="switch heads off: TYPE:LAYER:HEAD,... (TYPE encoder, decoder or cross; "
                         "LAYER, HEAD numbers, negative from the end, or *)")
    sc.add_argument("pairs", nargs="*", metavar="SOURCE TARGET")
    sc.set_defaults(func=cmd_score)

    ds = sub.add_parser("distribution", help="the first sampled token's distribution")
    ds.add_argument("--model", required=True, help="model directory")
    ds.add_argument("--temperature", type=float, default=1.0)
    ds.add_argument("--top-k", type=int, default=0, help="0: all tokens")
    ds.add_argument("--top-p", type=float, default=1.0)
    ds.add_argument("--prefix", help="forced start of the translation")
    ds.add_argument("text")
    ds.set_defaults(func=cmd_distribution)

    bs = sub.add_parser("bench-steps", help="decoder steps/s, as minimt_bench steps")
    bs.add_argument("--model", required=True, help="model directory")
    bs.add_argument("--batch", type=int, default=1)
    bs.add_argument("--steps", type=int, default=64)
    bs.add_argument("--threads", type=int, default=1)
    bs.add_argument("--repeats", type=int, default=5)
    bs.set_defaults(func=cmd_bench_steps)

    rm = sub.add_parser("random-model", help="write a model directory with random weights")
    rm.add_argument("out_dir")
    rm.add_argument("--seed", type=int, default=0)
    rm.add_argument("--d-model", type=int, default=16)
    rm.add_argument("--heads", type=int, default=2)
    rm.add_argument("--head-dim", type=int, default=None)
    rm.add_argument("--d-ff", type=int, default=32)
    rm.add_argument("--encoder-layers", type=int, default=2)
    rm.add_argument("--decoder-layers", type=int, default=2)
    rm.add_argument("--norm", choices=["post", "pre"], default="post")
    rm.add_argument("--positions", choices=["sinusoidal", "learned"], default="sinusoidal")
    rm.add_argument("--activation", choices=["relu", "gelu", "silu"], default="relu")
    rm.add_argument("--tie", dest="tie", action="store_true", default=True)
    rm.add_argument("--no-tie", dest="tie", action="store_false")
    rm.add_argument("--final-logits-bias", action="store_true")
    rm.add_argument("--eos-boost", type=float, default=0.0,
                    help="added to final_logits_bias[eos] so sentences end early")
    rm.add_argument("--dtype", choices=["F32", "F16", "BF16", "inline"], default="F32")
    rm.add_argument("--scale-embeddings", dest="scale_embeddings", action="store_true",
                    default=True)
    rm.add_argument("--no-scale-embeddings", dest="scale_embeddings", action="store_false")
    rm.add_argument("--vocab", type=int, default=100, help="requested SentencePiece vocabulary")
    rm.add_argument("--target-vocab", type=int, default=None)
    rm.add_argument("--max-positions", type=int, default=32)
    rm.add_argument("--eps", type=float, default=1e-5, help="layer_norm_eps")
    rm.add_argument("--decoder-start", type=int, default=None, help="decoder_start_token")
    rm.set_defaults(func=cmd_random_model)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
