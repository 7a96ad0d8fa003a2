#!/usr/bin/python3
"""A PyTorch implementation of Hugging Face's MarianMTModel and MarianTokenizer, written from
the transformers source (models/marian/modeling_marian.py, tokenization_marian.py; for the
3.x pre-norm keys, models/bart/modeling_bart.py of transformers 3.x). transformers is not
installed here: this file is what tests/marian compares minimt's converted models against.

It reads a Hugging Face model directory as it is (not a converted one): config.json,
generation_config.json, tokenizer_config.json, model.safetensors or pytorch_model.bin,
source.spm, target.spm, vocab.json (target_vocab.json with separate vocabularies).

  marian_reference.py translate HF_DIR [--max-length N] TEXT...   -> one JSON line per text

Greedy search as transformers' generate(num_beams=1, do_sample=False) does it, with the
model's single-token bad_words_ids set to -inf before the arg-max; the logits processors that
only act at max_length (forced_eos_token_id) are not applied: generation stops after N new
tokens, as minimt's --max-length N does.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import sentencepiece as spm
import torch
import torch.nn.functional as F

SPIECE_UNDERLINE = "\u2581"
ST_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
             "F64": torch.float64}
# transformers.activations.ACT2FN, the entries a Marian config uses
ACT2FN = {"relu": F.relu, "gelu": F.gelu, "swish": F.silu, "silu": F.silu,
          "gelu_new": lambda x: F.gelu(x, approximate="tanh")}


def _json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_state_dict(hf_dir):
    """model.safetensors (preferred, as transformers does) or pytorch_model.bin -> float32."""
    path = os.path.join(hf_dir, "model.safetensors")
    if not os.path.exists(path):
        state = torch.load(os.path.join(hf_dir, "pytorch_model.bin"), map_location="cpu",
                           weights_only=True)
        return {k: v.float() for k, v in state.items()}
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    state = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        data = bytearray(raw[8 + n + begin:8 + n + end])
        state[name] = torch.frombuffer(data, dtype=ST_DTYPES[info["dtype"]]).float().reshape(
            info["shape"])
    return state


def sinusoidal_positions(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: sin first, cos second half."""
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                             for pos in range(n_pos)])
    out = torch.empty(n_pos, dim)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = torch.FloatTensor(np.sin(position_enc[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(position_enc[:, 1::2]))
    return out


def clean_up_tokenization(text):
    """PreTrainedTokenizerBase.clean_up_tokenization."""
    for before, after in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
                          (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"),
                          (" 're", "'re")):
        text = text.replace(before, after)
    return text


class MarianTokenizerRef:
    """MarianTokenizer: SentencePiece pieces, looked up in vocab.json (<unk> if absent)."""

    def __init__(self, hf_dir):
        tc = _json(os.path.join(hf_dir, "tokenizer_config.json"), {})

        def text(key, default):
            value = tc.get(key, default)
            return value.get("content") if isinstance(value, dict) else value
        self.unk, self.eos, self.pad = text("unk_token", "<unk>"), text("eos_token", "</s>"), \
            text("pad_token", "<pad>")
        self.separate = bool(tc.get("separate_vocabs", False))
        self.encoder = _json(os.path.join(hf_dir, "vocab.json"))
        target = _json(os.path.join(hf_dir, "target_vocab.json")) if self.separate else None
        self.decoder = {v: k for k, v in (target or self.encoder).items()}
        self.spm_source = spm.SentencePieceProcessor(model_file=os.path.join(hf_dir, "source.spm"))
        self.spm_target = spm.SentencePieceProcessor(model_file=os.path.join(hf_dir, "target.spm"))
        self.special = {self.unk, self.eos, self.pad}
        # absent: False in current transformers, True in older versions
        self.clean_up = bool(tc.get("clean_up_tokenization_spaces", False))

    def remove_language_code(self, text):
        if text.startswith(">>") and text.find("<<") != -1:
            end = text.find("<<") + 2
            return [text[:end]], text[end:]
        return [], text

    def tokenize(self, text):
        code, text = self.remove_language_code(text)
        return code + self.spm_source.encode(text, out_type=str)

    def encode(self, text):
        """input_ids: the pieces' ids, then eos (build_inputs_with_special_tokens)."""
        unk = self.encoder[self.unk]
        return [self.encoder.get(p, unk) for p in self.tokenize(text)] + [self.encoder[self.eos]]

    def decode(self, ids):
        """decode(ids, skip_special_tokens=True): convert_tokens_to_string of the rest."""
        tokens = [self.decoder.get(i, self.unk) for i in ids]
        tokens = [t for t in tokens if t not in self.special]
        # transformers 4.x decodes with the target model unless told otherwise; with shared
        # vocabularies the newest versions use the source model: both join the same pieces.
        out = self.spm_target.decode_pieces(tokens).replace(SPIECE_UNDERLINE, " ").strip()
        return clean_up_tokenization(out) if self.clean_up else out


class MarianRef:
    """MarianMTModel's forward pass (eval mode: no dropout) on a state dict."""

    def __init__(self, hf_dir):
        self.config = c = _json(os.path.join(hf_dir, "config.json"))
        self.generation = _json(os.path.join(hf_dir, "generation_config.json"), {})
        self.sd = sd = load_state_dict(hf_dir)
        self.d_model = c.get("d_model", 1024)
        self.heads = c.get("encoder_attention_heads", 16)
        self.act = ACT2FN[c.get("activation_function", "gelu")]
        self.embed_scale = math.sqrt(self.d_model) if c.get("scale_embedding", False) else 1.0
        self.pre_norm = bool(c.get("normalize_before", False))  # transformers 3.x only
        self.final_norm = bool(c.get("add_final_layer_norm", False))
        shared = c.get("share_encoder_decoder_embeddings", True)
        if shared:
            emb = sd.get("model.shared.weight", sd.get("model.encoder.embed_tokens.weight"))
            self.enc_emb = self.dec_emb = emb
        else:
            self.enc_emb = sd["model.encoder.embed_tokens.weight"]
            self.dec_emb = sd["model.decoder.embed_tokens.weight"]
        self.lm_head = self.dec_emb if c.get("tie_word_embeddings", True) else sd["lm_head.weight"]
        vocab = self.lm_head.shape[0]
        self.bias = sd.get("final_logits_bias", torch.zeros(1, vocab)).reshape(vocab)
        n_pos = c.get("max_position_embeddings", 1024)
        computed = sinusoidal_positions(n_pos, self.d_model)
        self.enc_pos = sd.get("model.encoder.embed_positions.weight", computed)
        self.dec_pos = sd.get("model.decoder.embed_positions.weight", computed)
        self.eos = c.get("eos_token_id", 0)
        self.start = c.get("decoder_start_token_id", c.get("pad_token_id", 58100))
        words = self.generation.get("bad_words_ids", c.get("bad_words_ids")) or []
        self.bad_words = [w[0] for w in words if len(w) == 1]

    def _linear(self, x, name):
        return F.linear(x, self.sd[name + ".weight"], self.sd[name + ".bias"])

    def _norm(self, x, name):
        return F.layer_norm(x, (self.d_model,), self.sd[name + ".weight"], self.sd[name + ".bias"],
                            1e-5)

    def _attention(self, x, memory, name, causal):
        """MarianAttention: q scaled by head_dim**-0.5, softmax, heads concatenated."""
        t, s, h = x.shape[0], memory.shape[0], self.heads
        dk = self.d_model // h
        q = (self._linear(x, name + ".q_proj") * dk ** -0.5).view(t, h, dk).transpose(0, 1)
        k = self._linear(memory, name + ".k_proj").view(s, h, dk).transpose(0, 1)
        v = self._linear(memory, name + ".v_proj").view(s, h, dk).transpose(0, 1)
        scores = q @ k.transpose(1, 2)
        if causal:
            mask = torch.triu(torch.ones(t, s, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
        out = (F.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(t, self.d_model)
        return self._linear(out, name + ".out_proj")

    def _sublayer(self, x, norm, fn):
        """Post-norm (4.x: x = LN(x + f(x))) or 3.x pre-norm (x = x + f(LN(x)))."""
        if self.pre_norm:
            return x + fn(self._norm(x, norm))
        return self._norm(x + fn(x), norm)

    def _ffn(self, x, prefix):
        return self._linear(self.act(self._linear(x, prefix + ".fc1")), prefix + ".fc2")

    def encode(self, ids):
        x = self.enc_emb[ids] * self.embed_scale + self.enc_pos[:len(ids)]
        for i in range(self.config.get("encoder_layers", 12)):
            p = "model.encoder.layers.%d" % i
            x = self._sublayer(x, p + ".self_attn_layer_norm",
                               lambda y: self._attention(y, y, p + ".self_attn", False))
            x = self._sublayer(x, p + ".final_layer_norm", lambda y: self._ffn(y, p))
        if self.final_norm:
            x = self._norm(x, "model.encoder.layer_norm")
        return x

    def decode(self, ids, memory):
        """Logits at every position of the decoder input ids (no cache: the whole prefix)."""
        x = self.dec_emb[ids] * self.embed_scale + self.dec_pos[:len(ids)]
        for i in range(self.config.get("decoder_layers", 12)):
            p = "model.decoder.layers.%d" % i
            x = self._sublayer(x, p + ".self_attn_layer_norm",
                               lambda y: self._attention(y, y, p + ".self_attn", True))
            x = self._sublayer(x, p + ".encoder_attn_layer_norm",
                               lambda y: self._attention(y, memory, p + ".encoder_attn", False))
            x = self._sublayer(x, p + ".final_layer_norm", lambda y: self._ffn(y, p))
        if self.final_norm:
            x = self._norm(x, "model.decoder.layer_norm")
        return F.linear(x, self.lm_head) + self.bias

    @torch.no_grad()
    def greedy(self, src_ids, max_new_tokens, ban=True):
        """-> (generated ids incl. a final eos if produced, their log-probabilities)."""
        memory = self.encode(torch.tensor(src_ids))
        out, log_probs = [], []
        for _ in range(max_new_tokens):
            logits = self.decode(torch.tensor([self.start] + out), memory)[-1]
            if ban and self.bad_words:
                logits[self.bad_words] = -float("inf")
            lp = F.log_softmax(logits, dim=-1)
            token = int(torch.argmax(lp))
            out.append(token)
            log_probs.append(float(lp[token]))
            if token == self.eos:
                break
        return out, log_probs


def translate(hf_dir, texts, max_length, ban=True):
    tok, model = MarianTokenizerRef(hf_dir), MarianRef(hf_dir)
    results = []
    for text in texts:
        src = tok.encode(text)
        ids, lps = model.greedy(src, max_length, ban)
        results.append({"source": text, "source_ids": src, "ids": ids, "token_log_probs": lps,
                        "score": sum(lps), "translation": tok.decode(ids)})
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("translate")
    tr.add_argument("hf_dir")
    tr.add_argument("--max-length", type=int, default=32)
    tr.add_argument("texts", nargs="+")
    args = ap.parse_args()
    torch.set_num_threads(1)
    for result in translate(args.hf_dir, args.texts, args.max_length):
        print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
