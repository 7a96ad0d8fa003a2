"""A model directory as a translator, text in and text out as minimt's commands see it: the
model and both SentencePiece tokenizers, source ids (pieces + eos, cut to max_positions),
batches of padded sources, and the searches of ../search over them.

    Translator(model_dir, quiet=False, skip_blank=False)
        .translate(texts, max_length, batch_size=16, record_attention=False) -> result dicts
        .beam(texts, beam_size, n_best, length_penalty, max_length, prefixes=None)
        .score(source, target, record_attention=False)      (`minimt score` of one pair)
        .next_distribution(text, temperature, top_k, top_p, prefix=None)
        .mask_heads(spec)                                    (--mask-heads SPEC)
    is_blank(text)
"""
import sys

import sentencepiece as spm
import torch

from . import head_mask_spec
from .model.config import decoder_start_of
from .model.files import inside, load_model
from .search.beam import beam_search
from .search.greedy import greedy, greedy_fast
from .search.sampling import sampling_distribution
from .search.scoring import score_target


def is_blank(text):
    """Empty or only ASCII whitespace (the engine's definition)."""
    return all(c in " \t\n\v\f\r" for c in text)


class Translator:
    """A loaded model directory: model, config and both tokenizers."""

    def __init__(self, model_dir, quiet=False, skip_blank=False):
        """skip_blank: empty / all-whitespace inputs are not searched: their translation is
        "", the output eos alone, scored by teacher forcing (the C++ engine's policy,
        blank_result); by default they are searched like any other source."""
        self.model_dir = model_dir
        self.quiet = quiet
        self.skip_blank = skip_blank
        self.model, self.config = load_model(model_dir)
        tok = self.config["tokenizer"]
        self.source_sp = spm.SentencePieceProcessor(model_file=inside(model_dir, tok["source"]))
        self.target_sp = spm.SentencePieceProcessor(model_file=inside(model_dir, tok["target"]))
        self.pad = int(self.config["special_tokens"]["pad"])
        self.eos = int(self.config["special_tokens"]["eos"])
        self.start = decoder_start_of(self.config)
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

    def padded(self, sources):
        """Source id lists as one padded batch: ids [B, S] and the padding mask [B, S]."""
        width = max(len(s) for s in sources)
        src = torch.full((len(sources), width), self.pad, dtype=torch.long)   # [B, S]
        pad_mask = torch.ones(len(sources), width, dtype=torch.bool)
        for i, ids in enumerate(sources):
            src[i, :len(ids)] = torch.tensor(ids, dtype=torch.long)
            pad_mask[i, :len(ids)] = False
        return src, pad_mask

    # -- greedy

    def translate(self, texts, max_length, batch_size=16, record_attention=False):
        """Results in the order of texts. With record_attention, consecutive texts form the
        batches and the recording greedy search runs (search.greedy); otherwise texts are
        sorted by source length first, so that a batch carries little padding, and the fast
        search runs (search.greedy_fast)."""
        batch_size = max(1, batch_size)
        if record_attention:
            results = []
            for begin in range(0, len(texts), batch_size):
                results += self.translate_batch(texts[begin:begin + batch_size], max_length,
                                                record_attention)
            return results
        sources = [None if self.skip_blank and is_blank(t) else self.source_ids(t)
                   for t in texts]
        results = [self.blank_result(t) if ids is None else None
                   for t, ids in zip(texts, sources)]
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

    def translate_batch(self, texts, max_length, record_attention=False):
        """texts -> list of result dicts (source, translation, ids, scores, [attention])."""
        if self.skip_blank:
            run = [t for t in texts if not is_blank(t)]
            done = iter(self._run_batch(run, max_length, record_attention) if run else [])
            return [self.blank_result(t, record_attention) if is_blank(t) else next(done)
                    for t in texts]
        return self._run_batch(texts, max_length, record_attention)

    def _run_batch(self, texts, max_length, record_attention):
        sources = [self.source_ids(t) for t in texts]
        src, pad_mask = self.padded(sources)
        results = greedy(self.model, src, self.max_length(max_length), pad_mask,
                         record_attention)
        out = []
        for text, ids, res in zip(texts, sources, results):
            res = dict(res)
            res["source"] = text
            res["source_ids"] = ids
            res["translation"] = self.detokenize(res["ids"])
            out.append(res)
        return out

    def _run_fast(self, sources, max_length):
        src, pad_mask = self.padded(sources)
        return greedy_fast(self.model, src, self.max_length(max_length),
                           pad_mask if pad_mask.any() else None)

    # -- text and pieces

    def detokenize(self, ids):
        """Target decoding of the generated ids without eos."""
        return self.target_sp.decode([i for i in ids if i != self.eos])

    def target_ids(self, text):
        """Target tokenizer ids of text (no eos): forced prefixes and scored targets."""
        return list(self.target_sp.encode(text))

    def pieces(self, ids):
        return [self.target_sp.id_to_piece(i) for i in ids]

    # -- beam, scoring, sampling

    def hypothesis(self, hyp):
        """A beam result of search.beam.beam_search with its text and pieces (one per
        log-probability, eos included, as in minimt's JSON Lines)."""
        out = dict(hyp)
        out["translation"] = self.detokenize(hyp["ids"])
        out["tokens"] = self.pieces(hyp["ids"])
        return out

    def beam(self, texts, beam_size, n_best, length_penalty, max_length, prefixes=None):
        """Beam search of each text -> list of {source, source_ids, hypotheses (best first)}.
        prefixes: None, or one prefix text (or None) per text. A blank input with skip_blank
        gives one hypothesis, the empty translation (eos alone, scored: blank_result)."""
        results = []
        for n, text in enumerate(texts):
            prefix = prefixes[n] if prefixes else None
            if self.skip_blank and is_blank(text):
                blank = self.blank_result(text)
                hyps = [{"ids": blank["ids"], "token_log_probs": blank["token_log_probs"],
                         "score": blank["score"], "ranking_score": blank["score"], "eos": True}]
                results.append({"source": text, "source_ids": blank["source_ids"],
                                "hypotheses": [self.hypothesis(h) for h in hyps]})
                continue
            ids = self.source_ids(text)
            hyps = beam_search(self.model, ids, beam_size, n_best, length_penalty,
                               self.max_length(max_length),
                               self.target_ids(prefix) if prefix else ())
            results.append({"source": text, "source_ids": ids,
                            "hypotheses": [self.hypothesis(h) for h in hyps]})
        return results

    def blank_result(self, text, record_attention=False):
        """A blank input under skip_blank: not searched; the empty translation, the output eos
        alone, with the log-probability the model gives it (as score "" "" has it)."""
        res = self.force(text, [self.eos], record_attention)
        res["scores"] = res["token_log_probs"]
        return res

    def force(self, source, target_ids, record_attention=False):
        """Teacher-forced scoring of given target ids (eos included) -> a result dict with
        the keys attention_dump reads (ids = target_ids) and token_log_probs, score."""
        src = self.source_ids(source)
        if len(target_ids) > self.max_positions:
            raise ValueError("target of %d tokens (eos included) exceeds max_positions %d"
                             % (len(target_ids), self.max_positions))
        res = score_target(self.model, src, target_ids, record_attention)
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
        return sampling_distribution(logits, temperature, top_k, top_p)
