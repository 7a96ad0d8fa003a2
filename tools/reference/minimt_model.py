#!/usr/bin/python3
"""PyTorch implementation of the minimt model format, version 1.

The contract is docs/model-format (shared/model-format.md): every name, shape and
formula here follows it, so that a model trained or built with this module runs
unchanged in the C++ engine, and the engine can be checked against this module.

Interface:
    MinimtTransformer(config)            nn.Module; state_dict() keys are the format's names
        .encode(src_ids, src_pad_mask=None)              -> enc_out [B, S, D]
        .forward(src_ids, tgt_in, src_pad_mask=None, tgt_pad_mask=None) -> logits [B, T, V]
        .teacher_forced(src_ids, tgt_in, record_attention=False) -> dict (logits, attention)
        .greedy(src_ids, max_length, src_pad_mask=None, record_attention=False) -> list of dict
        .greedy_fast(src_ids, max_length, src_pad_mask=None) -> list of dict (ids, scores)
        .start_decoding(enc_out, src_pad_mask, max_length) -> DecodingState
        .decode_step(tokens, state) -> logits [B, V]       (one cached step, for benchmarks)
        .set_head_mask(head_mask)   heads switched off in every pass from now on (see below)
    make_config(**overrides) -> dict
    save_model(model, config, out_dir, dtype="F32")      dtype: F32 | F16 | BF16 | inline
    load_model(model_dir) -> (model, config)

Masks are bool tensors with True = padding. Padding is always on the right.

Head masks are Hugging Face's head_mask / decoder_head_mask / cross_attn_head_mask: a dict
{"encoder": [Le, H], "decoder": [Ld, H], "cross": [Ld, H]} of floats (1 keeps a head, 0
switches it off; a missing key keeps every head of that type). Each head's attention weights
are multiplied by its value after the softmax and before the product with V, as
BartAttention does, so a masked head's slice of the concatenated context is 0 before out_proj,
and the weights returned for recording are those after masking (zeros for a masked head).
"""
# Over 400 lines on purpose: the whole format-v1 Transformer in PyTorch, one module, so that it
# reads top to bottom against docs/model-format.md.

import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

FORMAT_NAME = "minimt-transformer"
FORMAT_VERSION = 1

# Keys config.json may hold (format v1). Anything else is kept in memory only.
FORMAT_KEYS = (
    "format", "format_version", "d_model", "num_heads", "head_dim", "d_ff",
    "encoder_layers", "decoder_layers", "activation", "norm_position",
    "layer_norm_eps", "max_positions", "positions", "scale_embeddings",
    "source_vocab_size", "target_vocab_size", "tie_output", "special_tokens",
    "decoder_start_token", "tokenizer", "weights",
)

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "silu": F.silu}  # F.gelu is the erf form

_DTYPE_TORCH = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
_DTYPE_SIZE = {"F32": 4, "F16": 2, "BF16": 2}


# ----------------------------------------------------------------------------- config

def make_config(**overrides):
    """A valid format-v1 config with sensible defaults; keyword arguments replace keys.

    The in-memory-only key `final_logits_bias` (bool) asks the model for that tensor;
    save_model does not write it (the file format signals it by the tensor's presence).
    """
    config = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "d_model": 256,
        "num_heads": 4,
        "d_ff": 1024,
        "encoder_layers": 3,
        "decoder_layers": 3,
        "activation": "relu",
        "norm_position": "pre",
        "layer_norm_eps": 1e-5,
        "max_positions": 256,
        "positions": "sinusoidal",
        "scale_embeddings": True,
        "source_vocab_size": 8000,
        "target_vocab_size": 8000,
        "tie_output": True,
        "special_tokens": {"pad": 0, "unk": 1, "bos": 2, "eos": 3},
        "tokenizer": {"source": "source.spm", "target": "target.spm"},
        "weights": "model.safetensors",
    }
    config.update(overrides)
    if config.get("head_dim") is None:
        config.pop("head_dim", None)
    return config


