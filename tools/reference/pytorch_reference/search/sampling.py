"""The distribution `minimt translate --sample` draws a token from (docs/search.md).

    sampling_distribution(logits, temperature=1.0, top_k=0, top_p=1.0) -> float64 [V]
"""
import torch


def sampling_distribution(logits, temperature=1.0, top_k=0, top_p=1.0):
    """The distribution `--sample` draws from, float64 [V]: softmax(logits / T), restricted
    to the top_k most likely tokens (0 = all; ties: lower id first), renormalized, then to
    the smallest set of most likely tokens whose probability sums to >= top_p, renormalized."""
    if temperature <= 0 or not 0 < top_p <= 1 or top_k < 0:
        raise ValueError("need temperature > 0, 0 < top_p <= 1, top_k >= 0")
    probs = torch.softmax(logits.float().double() / temperature, dim=-1)
    values = probs.tolist()
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    if top_k > 0:
        order = order[:top_k]
    if top_p < 1:
        kept = sum(values[i] for i in order)
        running, cut = 0.0, len(order)
        for n, i in enumerate(order):
            running += values[i] / kept
            if running >= top_p:
                cut = n + 1
                break
        order = order[:cut]
    out = torch.zeros_like(probs)
    keep = torch.tensor(order, dtype=torch.long)
    out[keep] = probs[keep] / probs[keep].sum()
    return out
