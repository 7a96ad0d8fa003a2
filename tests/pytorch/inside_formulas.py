"""What the attention dump's extras hold (issue 25), computed here in PyTorch from their
definitions (docs/model-format.md, "The attention dump"), not from minimt's code:

  scores   s_ij = q_i . k_j / sqrt(d_k), q_i = x_i W_Q^T + b_Q and k_j = m_j W_K^T + b_K
           restricted to head h's columns h*d_k .. (h+1)*d_k - 1; NaN where the causal mask is
  weights  a_ij = softmax_j of a row's scores over the keys it may read, times the head mask
  vectors  each head's slice of q, k and v = m W_V^T + b_V, unscaled
  norms    ||a_ij v_j W_O^h|| with W_O^h the columns of out_proj.weight that head h's d_v
           outputs multiply (no bias), and ||sum_j a_ij v_j W_O^h||
  lens     softmax(LN_final(x_l) W_out^T + b_out) of each decoder layer's output x_l (LN_final
           only where the model has one)

A batch of sentences of different lengths runs padded (source and target): the reference model
(tools/reference) runs once, only to hand each attention layer its inputs and each decoder layer
its output (forward hooks record them); everything above is computed from those and the
weights, in float64.

    extras_of_batch(model, sources, decoder_inputs, pad) -> one dict per sentence
"""
import math

import torch
import torch.nn.functional as F

TYPES = (("encoder", "encoder_self", False), ("decoder", "decoder_self", True),
         ("cross", "cross", False))


def _padded(lists, pad):
    width = max(len(x) for x in lists)
    ids = torch.full((len(lists), width), pad, dtype=torch.long)
    padding = torch.ones(len(lists), width, dtype=torch.bool)
    for b, x in enumerate(lists):
        ids[b, :len(x)] = torch.tensor(x, dtype=torch.long)
        padding[b, :len(x)] = False
    return ids, padding


def _linear(layer, x):
    bias = layer.bias.double() if layer.bias is not None else 0.0
    return x.double() @ layer.weight.double().T + bias


def _attention(module, query, memory, causal, key_lengths):
    """The extras of one attention layer over a padded batch: query [B, T, D], memory [B, S, D]."""
    heads, dk = module.num_heads, module.head_dim
    b, t, s = query.shape[0], query.shape[1], memory.shape[1]
    q = _linear(module.q_proj, query).view(b, t, heads, dk).transpose(1, 2)   # [B, H, T, dk]
    k = _linear(module.k_proj, memory).view(b, s, heads, dk).transpose(1, 2)  # [B, H, S, dk]
    v = _linear(module.v_proj, memory).view(b, s, heads, dk).transpose(1, 2)
    scores = q @ k.transpose(-1, -2) / math.sqrt(dk)                          # [B, H, T, S]
    keys = torch.arange(s)
    readable = keys[None, :] < torch.tensor(key_lengths)[:, None]             # [B, S]
    readable = readable[:, None, None, :].expand(b, heads, t, s)
    if causal:
        readable = readable & (keys[None, :] <= torch.arange(t)[:, None])     # [T, S]
    weights = torch.softmax(scores.masked_fill(~readable, float("-inf")), dim=-1)
    if module.head_mask is not None:
        weights = weights * module.head_mask.double().view(1, heads, 1, 1)
    w_o = module.out_proj.weight.double().view(-1, heads, dk).permute(1, 0, 2)  # [H, D, dk]
    through = torch.einsum("bhsk,hdk->bhsd", v, w_o)                           # v_j W_O^h
    parts = weights[..., None] * through[:, :, None]                           # [B, H, T, S, D]
    if causal:
        scores = scores.masked_fill(keys[None, :] > torch.arange(t)[:, None], float("nan"))
    return {"scores": scores, "queries": q, "keys": k, "values": v, "weights": weights,
            "weighted_norms": parts.norm(dim=-1), "head_norms": parts.sum(dim=3).norm(dim=-1)}


def extras_of_batch(model, sources, decoder_inputs, pad):
    """One dict per sentence: PREFIX_scores [L, H, rows, cols] (NaN under the causal mask),
    PREFIX_queries / _keys / _values [L, H, n, dk], PREFIX_weighted_norms [L, H, rows, cols],
    PREFIX_head_norms [L, H, rows], PREFIX_weights [L, H, rows, cols], and lens [Ld, T, V]
    (probabilities)."""
    inputs = {kind: [] for kind, _, _ in TYPES}
    layer_outputs = []
    hooks = []
    for kind, _, _ in TYPES:
        for module in model.attention_modules(kind):
            hooks.append(module.register_forward_pre_hook(
                lambda m, args, kind=kind: inputs[kind].append((args[0], args[1]))))
    for layer in model.decoder.layers:
        hooks.append(layer.register_forward_hook(
            lambda m, args, out: layer_outputs.append(out[0] if isinstance(out, tuple) else out)))
    src, src_pad = _padded(sources, pad)
    tgt, tgt_pad = _padded(decoder_inputs, pad)
    try:
        with torch.no_grad():
            encoded = model.encode(src, src_pad)
            model.decode_full(encoded, tgt, src_pad, tgt_pad)
    finally:
        for hook in hooks:
            hook.remove()
    s_len = [len(x) for x in sources]
    t_len = [len(x) for x in decoder_inputs]
    out = [dict() for _ in sources]
    for kind, prefix, causal in TYPES:
        rows, cols = (s_len, s_len) if kind == "encoder" else (t_len, t_len if causal else s_len)
        per_layer = [_attention(module, query, memory, causal, cols)
                     for module, (query, memory) in zip(model.attention_modules(kind), inputs[kind])]
        for b in range(len(sources)):
            r, c = rows[b], cols[b]
            for name in ("scores", "weights", "weighted_norms"):
                out[b][prefix + "_" + name] = torch.stack([x[name][b, :, :r, :c] for x in per_layer])
            out[b][prefix + "_head_norms"] = torch.stack([x["head_norms"][b, :, :r] for x in per_layer])
            out[b][prefix + "_queries"] = torch.stack([x["queries"][b, :, :r] for x in per_layer])
            for name in ("keys", "values"):
                out[b][prefix + "_" + name] = torch.stack([x[name][b, :, :c] for x in per_layer])
    norm = model.decoder.layer_norm
    weight = model.output_weight().double()
    bias = model.final_logits_bias.double() if model.final_logits_bias is not None else 0.0
    for b in range(len(sources)):
        layers = []
        for x in layer_outputs:
            h = x[b, :t_len[b]].double()
            if norm is not None:
                h = F.layer_norm(h, (h.shape[-1],), norm.weight.double(), norm.bias.double(), norm.eps)
            layers.append(torch.softmax(h @ weight.T + bias, dim=-1))
        out[b]["lens"] = torch.stack(layers) if layers else None
    return out
