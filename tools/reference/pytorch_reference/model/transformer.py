"""The encoder-decoder Transformer of format v1 (docs/model-format.md): state_dict() keys are the
format's tensor names, so a model trained or built here runs unchanged in the C++ engine, and
the engine can be checked against this module.

    MinimtTransformer(config, final_logits_bias=None, dropout=0.0)
        .encode(src_ids, src_pad_mask=None, return_attention=False) -> enc_out [B, S, D]
        .forward(src_ids, tgt_in, src_pad_mask=None, tgt_pad_mask=None) -> logits [B, T, V]
        .decode_full(enc_out, tgt_in, ...) -> logits [B, T, V]   (the decoder without cache)
        .teacher_forced(src_ids, tgt_in, record_attention=False) -> dict (logits, attention)
        .logits(h) -> [..., V]
        .start_decoding(enc_out, src_pad_mask, capacity) -> DecodingState
        .decode_step(tokens, state) -> logits [B, V]             (one cached step)
        .set_head_mask(head_mask)   heads switched off in every pass from now on

Masks are bool tensors with True = padding; padding is always on the right. Searches over
the model (greedy, beam, scoring, sampling) are in ../search.

Head masks are Hugging Face's head_mask / decoder_head_mask / cross_attn_head_mask: a dict
{"encoder": [Le, H], "decoder": [Ld, H], "cross": [Ld, H]} of floats (1 keeps a head, 0
switches it off; a missing key keeps every head of that type). Each head's attention weights
are multiplied by its value after the softmax and before the product with V, as
BartAttention does, so a masked head's slice of the concatenated context is 0 before out_proj,
and the weights returned for recording are those after masking (zeros for a masked head).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .attention import causal_mask, key_padding_mask
from .config import check_config, decoder_start_of
from .kv_cache import DecodingState
from .layers import DecoderLayer, EncoderLayer
from .stack import Stack

ATTENTION_TYPES = ("encoder", "decoder", "cross")


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
        self.encoder = Stack(config, config["source_vocab_size"], EncoderLayer,
                             config["encoder_layers"], dropout)
        self.decoder = Stack(config, config["target_vocab_size"], DecoderLayer,
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
        unknown = set(head_mask) - set(ATTENTION_TYPES)
        if unknown:
            raise ValueError("unknown head mask types %s" % sorted(unknown))
        for kind in ATTENTION_TYPES:
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

    # -- the passes

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
        key_mask = key_padding_mask(src_pad_mask, self.encoder.embed_tokens.weight.dtype)
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
        self_mask = causal_mask(t, dtype, tgt_in.device)[None, None]     # [1, 1, T, T]
        if tgt_pad_mask is not None:
            self_mask = self_mask + key_padding_mask(tgt_pad_mask, dtype)  # [B, 1, T, T]
        cross_mask = key_padding_mask(src_pad_mask, dtype)
        x = self.decoder.embed(tgt_in)
        for layer in self.decoder.layers:
            x = layer(x, enc_out, self_mask, cross_mask, record)
        return self.logits(self.decoder.finish(x))

    @torch.no_grad()
    def teacher_forced(self, src_ids, tgt_in, record_attention=False):
        """One sentence, no padding: src_ids [S] and decoder input tgt_in [T] (lists or 1-D
        tensors) -> dict with logits [T, V] from one causal pass, and with record_attention
        encoder_self [L, H, S, S], decoder_self [L, H, T, T], cross [L, H, T, S] (the layout
        of search.greedy's records)."""
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

    # -- cached decoding (no attention records)

    def start_decoding(self, enc_out, src_pad_mask, capacity):
        """The decoding state of a batch whose encoder output is enc_out [B, S, D], with room
        for `capacity` decoder positions."""
        b = enc_out.shape[0]
        first = self.decoder.layers[0].self_attn
        shape = (b, first.num_heads, max(1, capacity), first.head_dim)
        caches = [(enc_out.new_empty(shape), enc_out.new_empty(shape))
                  for _ in self.decoder.layers]
        cross_kv = [layer.encoder_attn.project_kv(enc_out) for layer in self.decoder.layers]
        return DecodingState(caches, cross_kv, key_padding_mask(src_pad_mask, enc_out.dtype),
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
