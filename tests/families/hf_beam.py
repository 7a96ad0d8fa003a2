"""generate() with num_beams > 1 as transformers 4.30 runs it for these families, written from
its generation/utils.py (generate's beam branch, beam_search, _get_logits_processor) and
generation/beam_search.py (BeamSearchScorer.process / finalize, BeamHypotheses.add / is_done),
read, not imported. The copies read were huggingface/transformers at commit 010654337d6b
(4.27.0.dev0; no 4.30.2 copy was at hand), whose beam search already has 4.30.2's form:
early_stopping True/False/"never", max_length passed to BeamHypotheses, and no
decoder_prompt_len (4.35 added it; it changes what a length counts). The processors follow
logits_process.py of the same form (ForcedEOS sets eos to 0, NoBadWords drops [eos]).

One sentence at a time (batch 1), num_beams rows:

  - beam_scores start at 0 for beam 0 and -1e9 for the others (float32), so that the first step
    only expands beam 0;
  - each step: log_softmax of the rows' logits, then the processors on it in generate()'s order
    (repetition penalty, no repeated n-grams, bad words, forced BOS at the first step, forced
    EOS when input_ids reach max_length - 1), not renormalized; plus the beam's score;
  - the 2 * num_beams best of all rows' scores (torch.topk over beam-major [beam * V + token]);
  - in rank order: an eos candidate among the first num_beams goes to the hypotheses with score
    sum / len(input_ids of its beam) ** length_penalty, the start token counted, the eos not
    (so: the output tokens, eos included); a later eos is dropped; other candidates fill the
    num_beams next beams;
  - BeamHypotheses keeps the num_beams best (an equal score does not displace one);
  - is_done, with cur_len the input length before the step's token: fewer than num_beams
    hypotheses -> no; early_stopping True -> yes; False -> worst kept >= best candidate score /
    cur_len ** length_penalty; "never" -> the same with max_length for cur_len when
    length_penalty > 0;
  - the loop ends when is_done or input_ids reach max_length (the start token counted); then,
    unless done, every live beam is added with its score (the start token and every output
    token counted: one more than minimt's length of the same output);
  - the best hypothesis: the highest score, the latest added of equal ones (sorted, pop());
    its sequence has eos appended when it ended with one. sequences_scores is its score.

max_length here is transformers' (generation_config.max_length, the start token counted)."""
import torch

import hf_generate


def bad_words_processor(bad_words_ids, eos):
    """NoBadWordsLogitsProcessor: sequences equal to [eos] are dropped; the last token of a
    sequence is banned where the input ends with the rest (a one-token sequence always)."""
    words = [list(w) for w in (bad_words_ids or []) if list(w) != [eos]]

    def apply(history, scores):
        for word in words:
            prefix = word[:-1]
            if len(prefix) > len(history):
                continue
            if not prefix or history[len(history) - len(prefix):] == prefix:
                scores[word[-1]] = float("-inf")
        return scores
    return apply


class Hypotheses:
    """BeamHypotheses of one sentence."""

    def __init__(self, num_beams, length_penalty, early_stopping, max_length):
        self.num_beams, self.length_penalty = num_beams, length_penalty
        self.early_stopping, self.max_length = early_stopping, max_length
        self.beams, self.worst_score = [], 1e9

    def add(self, hyp, sum_logprobs, log_probs, finished):
        score = sum_logprobs / (len(hyp) ** self.length_penalty)
        if len(self.beams) < self.num_beams or score > self.worst_score:
            self.beams.append((score, hyp, log_probs, finished, sum_logprobs))
            if len(self.beams) > self.num_beams:
                ranked = sorted([(s, i) for i, (s, *_) in enumerate(self.beams)])
                del self.beams[ranked[0][1]]
                self.worst_score = ranked[1][0]
            else:
                self.worst_score = min(score, self.worst_score)

    def is_done(self, best_sum_logprobs, cur_len):
        if len(self.beams) < self.num_beams:
            return False
        if self.early_stopping is True:
            return True
        if self.early_stopping is False or self.length_penalty <= 0.0:
            return self.worst_score >= best_sum_logprobs / cur_len ** self.length_penalty
        return self.worst_score >= best_sum_logprobs / self.max_length ** self.length_penalty