def head_dim_of(config):
    if "head_dim" in config and config["head_dim"] is not None:
        return int(config["head_dim"])
    d_model, heads = config["d_model"], config["num_heads"]
    if d_model % heads != 0:
        raise ValueError("d_model %d is not divisible by num_heads %d and head_dim is not set"
                         % (d_model, heads))
    return d_model // heads


def decoder_start_of(config):
    return int(config.get("decoder_start_token", config["special_tokens"]["bos"]))


def check_config(config):
    """Light validation of the keys this module relies on (the engine does the full job)."""
    if config.get("format") != FORMAT_NAME:
        raise ValueError("config format must be %r" % FORMAT_NAME)
    if config.get("format_version") != FORMAT_VERSION:
        raise ValueError("config format_version %r is not supported (this module reads %d)"
                         % (config.get("format_version"), FORMAT_VERSION))
    if config["activation"] not in _ACTIVATIONS:
        raise ValueError("unknown activation %r" % config["activation"])
    if config["norm_position"] not in ("pre", "post"):
        raise ValueError("unknown norm_position %r" % config["norm_position"])
    if config["positions"] not in ("sinusoidal", "learned"):
        raise ValueError("unknown positions %r" % config["positions"])
    if head_dim_of(config) <= 0:
        raise ValueError("head_dim must be positive")
    for key in ("encoder_layers", "decoder_layers"):
        if config[key] < 1:
            raise ValueError("%s must be >= 1" % key)


# ----------------------------------------------------------------------------- layers

