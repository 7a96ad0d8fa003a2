"""MarianMTModel's forward pass (eval mode: no dropout) on a Hugging Face state dict, and greedy
search as transformers' generate(num_beams=1, do_sample=False) runs it, with the model's
single-token bad_words_ids set to -inf before the arg-max. The logits processors that only act
at max_length (forced_eos_token_id) are not applied: generation stops after N new tokens, as
minimt's --max-length N does.

    MarianRef(hf_dir)  .encode(ids) -> [S, D]   .decode(ids, memory) -> logits [T, V]
                       .greedy(src_ids, max_new_tokens, ban=True) -> (ids, log-probs)
    translate(hf_dir, texts, max_length, ban=True) -> one result dict per text
"""
import math
import os

import torch
import torch.nn.functional as F

from ..model import norms
from ..model.attention import scaled_query_attention
from ..model.positions import sinusoidal_halves
from .hf_files import load_state_dict, read_json
from .tokenizer import MarianTokenizerRef

# transformers.activations.ACT2FN, the entries a Marian config uses
ACT2FN = {"relu": F.relu, "gelu": F.gelu, "swish": F.silu, "silu": F.silu,
          "gelu_new": lambda x: F.gelu(x, approximate="tanh")}


class MarianRef:
    """MarianMTModel's forward pass (eval mode: no dropout) on a state dict."""

    def __init__(self, hf_dir):
        self.config = c = read_json(os.path.join(hf_dir, "config.json"))
        self.generation = read_json(os.path.join(hf_dir, "generation_config.json"), {})
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
        computed = sinusoidal_halves(n_pos, self.d_model)
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
        return scaled_query_attention(x, memory, lambda proj, y: self._linear(y, name + "." + proj),
                                      self.heads, causal)

    def _sublayer(self, x, norm, fn):
        """Post-norm (4.x: x = LN(x + f(x))) or 3.x pre-norm (x = x + f(LN(x)))."""
        return norms.residual(x, lambda y: self._norm(y, norm), lambda y: (fn(y), None),
                              self.pre_norm)[0]

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