def beam_search(model, source_ids, start, eos, settings, forced=None):
    """settings: generate()'s num_beams, max_length, length_penalty (1.0), early_stopping
    (False), and where set forced_eos_token_id, bad_words_ids, repetition_penalty,
    no_repeat_ngram_size. forced: forced_bos_token_id.
    -> dict: tokens (output ids, eos included when it ended with it), log_probs (the processed
    log-probability of each, compute_transition_scores' values), score (sequences_scores),
    sum, finished, steps."""
    num_beams = settings["num_beams"]
    max_length = settings["max_length"]
    penalty = settings.get("length_penalty", 1.0)
    early = settings.get("early_stopping", False)
    forced_eos = settings.get("forced_eos_token_id")
    repetition = {k: settings[k] for k in ("repetition_penalty", "no_repeat_ngram_size")
                  if settings.get(k) is not None}
    bad_words = bad_words_processor(settings.get("bad_words_ids"), eos)
    hypotheses = Hypotheses(num_beams, penalty, early, max_length)
    with torch.no_grad():
        memory, _ = model.encode(source_ids)
        inputs = [[start] for _ in range(num_beams)]
        token_scores = [[] for _ in range(num_beams)]  # the processed score of each token
        beam_scores = torch.zeros(num_beams, dtype=torch.float32)
        beam_scores[1:] = -1e9
        done, steps = False, 0
        while True:
            cur_len = len(inputs[0])
            rows = torch.stack([model.decode(ids, memory)[0][-1] for ids in inputs])
            scores = torch.log_softmax(rows.float(), dim=-1)
            for b in range(num_beams):
                row = hf_generate.apply_processors(scores[b], inputs[b], **repetition)
                row = bad_words(inputs[b], row)
                if forced is not None and cur_len == 1:
                    row[:] = float("-inf")
                    row[forced] = 0.0
                if forced_eos is not None and cur_len == max_length - 1:
                    row[:] = float("-inf")
                    row[forced_eos] = 0.0
                scores[b] = row
            vocab = scores.shape[-1]
            total = (scores + beam_scores[:, None]).view(-1)
            top_scores, top = torch.topk(total, 2 * num_beams, largest=True, sorted=True)
            next_beams = []
            for rank in range(2 * num_beams):
                beam, token = int(top[rank]) // vocab, int(top[rank]) % vocab
                value = top_scores[rank]
                if token == eos:
                    if rank >= num_beams:
                        continue
                    hypotheses.add(list(inputs[beam]), value.item(),
                                   token_scores[beam] + [float(scores[beam, token])], True)
                else:
                    next_beams.append((beam, token, value))
                if len(next_beams) == num_beams:
                    break
            done = done or hypotheses.is_done(top_scores.max().item(), cur_len)
            inputs = [inputs[b] + [t] for b, t, _ in next_beams]
            token_scores = [token_scores[b] + [float(scores[b, t])] for b, t, _ in next_beams]
            beam_scores = torch.stack([v for _, _, v in next_beams])
            steps += 1
            if done or len(inputs[0]) >= max_length:
                break
        if not done:
            for b in range(num_beams):
                hypotheses.add(inputs[b], beam_scores[b].item(), token_scores[b], False)
        score, hyp, log_probs, finished, total_sum = sorted(
            hypotheses.beams, key=lambda x: x[0]).pop()
    tokens = hyp[1:] + ([eos] if finished else [])
    return {"tokens": tokens, "log_probs": log_probs, "score": float(torch.tensor(score)),
            "sum": total_sum, "finished": finished, "steps": steps}
