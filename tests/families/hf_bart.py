"""A PyTorch forward of MBartForConditionalGeneration and M2M100ForConditionalGeneration,
written from transformers' modeling_mbart.py and modeling_m2m_100.py (read, not imported)
and used only by the tests: it reads the Hugging Face state dict by its own names, so that a
mistake of the converter shows.

  family "mbart"   MBartLearnedPositionalEmbedding (arange(past, past + len) + offset 2),
                   MBartScaledWordEmbedding (* sqrt(d_model) with scale_embedding),
                   layernorm_embedding after adding positions, final_logits_bias
  family "m2m100"  M2M100SinusoidalPositionalEmbedding.get_embedding (sin half, cos half,
                   row padding_idx zero), positions from create_position_ids_from_input_ids
Both: MBartEncoderLayer / MBartDecoderLayer (pre-norm: x + f(LN(x))), MBartAttention
(q_proj(x) * head_dim^-0.5, softmax over q k^T + causal mask), the stacks' final layer_norm.
"""
import math

import torch
import torch.nn.functional as F

ACT = {"gelu": F.gelu, "relu": F.relu, "swish": F.silu, "silu": F.silu}


def m2m100_sinusoidal(num_embeddings, dim, padding_idx):
    """M2M100SinusoidalPositionalEmbedding.get_embedding."""
    half = dim // 2
    emb = math.log(10000) / (half - 1)
    emb = torch.exp(torch.arange(half, dtype=torch.int64).float() * -emb)
    emb = torch.arange(num_embeddings, dtype=torch.int64).float().unsqueeze(1) * emb.unsqueeze(0)
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
    if dim % 2 == 1:
        emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
    emb[padding_idx, :] = 0
    return emb


class BartFamily:
    def __init__(self, state, config, family):
        self.sd, self.c, self.family = state, config, family
        self.d = config["d_model"]
        self.heads = config["encoder_attention_heads"]
        self.act = ACT[config["activation_function"]]
        self.scale = math.sqrt(self.d) if config.get("scale_embedding") else 1.0
        self.pad = config["pad_token_id"]
        if family == "m2m100":
            self.table = m2m100_sinusoidal(config["max_position_embeddings"] + 2, self.d,
                                           self.pad)

    def w(self, name):
        return self.sd[name].float()

    def linear(self, prefix, x):
        return x @ self.w(prefix + ".weight").T + self.w(prefix + ".bias")

    def norm(self, prefix, x):
        return F.layer_norm(x, (self.d,), self.w(prefix + ".weight"), self.w(prefix + ".bias"),
                            1e-5)

    def positions(self, stack, ids):
        if self.family == "mbart":  # rows past_key_values_length + i + 2
            return self.w("model.%s.embed_positions.weight" % stack)[torch.arange(len(ids)) + 2]
        # create_position_ids_from_input_ids as generate() applies it, one token at a time with
        # past_key_values_length = i: (1 + i) for a real token, padding_idx for a pad token.
        # The encoder (one pass, cumsum) gives the same for a source without pad tokens.
        rows = [(i + 1 + self.pad) if t != self.pad else self.pad for i, t in enumerate(ids)]
        return self.table[torch.tensor(rows)]

    def embed(self, stack, ids):
        x = self.w("model.shared.weight")[torch.tensor(ids)] * self.scale
        x = x + self.positions(stack, ids)
        if self.family == "mbart":
            x = self.norm("model.%s.layernorm_embedding" % stack, x)
        return x

    def attention(self, prefix, x, memory, causal):
        """-> (output [T, d], weights [H, T, S])."""
        t, s, h = x.shape[0], memory.shape[0], self.heads
        dk = self.d // h
        q = (self.linear(prefix + ".q_proj", x) * dk ** -0.5).view(t, h, dk).transpose(0, 1)
        k = self.linear(prefix + ".k_proj", memory).view(s, h, dk).transpose(0, 1)
        v = self.linear(prefix + ".v_proj", memory).view(s, h, dk).transpose(0, 1)
        scores = q @ k.transpose(1, 2)
        if causal:
            scores = scores.masked_fill(torch.ones(t, s).triu(1).bool(), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        out = (weights @ v).transpose(0, 1).reshape(t, h * dk)
        return self.linear(prefix + ".out_proj", out), weights

    def encode(self, ids):
        x, record = self.embed("encoder", ids), []
        for i in range(self.c["encoder_layers"]):
            p = "model.encoder.layers.%d" % i
            normed = self.norm(p + ".self_attn_layer_norm", x)
            out, weights = self.attention(p + ".self_attn", normed, normed, False)
            x = x + out
            record.append(weights)
            x = x + self.feed_forward(p, x)
        return self.norm("model.encoder.layer_norm", x), record

    def feed_forward(self, p, x):
        h = self.norm(p + ".final_layer_norm", x)
        return self.linear(p + ".fc2", self.act(self.linear(p + ".fc1", h)))

    def decode(self, ids, memory):
        """Logits after every position of ids, and the attention weights."""
        x, selfs, crosses = self.embed("decoder", ids), [], []
        for i in range(self.c["decoder_layers"]):
            p = "model.decoder.layers.%d" % i
            normed = self.norm(p + ".self_attn_layer_norm", x)
            out, weights = self.attention(p + ".self_attn", normed, normed, True)
            x = x + out
            selfs.append(weights)
            normed = self.norm(p + ".encoder_attn_layer_norm", x)
            out, weights = self.attention(p + ".encoder_attn", normed, memory, False)
            x = x + out
            crosses.append(weights)
            x = x + self.feed_forward(p, x)
        x = self.norm("model.decoder.layer_norm", x)
        logits = x @ self.w("lm_head.weight").T
        if "final_logits_bias" in self.sd:
            logits = logits + self.w("final_logits_bias")
        return logits, selfs, crosses