def sinusoidal_table(max_positions, d_model):
    """P[pos][2i] = sin(pos / 10000^(2i/d)), P[pos][2i+1] = cos(same): interleaved."""
    pos = torch.arange(max_positions, dtype=torch.float64).unsqueeze(1)   # [P, 1]
    even = torch.arange(0, d_model, 2, dtype=torch.float64)               # 2i
    angle = pos / torch.pow(10000.0, even / d_model)                      # [P, ceil(d/2)]
    table = torch.zeros(max_positions, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table.float()


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


class _Layer(nn.Module):
    """Shared residual/norm plumbing of encoder and decoder layers."""

    def __init__(self, config, dropout):
        super().__init__()
        d_model = config["d_model"]
        self.pre_norm = config["norm_position"] == "pre"
        self.act = _ACTIVATIONS[config["activation"]]
        self.dropout = dropout
        self.fc1 = nn.Linear(d_model, config["d_ff"])
        self.fc2 = nn.Linear(config["d_ff"], d_model)
        self.final_layer_norm = nn.LayerNorm(d_model, eps=config["layer_norm_eps"])

    def _drop(self, x):
        return F.dropout(x, self.dropout, self.training) if self.dropout > 0 else x

    def _residual(self, x, norm, fn):
        """post: LN(x + f(x)); pre: x + f(LN(x)). fn may return (out, extra)."""
        if self.pre_norm:
            out, extra = fn(norm(x))
            return x + self._drop(out), extra
        out, extra = fn(x)
        return norm(x + self._drop(out)), extra

    def _ffn(self, x):
        return self.fc2(self._drop(self.act(self.fc1(x)))), None


class EncoderLayer(_Layer):
    def __init__(self, config, dropout=0.0):
        super().__init__(config, dropout)
        d_model = config["d_model"]
        self.self_attn = MultiHeadAttention(d_model, config["num_heads"], head_dim_of(config), dropout)
        self.self_attn_layer_norm = nn.LayerNorm(d_model, eps=config["layer_norm_eps"])

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
        self.self_attn_layer_norm = nn.LayerNorm(d_model, eps=config["layer_norm_eps"])
        self.encoder_attn = MultiHeadAttention(d_model, heads, dk, dropout)
        self.encoder_attn_layer_norm = nn.LayerNorm(d_model, eps=config["layer_norm_eps"])

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


class DecodingState:
    """Everything a cached greedy search keeps between steps, for the rows still decoding:
    per layer preallocated self-attention K/V [B, H, L, dk] and the cross-attention K/V of
    the encoder output, the cross mask, and the step count."""

    def __init__(self, caches, cross_kv, cross_mask, capacity):
        self.caches = caches          # list of (k, v)
        self.cross_kv = cross_kv      # list of (k, v)
        self.cross_mask = cross_mask  # [B, 1, 1, S] additive, or None
        self.capacity = capacity
        self.step = 0

    def select(self, rows):
        """Keep only the batch rows `rows` (a LongTensor), e.g. when sentences finish."""
        t = self.step
        caches = []
        for k, v in self.caches:
            nk = k.new_empty((len(rows),) + tuple(k.shape[1:]))
            nv = v.new_empty(nk.shape)
            nk[:, :, :t] = k[rows, :, :t]
            nv[:, :, :t] = v[rows, :, :t]
            caches.append((nk, nv))
        self.caches = caches
        self.cross_kv = [(k.index_select(0, rows), v.index_select(0, rows))
                         for k, v in self.cross_kv]
        if self.cross_mask is not None:
            self.cross_mask = self.cross_mask.index_select(0, rows)


class _Stack(nn.Module):
    """Embeddings, layers and (pre-norm) final LayerNorm of one side."""

    def __init__(self, config, vocab_size, layer_cls, num_layers, dropout):
        super().__init__()
        d_model = config["d_model"]
        self.embed_scale = math.sqrt(d_model) if config["scale_embeddings"] else 1.0
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.learned_positions = config["positions"] == "learned"
        if self.learned_positions:
            self.embed_positions = nn.Embedding(config["max_positions"], d_model)
        else:
            self.register_buffer("pos_table", sinusoidal_table(config["max_positions"], d_model),
                                 persistent=False)
        self.layers = nn.ModuleList([layer_cls(config, dropout) for _ in range(num_layers)])
        if config["norm_position"] == "pre":
            self.layer_norm = nn.LayerNorm(d_model, eps=config["layer_norm_eps"])
        else:
            self.layer_norm = None
        self.dropout = dropout

    def embed(self, ids, start=0):
        """ids [B, T] at positions start..start+T-1 -> [B, T, D]."""
        t = ids.shape[1]
        table = self.embed_positions.weight if self.learned_positions else self.pos_table
        if start + t > table.shape[0]:
            raise ValueError("sequence of %d positions exceeds max_positions %d"
                             % (start + t, table.shape[0]))
        x = self.embed_tokens(ids) * self.embed_scale + table[start:start + t]
        return F.dropout(x, self.dropout, self.training) if self.dropout > 0 else x

    def finish(self, x):
        return self.layer_norm(x) if self.layer_norm is not None else x


def _key_padding_mask(pad_mask, dtype):
    """bool [B, S] (True = padding) -> additive [B, 1, 1, S] with -inf on padding."""
    if pad_mask is None:
        return None
    mask = torch.zeros(pad_mask.shape, dtype=dtype, device=pad_mask.device)
    mask = mask.masked_fill(pad_mask, float("-inf"))
    return mask[:, None, None, :]


def _causal_mask(t, dtype, device):
    """[T, T] additive: -inf above the diagonal, so softmax gives exact zeros there."""
    return torch.triu(torch.full((t, t), float("-inf"), dtype=dtype, device=device), diagonal=1)


# ----------------------------------------------------------------------------- model

class MinimtTransformer(nn.Module):
    """Encoder-decoder Transformer of format v1.

    config: a format-v1 config dict ("weights" is ignored). Extra keyword arguments:
      final_logits_bias: add the `final_logits_bias` tensor (default: config's
          in-memory key of the same name, else False);
      dropout: dropout rate used only in training mode (default 0).
    """

    def __init__(self, config, final_logits_bias=None, dropout=0.0):
        super().__init__()
        check_config(config)
        self.config = dict(config)
        d_model = config["d_model"]
        self.encoder = _Stack(config, config["source_vocab_size"], EncoderLayer,
                              config["encoder_layers"], dropout)
        self.decoder = _Stack(config, config["target_vocab_size"], DecoderLayer,
                              config["decoder_layers"], dropout)
        self.tie_output = bool(config["tie_output"])
        if not self.tie_output:
            self.lm_head = nn.Linear(d_model, config["target_vocab_size"], bias=False)
        if final_logits_bias is None:
            final_logits_bias = bool(config.get("final_logits_bias", False))
        if final_logits_bias:
            self.final_logits_bias = nn.Parameter(torch.zeros(config["target_vocab_size"]))
        else:
            self.final_logits_bias = None
        self.eos = int(config["special_tokens"]["eos"])
        self.decoder_start = decoder_start_of(config)
        self.max_positions = int(config["max_positions"])
        self.init_weights()

    def init_weights(self):
        """Training-friendly init: embeddings N(0, d_model^-0.5) (so that with
        scale_embeddings and tied output the logits start near unit scale), Xavier-uniform
        Linear weights, zero biases, LayerNorm (1, 0)."""
        std = self.config["d_model"] ** -0.5
        for module in self.modules():
            if isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, 0.0, std)
            elif isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, nn.LayerNorm):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
        if self.final_logits_bias is not None:
            nn.init.zeros_(self.final_logits_bias)

    # -- head mask

    def attention_modules(self, kind):
        """The MultiHeadAttention of every layer of one type: encoder, decoder (self) or cross."""
        if kind == "encoder":
            return [layer.self_attn for layer in self.encoder.layers]
        if kind == "decoder":
            return [layer.self_attn for layer in self.decoder.layers]
        if kind == "cross":
            return [layer.encoder_attn for layer in self.decoder.layers]
        raise ValueError("unknown attention type %r" % kind)

    def set_head_mask(self, head_mask):
        """Heads to switch off in every pass from now on: None (none), or a dict of [L, H]
        float tensors keyed encoder / decoder / cross (1 keeps a head, 0 masks it)."""
        head_mask = dict(head_mask or {})
        unknown = set(head_mask) - {"encoder", "decoder", "cross"}
        if unknown:
            raise ValueError("unknown head mask types %s" % sorted(unknown))
        for kind in ("encoder", "decoder", "cross"):
            modules = self.attention_modules(kind)
            mask = head_mask.pop(kind, None)
            if mask is not None:
                mask = torch.as_tensor(mask, dtype=torch.float32)
                want = (len(modules), modules[0].num_heads)
                if tuple(mask.shape) != want:
                    raise ValueError("%s head mask of shape %s, the model has %s"
                                     % (kind, list(mask.shape), list(want)))
            for layer, module in enumerate(modules):
                module.head_mask = None if mask is None else mask[layer].clone()

    # -- pieces

    def output_weight(self):
        return self.decoder.embed_tokens.weight if self.tie_output else self.lm_head.weight

    def logits(self, h):
        """h [..., D] -> [..., V]"""
        out = F.linear(h, self.output_weight())
        if self.final_logits_bias is not None:
            out = out + self.final_logits_bias
        return out

    def encode(self, src_ids, src_pad_mask=None, return_attention=False):
        """src_ids [B, S] -> enc_out [B, S, D]; with return_attention also the list (per
        layer) of self-attention weights [B, H, S, S]."""
        key_mask = _key_padding_mask(src_pad_mask, self.encoder.embed_tokens.weight.dtype)
        x = self.encoder.embed(src_ids)
        weights = []
        for layer in self.encoder.layers:
            x, w = layer(x, key_mask, need_weights=return_attention)
            weights.append(w)
        x = self.encoder.finish(x)
        return (x, weights) if return_attention else x

    def forward(self, src_ids, tgt_in, src_pad_mask=None, tgt_pad_mask=None):
        """Teacher forcing: tgt_in [B, T] starts with decoder_start_token -> logits [B, T, V]."""
        enc_out = self.encode(src_ids, src_pad_mask)
        return self.decode_full(enc_out, tgt_in, src_pad_mask, tgt_pad_mask)

    def decode_full(self, enc_out, tgt_in, src_pad_mask=None, tgt_pad_mask=None, record=None):
        """Decoder over a whole prefix without cache -> logits [B, T, V]. With a list
        `record`, each layer appends its (self, cross) attention weights (DecoderLayer)."""
        dtype = enc_out.dtype
        t = tgt_in.shape[1]
        self_mask = _causal_mask(t, dtype, tgt_in.device)[None, None]   # [1, 1, T, T]
        if tgt_pad_mask is not None:
            self_mask = self_mask + _key_padding_mask(tgt_pad_mask, dtype)  # [B, 1, T, T]
        cross_mask = _key_padding_mask(src_pad_mask, dtype)
        x = self.decoder.embed(tgt_in)
        for layer in self.decoder.layers:
            x = layer(x, enc_out, self_mask, cross_mask, record)
        return self.logits(self.decoder.finish(x))

    @torch.no_grad()
    def teacher_forced(self, src_ids, tgt_in, record_attention=False):
        """One sentence, no padding: src_ids [S] and decoder input tgt_in [T] (lists or 1-D
        tensors) -> dict with logits [T, V] from one causal pass, and with record_attention
        encoder_self [L, H, S, S], decoder_self [L, H, T, T], cross [L, H, T, S] (the layout
        of greedy()'s records)."""
        src = torch.as_tensor(src_ids, dtype=torch.long)[None]
        tgt = torch.as_tensor(tgt_in, dtype=torch.long)[None]
        if not record_attention:
            return {"logits": self.forward(src, tgt)[0]}
        enc_out, enc_weights = self.encode(src, return_attention=True)
        record = []
        logits = self.decode_full(enc_out, tgt, record=record)[0]
        return {"logits": logits,
                "encoder_self": torch.stack([w[0] for w in enc_weights]),
                "decoder_self": torch.stack([sw[0] for sw, _ in record]),
                "cross": torch.stack([cw[0] for _, cw in record])}

    # -- greedy decoding

    @torch.no_grad()
    def greedy(self, src_ids, max_length, src_pad_mask=None, record_attention=False,
               record_logits=False):
        """Batched greedy decoding with a K/V cache.

        src_ids [B, S] (right-padded, each row ends with eos before its padding).
        Generates until eos or max_length tokens (eos counts), never more than
        max_positions. Returns per sentence a dict:
          ids: generated ids (eos included if produced), scores: log-prob of each,
          and with record_attention, tensors for that sentence without padding:
          encoder_self [L, H, S, S], decoder_self [L, H, T, T], cross [L, H, T, S]
          (T = len(ids); the decoder input is start + ids[:-1]);
          with record_logits, logits [T, V] (for checks against decode_full).
        """
        was_training = self.training
        self.eval()
        try:
            return self._greedy(src_ids, max_length, src_pad_mask, record_attention,
                                record_logits)
        finally:
            self.train(was_training)

    def _greedy(self, src_ids, max_length, src_pad_mask, record_attention, record_logits):
        b, s = src_ids.shape
        max_length = max(0, min(int(max_length), self.max_positions))
        if src_pad_mask is None:
            src_pad_mask = torch.zeros(b, s, dtype=torch.bool, device=src_ids.device)
        src_lengths = (~src_pad_mask).sum(dim=1).tolist()

        if record_attention:
            enc_out, enc_weights = self.encode(src_ids, src_pad_mask, return_attention=True)
        else:
            enc_out, enc_weights = self.encode(src_ids, src_pad_mask), None
        cross_mask = _key_padding_mask(src_pad_mask, enc_out.dtype)
        cross_kv = [layer.encoder_attn.project_kv(enc_out) for layer in self.decoder.layers]
        caches = [{} for _ in self.decoder.layers]

        tokens = torch.full((b, 1), self.decoder_start, dtype=torch.long, device=src_ids.device)
        finished = [False] * b
        ids = [[] for _ in range(b)]
        scores = [[] for _ in range(b)]
        step_logits = [[] for _ in range(b)]
        self_steps, cross_steps = [], []   # per step: per layer [B, H, t+1] and [B, H, S]

        for step in range(max_length):
            x = self.decoder.embed(tokens, start=step)                     # [B, 1, D]
            step_self, step_cross = [], []
            for layer, cache, kv in zip(self.decoder.layers, caches, cross_kv):
                x, sw, cw = layer.step(x, cache, kv, cross_mask, record_attention)
                if record_attention:
                    step_self.append(sw[:, :, 0, :])
                    step_cross.append(cw[:, :, 0, :])
            logits = self.logits(self.decoder.finish(x[:, 0]))             # [B, V]
            logp = torch.log_softmax(logits.float(), dim=-1)
            chosen = torch.argmax(logits, dim=-1)                          # first max = lowest id
            chosen_logp = logp.gather(1, chosen[:, None])[:, 0]
            self_steps.append(step_self)
            cross_steps.append(step_cross)
            for i in range(b):
                if not finished[i]:
                    token = int(chosen[i])
                    ids[i].append(token)
                    scores[i].append(float(chosen_logp[i]))
                    if record_logits:
                        step_logits[i].append(logits[i])
                    finished[i] = token == self.eos
            if all(finished):
                break
            tokens = chosen[:, None]

        results = []
        for i in range(b):
            result = {"ids": ids[i], "scores": scores[i]}
            if record_logits:
                v = self.output_weight().shape[0]
                result["logits"] = (torch.stack(step_logits[i]) if step_logits[i]
                                    else torch.zeros(0, v))
            if record_attention:
                result.update(self._sentence_attention(
                    i, len(ids[i]), src_lengths[i], enc_weights, self_steps, cross_steps))
            results.append(result)
        return results

    # -- fast greedy decoding (no attention or logits records)

    def start_decoding(self, enc_out, src_pad_mask, capacity):
        """The decoding state of a batch whose encoder output is enc_out [B, S, D], with room
        for `capacity` decoder positions."""
        b = enc_out.shape[0]
        first = self.decoder.layers[0].self_attn
        shape = (b, first.num_heads, max(1, capacity), first.head_dim)
        caches = [(enc_out.new_empty(shape), enc_out.new_empty(shape))
                  for _ in self.decoder.layers]
        cross_kv = [layer.encoder_attn.project_kv(enc_out) for layer in self.decoder.layers]
        return DecodingState(caches, cross_kv, _key_padding_mask(src_pad_mask, enc_out.dtype),
                             capacity)

    def decode_step(self, tokens, state):
        """tokens [B, 1] at position state.step -> logits [B, V]; advances state.step."""
        t = state.step
        if t >= state.capacity:
            raise ValueError("decoding state holds %d positions" % state.capacity)
        x = self.decoder.embed(tokens, start=t)                             # [B, 1, D]
        for layer, (k, v), kv in zip(self.decoder.layers, state.caches, state.cross_kv):
            x = layer.fast_step(x, k, v, t, kv, state.cross_mask)
        state.step = t + 1
        return self.logits(self.decoder.finish(x[:, 0]))                   # [B, V]

    def greedy_fast(self, src_ids, max_length, src_pad_mask=None):
        """Greedy decoding as greedy() (same ids and scores), written for speed: inference
        mode, preallocated K/V caches, and finished sentences leave the batch. Returns per
        sentence {"ids", "scores"}."""
        was_training = self.training
        self.eval()
        try:
            with torch.inference_mode():
                return self._greedy_fast(src_ids, max_length, src_pad_mask)
        finally:
            self.train(was_training)

    def _greedy_fast(self, src_ids, max_length, src_pad_mask):
        b = src_ids.shape[0]
        max_length = max(0, min(int(max_length), self.max_positions))
        ids = [[] for _ in range(b)]
        scores = [[] for _ in range(b)]
        if max_length == 0 or b == 0:
            return [{"ids": i, "scores": s} for i, s in zip(ids, scores)]
        enc_out = self.encode(src_ids, src_pad_mask)
        state = self.start_decoding(enc_out, src_pad_mask, max_length)
        active = list(range(b))   # original sentence of each batch row
        tokens = torch.full((b, 1), self.decoder_start, dtype=torch.long, device=src_ids.device)
        eos = self.eos
        for _ in range(max_length):
            logits = self.decode_step(tokens, state)
            chosen = torch.argmax(logits, dim=-1)                          # first max = lowest id
            chosen_logp = torch.log_softmax(logits.float(), dim=-1).gather(1, chosen[:, None])
            keep = []
            for row, (token, logp) in enumerate(zip(chosen.tolist(), chosen_logp[:, 0].tolist())):
                i = active[row]
                ids[i].append(token)
                scores[i].append(logp)
                if token != eos:
                    keep.append(row)
            if not keep:
                break
            if len(keep) < len(active):
                rows = torch.tensor(keep, dtype=torch.long, device=src_ids.device)
                state.select(rows)
                chosen = chosen.index_select(0, rows)
                active = [active[row] for row in keep]
            tokens = chosen[:, None]
        return [{"ids": i, "scores": s} for i, s in zip(ids, scores)]

    def _sentence_attention(self, i, t, s, enc_weights, self_steps, cross_steps):
        """Unpadded attention tensors of sentence i (t generated tokens, s source tokens)."""
        n_layers = len(self.decoder.layers)
        heads = self.decoder.layers[0].self_attn.num_heads
        encoder_self = torch.stack([w[i, :, :s, :s] for w in enc_weights])   # [L, H, S, S]
        decoder_self = torch.zeros(n_layers, heads, t, t)                    # [L, H, T, T]
        cross = torch.zeros(n_layers, heads, t, s)                           # [L, H, T, S]
        for step in range(t):
            for layer in range(n_layers):
                decoder_self[layer, :, step, :step + 1] = self_steps[step][layer][i]
                cross[layer, :, step, :] = cross_steps[step][layer][i, :, :s]
        return {"encoder_self": encoder_self, "decoder_self": decoder_self, "cross": cross}


