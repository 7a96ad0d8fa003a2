"""Log-probabilities and teacher-forced scoring (`minimt score`; docs/search.md).

    log_probs(logits) -> float64 [..., V]: log_softmax in float64 of the float32 logits
    score_target(model, src_ids, target_ids, record_attention=False)
        -> dict: token_log_probs, score, and the attention tensors with record_attention
"""
import torch


def log_probs(logits):
    """Natural-log softmax in float64 of float32 logits [..., V]."""
    return torch.log_softmax(logits.float().double(), dim=-1)


@torch.no_grad()
def score_target(model, src_ids, target_ids, record_attention=False):
    """Teacher forcing: target_ids (eos included) fed as [start] + target_ids[:-1] in one
    causal pass. Returns token_log_probs (one per target id), score (their sum) and, with
    record_attention, encoder_self / decoder_self / cross as search.greedy records them."""
    model.eval()
    tgt_in = [model.decoder_start] + list(target_ids[:-1])
    out = model.teacher_forced(list(src_ids), tgt_in, record_attention)
    logp = log_probs(out.pop("logits"))
    token_log_probs = [float(logp[t, i]) for t, i in enumerate(target_ids)]
    out.update({"token_log_probs": token_log_probs, "score": sum(token_log_probs)})
    return out
