"""Attention (docs/model-format.md, "The forward pass"): for each head r, from its rows
r*dk .. (r+1)*dk-1 of the q, k and v projections (dk = head_dim, which need not be d_model / H),

    A_r = softmax(Q_r K_r^T / sqrt(dk) + M),   head_r = A_r V_r,
    out = Concat(head_1 .. head_H) W_O^T + b_O          (W_O: out_proj, [d_model, H*dk])

M is additive: 0 where a key may be read, -inf where it may not (key_padding_mask: padded
source positions; causal_mask: decoder positions j > i), so the softmax gives exact zeros there.
Encoder self-attention and cross-attention (queries from the decoder, keys and values from the
encoder output) have no mask but padding; decoder self-attention has the causal mask.

Head masks (Hugging Face's head_mask): a head's weights are multiplied by its mask value after
the softmax and before the product with V, as BartAttention does.

    key_padding_mask(pad_mask, dtype) -> [B, 1, 1, S] additive
    causal_mask(t, dtype, device) -> [T, T] additive
    MultiHeadAttention(d_model, num_heads, head_dim)    q_proj, k_proj, v_proj, out_proj
    scaled_query_attention(x, memory, project, heads, causal)   Marian's (BartAttention's) order

New records of a pass (raw scores, per-head Q/K/V) belong in MultiHeadAttention.attend, where
each is computed once.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def key_padding_mask(pad_mask, dtype):
    """bool [B, S] (True = padding) -> additive [B, 1, 1, S] with -inf on padding."""
    if pad_mask is None:
        return None
    mask = torch.zeros(pad_mask.shape, dtype=dtype, device=pad_mask.device)
    mask = mask.masked_fill(pad_mask, float("-inf"))
    return mask[:, None, None, :]


def causal_mask(t, dtype, device):
    """[T, T] additive: -inf above the diagonal, so softmax gives exact zeros there."""
    return torch.triu(torch.full((t, t), float("-inf"), dtype=dtype, device=device), diagonal=1)


class MultiHeadAttention(nn.Module):
    """Attention with explicit q/k/v/out projections; head r uses rows r*dk..(r+1)*dk-1."""

    def __init__(self, d_model, num_heads, head_dim, dropout=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = head_dim
        inner = num_heads * head_dim
        self.q_proj = nn.Linear(d_model, inner)
        self.k_proj = nn.Linear(d_model, inner)
        self.v_proj = nn.Linear(d_model, inner)
        self.out_proj = nn.Linear(inner, d_model)
        self.dropout = dropout
        self.head_mask = None  # [H] floats, or None: see MinimtTransformer.set_head_mask

    def _head_masked(self, weights):
        """weights [B, H, ...] times this layer's head mask, as BartAttention does with
        layer_head_mask.view(1, -1, 1, 1) * attn_weights."""
        if self.head_mask is None:
            return weights
        shape = (1, self.num_heads) + (1,) * (weights.dim() - 2)
        return self.head_mask.to(weights.dtype).view(shape) * weights

    def _split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)  # [B, H, T, dk]

    def project_kv(self, memory):
        """K and V of `memory` [B, S, D], each [B, H, S, dk] (cross-attention computes them once)."""
        return self._split(self.k_proj(memory)), self._split(self.v_proj(memory))

    def attend(self, query, k, v, mask=None, need_weights=False):
        """query [B, T, D], k/v [B, H, S, dk], mask additive, broadcastable to [B, H, T, S]."""
        q = self._split(self.q_proj(query))                                # [B, H, T, dk]
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)  # [B, H, T, S]
        if mask is not None:
            scores = scores + mask
        weights = self._head_masked(torch.softmax(scores, dim=-1))
        probs = F.dropout(weights, self.dropout, self.training) if self.dropout > 0 else weights
        heads = torch.matmul(probs, v)                                     # [B, H, T, dk]
        b, h, t, dk = heads.shape
        out = self.out_proj(heads.transpose(1, 2).reshape(b, t, h * dk))  # [B, T, D]
        return out, (weights if need_weights else None)

    def forward(self, query, memory, mask=None, need_weights=False):
        k, v = self.project_kv(memory)
        return self.attend(query, k, v, mask, need_weights)

    def attend_one(self, query, k, v, mask=None):
        """attend() for one query position per row, without weights: query [B, 1, D], k/v
        [B, H, S, dk] (views of a cache are fine), mask additive [B, 1, 1, S] or None.
        Elementwise products and sums instead of matmul: this torch's CPU bmm multiplies
        batch item by batch item (B*H tiny products), which costs more than the arithmetic."""
        b = query.shape[0]
        q = self.q_proj(query).view(b, self.num_heads, 1, self.head_dim)    # [B, H, 1, dk]
        scores = (q * k).sum(-1) / math.sqrt(self.head_dim)                 # [B, H, S]
        if mask is not None:
            scores = scores + mask[:, :, 0, :]
        weights = self._head_masked(torch.softmax(scores, dim=-1))          # [B, H, S]
        heads = (weights.unsqueeze(-1) * v).sum(-2)                         # [B, H, dk]
        return self.out_proj(heads.reshape(b, 1, self.num_heads * self.head_dim))


def scaled_query_attention(x, memory, project, heads, causal):
    """MarianAttention (BartAttention) on one sentence, no batch: q is scaled by dk^-0.5 before
    the product (Hugging Face's order), the causal mask fills with the dtype's lowest value
    instead of -inf, heads concatenated before out_proj. project(name, x) applies the Linear
    `name` (q_proj, k_proj, v_proj, out_proj). x [T, D], memory [S, D] -> [T, D]."""
    t, s, d_model = x.shape[0], memory.shape[0], x.shape[1]
    dk = d_model // heads
    q = (project("q_proj", x) * dk ** -0.5).view(t, heads, dk).transpose(0, 1)   # [H, T, dk]
    k = project("k_proj", memory).view(s, heads, dk).transpose(0, 1)             # [H, S, dk]
    v = project("v_proj", memory).view(s, heads, dk).transpose(0, 1)
    scores = q @ k.transpose(1, 2)                                                # [H, T, S]
    if causal:
        mask = torch.triu(torch.ones(t, s, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
    out = (F.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(t, d_model)    # [T, D]
    return project("out_proj", out)
