"""generate() with num_beams=1 as transformers runs it for these families (greedy: the
arg-max, the lowest id on a tie; ForcedBOSTokenLogitsProcessor when forced_bos_token_id is
set: every logit -inf but the forced token's, at the first generated position;
ForcedEOSTokenLogitsProcessor when forced_eos_token_id is: the same for eos where the output
reaches max_length, max_new_tokens here), the scores
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


def force(logits, token):
    """ForcedBOS/ForcedEOSTokenLogitsProcessor: every score -inf but the token's, which is 0."""
    logits[:] = float("-inf")
    logits[token] = 0.0
    return logits


def greedy(model, source_ids, start, eos, max_new_tokens, forced=None, forced_eos=None,
           **processors):
    """-> dict: tokens, log_probs, finished, encoder/decoder/cross attention."""
    with torch.no_grad():
        memory, encoder_attention = model.encode(source_ids)
        decoder_input, tokens, log_probs = [start], [], []
        while len(tokens) < max_new_tokens:
            logits = apply_processors(model.decode(decoder_input, memory)[0][-1].clone(),
                                      decoder_input, **processors)
            if forced is not None and len(tokens) == 0:
                logits = force(logits, forced)
            if forced_eos is not None and len(tokens) == max_new_tokens - 1:
                logits = force(logits, forced_eos)
            scores = torch.log_softmax(logits, dim=-1)
            token = int(torch.argmax(scores))
            tokens.append(token)
            log_probs.append(float(scores[token]))
            if token == eos:
                break
            decoder_input.append(token)
        last = max_new_tokens - 1 if forced_eos is not None else None
        result = score(model, source_ids, tokens, start, forced, memory, (last, forced_eos))
        result.update({"tokens": tokens, "greedy_log_probs": log_probs,
                       "finished": tokens[-1] == eos, "encoder": encoder_attention})
        return result


def score(model, source_ids, tokens, start, forced=None, memory=None, forced_eos=(None, None)):
    """Teacher forcing: the log-probability of each given token, and the attention.
    forced_eos: (the output position where eos is forced, eos), as greedy() forces it."""
    with torch.no_grad():
        if memory is None:
            memory, _ = model.encode(source_ids)
        logits, selfs, crosses = model.decode([start] + tokens[:-1], memory)
        if forced is not None:
            logits[0] = float("-inf")
            logits[0, forced] = 0.0
        position, token = forced_eos
        if position is not None and position < len(tokens):
            force(logits[position], token)
        scores = torch.log_softmax(logits, dim=-1)
        return {"log_probs": [float(scores[i, t]) for i, t in enumerate(tokens)],
                "decoder": selfs, "cross": crosses}