# ----------------------------------------------------------------------------- files

def _tensor_bytes(t, dtype):
    """Little-endian raw bytes of t converted to dtype (F32 | F16 | BF16)."""
    t = t.detach().to(torch.device("cpu"), _DTYPE_TORCH[dtype]).contiguous().reshape(-1)
    if sys.byteorder != "little":
        raise RuntimeError("big-endian hosts are not supported")
    if dtype == "BF16":
        t = t.view(torch.int16)  # numpy has no bfloat16
    try:
        return t.numpy().tobytes()
    except Exception:  # no numpy: go through the array module
        import array
        code = {torch.float32: "f", torch.float16: "h", torch.int16: "h"}[t.dtype]
        if t.dtype == torch.float16:
            t = t.view(torch.int16)
        return array.array(code, t.tolist()).tobytes()


def write_safetensors(path, tensors, dtype="F32", metadata=None):
    """Write {name: tensor} as a safetensors file by hand (header padded to 8 bytes)."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        data = _tensor_bytes(tensors[name], dtype)
        header[name] = {"dtype": dtype, "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def read_safetensors(path):
    """Read a safetensors file -> {name: float32 tensor}, widening F16/BF16."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError("%s: too short for a safetensors file" % path)
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError("%s: header length %d exceeds the file" % (path, n))
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    body = memoryview(raw)[8 + n:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype, shape = info["dtype"], info["shape"]
        if dtype not in _DTYPE_TORCH:
            raise ValueError("%s: tensor %s has unsupported dtype %s" % (path, name, dtype))
        begin, end = info["data_offsets"]
        count = 1
        for dim in shape:
            count *= dim
        if not (0 <= begin <= end <= len(body)) or end - begin != count * _DTYPE_SIZE[dtype]:
            raise ValueError("%s: tensor %s has bad data_offsets" % (path, name))
        if count == 0:
            values = torch.zeros(0, dtype=torch.float32)
        else:
            values = torch.frombuffer(bytearray(body[begin:end]), dtype=_DTYPE_TORCH[dtype])
        tensors[name] = values.float().reshape(shape)
    return tensors


def _float_list(t):
    """Row-major values as Python floats; float32 values print exactly through repr."""
    return [float(v) for v in t.detach().float().reshape(-1).tolist()]


def file_config(config):
    """The subset of config that belongs in config.json."""
    out = {k: config[k] for k in FORMAT_KEYS if k in config}
    dropped = sorted(set(config) - set(FORMAT_KEYS) - {"final_logits_bias"})
    if dropped:
        print("minimt_model: not writing non-format config keys: %s" % ", ".join(dropped),
              file=sys.stderr)
    return out


def save_model(model, config, out_dir, dtype="F32"):
    """Write config.json and the weights (model.safetensors, or inline if dtype == "inline").

    Tokenizers are not written: the caller provides source.spm / target.spm.
    """
    if dtype not in ("F32", "F16", "BF16", "inline"):
        raise ValueError("dtype must be F32, F16, BF16 or inline, not %r" % dtype)
    os.makedirs(out_dir, exist_ok=True)
    config = file_config(config)
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    if dtype == "inline":
        config["weights"] = {name: {"shape": list(t.shape), "data": _float_list(t)}
                             for name, t in sorted(state.items())}
    else:
        weights = config.get("weights")
        if not isinstance(weights, str):
            weights = "model.safetensors"
        config["weights"] = weights
        write_safetensors(os.path.join(out_dir, weights), state, dtype,
                          metadata={"format": "pt", "producer": "minimt_model.py"})
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1 if dtype != "inline" else None)
        f.write("\n")


