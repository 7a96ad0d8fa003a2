"""A PyTorch forward of T5ForConditionalGeneration, written from transformers' modeling_t5.py
(read, not imported) and used only by the tests, on the Hugging Face state dict's own names:

  T5LayerNorm           weight * x * rsqrt(mean(x^2) + eps), the variance in float32
  T5Attention           no biases, scores q k^T without 1/sqrt(d_kv); compute_bias with
                        _relative_position_bucket (bidirectional in the encoder) in the first
                        layer of each stack, the same position_bias added in every layer;
                        EncDecAttention has none
  T5DenseActDense       wo(act(wi(x))); T5DenseGatedActDense wo(gelu_new(wi_0 x) * wi_1 x)
  T5ForConditionalGeneration  tied output: sequence_output * d_model**-0.5 before lm_head
"""
import math

import torch
import torch.nn.functional as F


def gelu_new(x):
    """NewGELUActivation."""
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))
    return 0.5 * x * (1.0 + torch.tanh(inner))


def relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance):
    """T5Attention._relative_position_bucket."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


class T5:
    def __init__(self, state, config):
        self.sd, self.c = state, config
        self.d, self.h, self.dkv = config["d_model"], config["num_heads"], config["d_kv"]
        self.gated = config["feed_forward_proj"].startswith("gated")
        self.act = gelu_new if self.gated else F.relu

    def w(self, name):
        return self.sd[name].float()

    def norm(self, name, x):
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.w(name) * (x * torch.rsqrt(variance + self.c["layer_norm_epsilon"]))

    def bias(self, stack, q_len, k_len):
        """T5Attention.compute_bias: [H, q_len, k_len]."""
        context = torch.arange(q_len, dtype=torch.long)[:, None]
        memory = torch.arange(k_len, dtype=torch.long)[None, :]
        buckets = relative_position_bucket(memory - context, stack == "encoder",
                                           self.c["relative_attention_num_buckets"],
                                           self.c["relative_attention_max_distance"])
        table = self.w("%s.block.0.layer.0.SelfAttention.relative_attention_bias.weight" % stack)
        return table[buckets].permute(2, 0, 1)

    def attention(self, prefix, x, memory, position_bias):
        t, s = x.shape[0], memory.shape[0]
        q = (x @ self.w(prefix + ".q.weight").T).view(t, self.h, self.dkv).transpose(0, 1)
        k = (memory @ self.w(prefix + ".k.weight").T).view(s, self.h, self.dkv).transpose(0, 1)
        v = (memory @ self.w(prefix + ".v.weight").T).view(s, self.h, self.dkv).transpose(0, 1)
        scores = q @ k.transpose(1, 2) + position_bias
        weights = torch.softmax(scores.float(), dim=-1)
        out = (weights @ v).transpose(0, 1).reshape(t, self.h * self.dkv)
        return out @ self.w(prefix + ".o.weight").T, weights

    def feed_forward(self, p, x):
        h = self.norm(p + ".layer_norm.weight", x)
        dense = p + ".DenseReluDense"
        if self.gated:
            inner = self.act(h @ self.w(dense + ".wi_0.weight").T) * \
                (h @ self.w(dense + ".wi_1.weight").T)
        else:
            inner = self.act(h @ self.w(dense + ".wi.weight").T)
        return inner @ self.w(dense + ".wo.weight").T

    def encode(self, ids):
        x, record = self.w("shared.weight")[torch.tensor(ids)], []
        bias = self.bias("encoder", len(ids), len(ids))
        for i in range(self.c["num_layers"]):
            p = "encoder.block.%d.layer" % i
            normed = self.norm(p + ".0.layer_norm.weight", x)
            out, weights = self.attention(p + ".0.SelfAttention", normed, normed, bias)
            x = x + out
            record.append(weights)
            x = x + self.feed_forward(p + ".1", x)
        return self.norm("encoder.final_layer_norm.weight", x), record

    def decode(self, ids, memory):
        x, selfs, crosses = self.w("shared.weight")[torch.tensor(ids)], [], []
        t = len(ids)
        # the causal mask added to the bias, as T5Stack's extended attention mask does
        mask = torch.ones(t, t).triu(1) * torch.finfo(torch.float32).min
        bias = self.bias("decoder", t, t) + mask
        for i in range(self.c["num_decoder_layers"]):
            p = "decoder.block.%d.layer" % i
            normed = self.norm(p + ".0.layer_norm.weight", x)
            out, weights = self.attention(p + ".0.SelfAttention", normed, normed, bias)
            x = x + out
            selfs.append(weights)
            normed = self.norm(p + ".1.layer_norm.weight", x)
            out, weights = self.attention(p + ".1.EncDecAttention", normed, memory,
                                          torch.zeros(1, t, memory.shape[0]))
            x = x + out
            crosses.append(weights)
            x = x + self.feed_forward(p + ".2", x)
        x = self.norm("decoder.final_layer_norm.weight", x)
        if self.c["tie_word_embeddings"]:
            x = x * (self.d ** -0.5)
        return x @ self.w("lm_head.weight").T, selfs, crosses
