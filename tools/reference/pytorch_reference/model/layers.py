"""Encoder and decoder layers (docs/model-format.md, "Weights"): each sublayer in its residual
connection and LayerNorm (norms.residual), in order

    encoder layer: self_attn (self_attn_layer_norm), then fc1/fc2 (final_layer_norm)
    decoder layer: self_attn, causal (self_attn_layer_norm), encoder_attn: queries from the
                   decoder, keys and values from the encoder output (encoder_attn_layer_norm),
                   then fc1/fc2 (final_layer_norm)

with the feed-forward fc2(act(fc1(x))). A decoder layer runs three ways: over a whole target
prefix (forward, teacher forcing), one cached step recording weights (step), and one step on
preallocated caches without records (fast_step, for speed).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from . import norms
from .attention import MultiHeadAttention
from .config import ACTIVATIONS, head_dim_of


class _Layer(nn.Module):
    """What encoder and decoder layers share: the feed-forward, the final LayerNorm, dropout."""

    def __init__(self, config, dropout):
        super().__init__()
        d_model = config["d_model"]
        self.pre_norm = config["norm_position"] == "pre"
        self.act = ACTIVATIONS[config["activation"]]
        self.dropout = dropout
        self.fc1 = nn.Linear(d_model, config["d_ff"])
        self.fc2 = nn.Linear(config["d_ff"], d_model)
        self.final_layer_norm = norms.layer_norm(config)

    def _drop(self, x):
        return F.dropout(x, self.dropout, self.training) if self.dropout > 0 else x

    def _residual(self, x, norm, fn):
        return norms.residual(x, norm, fn, self.pre_norm, self._drop)

    def _ffn(self, x):
        return self.fc2(self._drop(self.act(self.fc1(x)))), None


class EncoderLayer(_Layer):
    def __init__(self, config, dropout=0.0):
        super().__init__(config, dropout)
        d_model = config["d_model"]
        self.self_attn = MultiHeadAttention(d_model, config["num_heads"], head_dim_of(config), dropout)
        self.self_attn_layer_norm = norms.layer_norm(config)

    def forward(self, x, key_mask=None, need_weights=False):
        x, weights = self._residual(
            x, self.self_attn_layer_norm,
            lambda h: self.self_attn(h, h, key_mask, need_weights))
        x, _ = self._residual(x, self.final_layer_norm, self._ffn)
        return x, weights


class DecoderLayer(_Layer):
    def __init__(self, config, dropout=0.0):
        super().__init__(config, dropout)
        d_model, heads, dk = config["d_model"], config["num_heads"], head_dim_of(config)
        self.self_attn = MultiHeadAttention(d_model, heads, dk, dropout)
        self.self_attn_layer_norm = norms.layer_norm(config)
        self.encoder_attn = MultiHeadAttention(d_model, heads, dk, dropout)
        self.encoder_attn_layer_norm = norms.layer_norm(config)

    def forward(self, x, enc_out, self_mask, cross_mask, record=None):
        """Teacher forcing over the whole target prefix. With a list `record`, appends this
        layer's (self-attention, cross-attention) weights, [B, H, T, T] and [B, H, T, S]."""
        need = record is not None
        x, self_w = self._residual(x, self.self_attn_layer_norm,
                                   lambda h: self.self_attn(h, h, self_mask, need))
        x, cross_w = self._residual(x, self.encoder_attn_layer_norm,
                                    lambda h: self.encoder_attn(h, enc_out, cross_mask, need))
        x, _ = self._residual(x, self.final_layer_norm, self._ffn)
        if need:
            record.append((self_w, cross_w))
        return x

    def step(self, x, cache, cross_kv, cross_mask, need_weights=False):
        """One decoding step. x [B, 1, D]; cache is a dict holding this layer's past K/V
        [B, H, t, dk] (updated in place); cross_kv the encoder output's K/V."""
        def self_attention(h):
            k, v = self.self_attn.project_kv(h)                             # [B, H, 1, dk]
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)                       # [B, H, t+1, dk]
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
            # The newest position may read every cached one: no causal mask needed.
            return self.self_attn.attend(h, k, v, None, need_weights)

        x, self_w = self._residual(x, self.self_attn_layer_norm, self_attention)
        x, cross_w = self._residual(
            x, self.encoder_attn_layer_norm,
            lambda h: self.encoder_attn.attend(h, cross_kv[0], cross_kv[1], cross_mask, need_weights))
        x, _ = self._residual(x, self.final_layer_norm, self._ffn)
        return x, self_w, cross_w

    def fast_step(self, x, k_cache, v_cache, t, cross_kv, cross_mask):
        """One decoding step on preallocated caches k_cache/v_cache [B, H, L, dk]: writes
        position t and attends over 0..t (views, no copy). No attention weights."""
        def self_attention(h):
            k, v = self.self_attn.project_kv(h)                             # [B, H, 1, dk]
            k_cache[:, :, t:t + 1] = k
            v_cache[:, :, t:t + 1] = v
            return self.self_attn.attend_one(h, k_cache[:, :, :t + 1], v_cache[:, :, :t + 1]), None

        x, _ = self._residual(x, self.self_attn_layer_norm, self_attention)
        x, _ = self._residual(
            x, self.encoder_attn_layer_norm,
            lambda h: (self.encoder_attn.attend_one(h, cross_kv[0], cross_kv[1], cross_mask), None))
        x, _ = self._residual(x, self.final_layer_norm, self._ffn)
        return x