def _inside(model_dir, rel):
    if os.path.isabs(rel) or ".." in rel.replace("\\", "/").split("/"):
        raise ValueError("path %r must stay inside the model directory" % rel)
    return os.path.join(model_dir, rel)


def load_model(model_dir):
    """Read config.json + weights -> (model in eval mode, config dict)."""
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    weights = config["weights"]
    if isinstance(weights, str):
        tensors = read_safetensors(_inside(model_dir, weights))
    else:
        tensors = {name: torch.tensor(info["data"], dtype=torch.float32).reshape(info["shape"])
                   for name, info in weights.items()}
    model = MinimtTransformer(config, final_logits_bias="final_logits_bias" in tensors)
    expected = model.state_dict()
    for name in tensors:
        if name not in expected:
            raise ValueError("unexpected tensor %s" % name)
    for name, t in expected.items():
        if name not in tensors:
            raise ValueError("missing tensor %s" % name)
        if tuple(tensors[name].shape) != tuple(t.shape):
            raise ValueError("tensor %s has shape %s, expected %s"
                             % (name, list(tensors[name].shape), list(t.shape)))
    model.load_state_dict(tensors, strict=True)
    model.eval()
    if "final_logits_bias" in tensors:
        config["final_logits_bias"] = True  # in-memory flag, so save_model round-trips
    return model, config
