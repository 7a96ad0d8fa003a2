"""generate() with num_beams=1 as transformers runs it for these families (greedy: the
arg-max, the lowest id on a tie; ForcedBOSTokenLogitsProcessor when forced_bos_token_id is
set: every logit -inf but the forced token's, at the first generated position), the scores
compute_transition_scores gives (log_softmax of the processed logits), and the attention of
the chosen output read back by one teacher-forced pass (output_attentions)."""
import torch


def apply_processors(logits, history, repetition_penalty=1.0, no_repeat_ngram_size=0):
    """RepetitionPenaltyLogitsProcessor and NoRepeatNGramLogitsProcessor (transformers 4.30)
    on one row, history being generate()'s input_ids (the start token included)."""
    if repetition_penalty != 1.0:
        seen = torch.tensor(sorted(set(history)))
        score = logits[seen]
        logits[seen] = torch.where(score < 0, score * repetition_penalty,
                                   score / repetition_penalty)
    n = no_repeat_ngram_size
    if n and len(history) + 1 >= n:
        ngrams = {}
        for i in range(len(history) - n + 1):
            ngrams.setdefault(tuple(history[i:i + n - 1]), []).append(history[i + n - 1])
        for token in ngrams.get(tuple(history[len(history) - n + 1:]), []):
            logits[token] = float("-inf")
    return logits


def greedy(model, source_ids, start, eos, max_new_tokens, forced=None, **processors):
    """-> dict: tokens, log_probs, finished, encoder/decoder/cross attention."""
    with torch.no_grad():
        memory, encoder_attention = model.encode(source_ids)
        decoder_input, tokens, log_probs = [start], [], []
        while len(tokens) < max_new_tokens:
            logits = apply_processors(model.decode(decoder_input, memory)[0][-1].clone(),
                                      decoder_input, **processors)
            if forced is not None and len(tokens) == 0:
                processed = torch.full_like(logits, float("-inf"))
                processed[forced] = 0.0
                logits = processed
            scores = torch.log_softmax(logits, dim=-1)
            token = int(torch.argmax(scores))
            tokens.append(token)
            log_probs.append(float(scores[token]))
            if token == eos:
                break
            decoder_input.append(token)
        result = score(model, source_ids, tokens, start, forced, memory)
        result.update({"tokens": tokens, "greedy_log_probs": log_probs,
                       "finished": tokens[-1] == eos, "encoder": encoder_attention})
        return result


def score(model, source_ids, tokens, start, forced=None, memory=None):
    """Teacher forcing: the log-probability of each given token, and the attention."""
    with torch.no_grad():
        if memory is None:
            memory, _ = model.encode(source_ids)
        logits, selfs, crosses = model.decode([start] + tokens[:-1], memory)
        if forced is not None:
            logits[0] = float("-inf")
            logits[0, forced] = 0.0
        scores = torch.log_softmax(logits, dim=-1)
        return {"log_probs": [float(scores[i, t]) for i, t in enumerate(tokens)],
                "decoder": selfs, "cross": crosses}
