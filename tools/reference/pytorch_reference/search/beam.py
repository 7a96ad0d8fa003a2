"""Beam search, the independent check of minimt's (issue 11; the contract is `minimt translate
--help` and docs/search.md). Written to be obviously right, not fast: every step re-runs the
decoder over each live hypothesis's whole prefix (no cache), and log-probabilities are
log_softmax in float64 of the model's float32 logits.

    beam_search(model, src_ids, beam_size, n_best, length_penalty, max_length, prefix=())
        -> list of n_best dicts, best first: ids (eos included if produced),
           token_log_probs, score (their sum), ranking_score, eos (bool)
    ranking_score(total, length, length_penalty) -> total / length^length_penalty
    best_reachable(total, length, max_length, length_penalty) -> the stopping rule's bound

Semantics (as Hugging Face / CTranslate2, ties broken as minimt documents): live hypotheses
start as [start] with score 0. Each step, every (live hypothesis, token) is a candidate scored
by its summed log-probability; the best 2N candidates are walked best first (ties: lower
hypothesis index, then lower token id). A candidate ending in eos is finished if it is among
the first N, else ignored; any other candidate becomes live until N are live. The search stops
when N hypotheses are finished and the best live one cannot beat the N-th best finished one
(best_reachable), or when max_length tokens have been generated: the live hypotheses are then
finished as they are, without eos (this comes first: at the last step no bound is checked).
The result is the finished hypotheses by ranking score, best first (ties: the one finished
first). Beam size 1 is greedy search whatever the length penalty (it stops at the first eos;
ranking_score still divides by length^A). Forced prefix tokens are fed one by one before the
search proper; their log-probabilities count in the score and their number in the length,
which max_length bounds.
"""
import torch

from .scoring import log_probs


def ranking_score(total, length, length_penalty):
    """total / length^A; A = 0 is no penalty (also for an empty hypothesis)."""
    if length_penalty == 0:
        return total
    return total / float(length) ** length_penalty


def best_reachable(total, length, max_length, length_penalty):
    """The best ranking score a live hypothesis of `length` tokens summing to `total` can still
    reach (log-probabilities only lower the sum): total / max_length^A for A > 0, total for
    A = 0, total / (length + 1)^A for A < 0."""
    if length_penalty > 0:
        return total / float(max_length) ** length_penalty
    if length_penalty < 0:
        return total / float(length + 1) ** length_penalty
    return total


class Hypothesis:
    """Generated ids (no start token) with the log-probability of each."""

    def __init__(self, ids, token_log_probs):
        self.ids = ids
        self.token_log_probs = token_log_probs
        self.total = sum(token_log_probs)

    def extended(self, token, log_prob):
        return Hypothesis(self.ids + [token], self.token_log_probs + [log_prob])


def _next_log_probs(model, enc_out, live):
    """log-probabilities [n, V] (float64) of the token after each live hypothesis: the
    decoder re-run over [start] + ids (all live hypotheses have the same length)."""
    tgt = torch.tensor([[model.decoder_start] + h.ids for h in live], dtype=torch.long)
    memory = enc_out.expand(len(live), -1, -1)
    return log_probs(model.decode_full(memory, tgt)[:, -1])


def _best_candidates(live, logp, count):
    """The `count` best (total, hypothesis index, token) by summed log-probability; ties:
    lower hypothesis index, then lower token id."""
    totals = (torch.tensor([h.total for h in live], dtype=torch.float64)[:, None] + logp)
    flat = totals.reshape(-1).tolist()
    vocab = logp.shape[1]
    order = sorted(range(len(flat)), key=lambda i: (-flat[i], i))[:count]
    return [(flat[i], i // vocab, i % vocab) for i in order]


def _cannot_improve(finished, live, beam_size, length_penalty, max_length):
    """True when N hypotheses are finished and no live one can still beat the N-th best."""
    if not live:
        return True
    if len(finished) < beam_size:
        return False
    ranked = sorted((f["ranking_score"] for f in finished), reverse=True)
    worst = ranked[beam_size - 1]
    best = max(h.total for h in live)
    return best_reachable(best, len(live[0].ids), max_length, length_penalty) <= worst


def _finish(hyp, eos, length_penalty):
    return {"ids": hyp.ids, "token_log_probs": hyp.token_log_probs, "score": hyp.total,
            "ranking_score": ranking_score(hyp.total, len(hyp.ids), length_penalty),
            "eos": bool(hyp.ids) and hyp.ids[-1] == eos}


@torch.no_grad()
def beam_search(model, src_ids, beam_size, n_best, length_penalty, max_length, prefix=()):
    """One sentence: src_ids a list of source ids (eos included, no padding)."""
    if not 1 <= n_best <= beam_size:
        raise ValueError("need 1 <= n_best <= beam_size")
    model.eval()
    max_length = max(0, min(int(max_length), model.max_positions))
    enc_out = model.encode(torch.tensor([list(src_ids)], dtype=torch.long))
    eos = model.eos
    stop_penalty = length_penalty if beam_size > 1 else 0.0  # beam 1 is greedy search
    live, finished = [Hypothesis([], [])], []
    for step in range(max_length):
        logp = _next_log_probs(model, enc_out, live)
        if step < len(prefix):  # forced: one live hypothesis, the prefix so far
            token = int(prefix[step])
            live = [live[0].extended(token, float(logp[0, token]))]
            continue
        candidates = _best_candidates(live, logp, 2 * beam_size)
        parents, live = live, []
        for rank, (_, h, token) in enumerate(candidates):
            hyp = parents[h].extended(token, float(logp[h, token]))
            if token == eos:
                if rank < beam_size:
                    finished.append(_finish(hyp, eos, length_penalty))
            elif len(live) < beam_size:
                live.append(hyp)
        if step + 1 < max_length and _cannot_improve(finished, live, beam_size, stop_penalty,
                                                     max_length):
            live = []
            break
    finished += [_finish(h, eos, length_penalty) for h in live]
    finished.sort(key=lambda f: -f["ranking_score"])  # stable: ties keep finishing order
    return finished[:n_best]
