"""generate() with num_beams=1 as transformers runs it for these families (greedy: the
arg-max, the lowest id on a tie; ForcedBOSTokenLogitsProcessor when forced_bos_token_id is
set: every logit -inf but the forced token's, at the first generated position), the scores
compute_transition_scores gives (log_softmax of the processed logits), and the attention of
the chosen output read back by one teacher-forced pass (output_attentions)."""
import torch


def greedy(model, source_ids, start, eos, max_new_tokens, forced=None):
    """-> dict: tokens, log_probs, finished, encoder/decoder/cross attention."""
    with torch.no_grad():
        memory, encoder_attention = model.encode(source_ids)
        decoder_input, tokens, log_probs = [start], [], []
        while len(tokens) < max_new_tokens:
            logits = model.decode(decoder_input, memory)[0][-1]
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
