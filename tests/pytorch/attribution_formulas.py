"""Attributions (issue 39; docs/model-format.md, "Attributions") computed here with PyTorch's
autograd on a float64 forward written from docs/model-format.md's formulas, not from minimt's
code: a minimt model directory (format 1 or 2, any family tools/convert_hf.py and
tools/convert_marian.py write; F32, F16, BF16 or I8 weights, safetensors or inline) read into
float64 tensors, and

    f_t = log p(y_t | x, y_<t) of rows e (source) and d (decoder input), for a batch of variants

    Reference(model_dir).attributions(source, decoder_input, output, methods, steps, rule, ablate)
        -> {"log_probs": [T], METHOD: {"source": [T][S], "target": [T][T] (None for j > t),
            "completeness_gap": [T] for integrated gradients}}
"""
import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "I8": torch.int8}


def read_weights(directory, config):
    """Every tensor of the model as float64; I8 weights times their scales."""
    raw = {}
    if isinstance(config["weights"], dict):
        for name, t in config["weights"].items():
            raw[name] = torch.tensor(t["data"], dtype=torch.float32).reshape(t["shape"])
    else:
        with open(os.path.join(directory, config["weights"]), "rb") as f:
            blob = f.read()
        size = struct.unpack("<Q", blob[:8])[0]
        header = json.loads(blob[8:8 + size])
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            begin, end = entry["data_offsets"]
            data = bytearray(blob[8 + size + begin:8 + size + end])
            raw[name] = torch.frombuffer(data, dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"])
    weights = {}
    for name, t in raw.items():
        if name.endswith(".weight_scale"):
            continue
        t = t.to(torch.float64)
        scale = name[:-len(".weight")] + ".weight_scale" if name.endswith(".weight") else None
        if scale in raw:  # I8: q * scale per row, in float32 as the format says
            t = (raw[name].to(torch.float32) * raw[scale].to(torch.float32)[:, None]).double()
        weights[name] = t
    return weights


def bucket(relative, bidirectional, buckets, max_distance):
    """docs/model-format.md's relative-position bucket (T5's), its logarithm in float32."""
    base = 0
    if bidirectional:
        buckets //= 2
        base = buckets if relative > 0 else 0
        n = abs(relative)
    else:
        n = max(-relative, 0)
    exact = buckets // 2
    if n < exact:
        return base + n
    ratio = np.float32(np.log(np.float32(n) / np.float32(exact)))
    span = np.float32(math.log(max_distance / exact))
    large = exact + int(np.float32(ratio / span) * np.float32(buckets - exact))
    return base + min(large, buckets - 1)


class Reference:
    def __init__(self, directory):
        with open(os.path.join(directory, "config.json"), encoding="utf-8") as f:
            self.c = json.load(f)
        self.w = read_weights(directory, self.c)
        c = self.c
        self.d, self.h = c["d_model"], c["num_heads"]
        self.dk = c.get("head_dim", self.d // self.h)
        self.norm_kind = c.get("norm", "layer_norm")
        self.pre = c["norm_position"] == "pre"
        self.final_norms = c.get("final_norms", self.pre)
        self.biases = c.get("biases", True)
        self.eps = c["layer_norm_eps"]
        self.unk = c["special_tokens"]["unk"]
        self.forced = c.get("forced_first_token")

    # -- pieces

    def linear(self, name, x):
        y = x @ self.w[name + ".weight"].T
        return y + self.w[name + ".bias"] if self.biases else y

    def norm(self, name, x):
        weight = self.w[name + ".weight"]
        if self.norm_kind == "rms_norm":
            return x / torch.sqrt((x * x).mean(-1, keepdim=True) + self.eps) * weight
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * weight + self.w[name + ".bias"]

    def act(self, x):
        a = self.c["activation"]
        if a == "relu":
            return torch.relu(x)
        if a == "gelu":
            return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
        if a == "silu":
            return x * torch.sigmoid(x)
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))

    def positions(self, side, ids):
        """P[i + offset] for each token i [N, d] (a pad reads zeros in fairseq's table)."""
        c, n, d = self.c, len(ids), self.d
        kind, offset = c["positions"], c.get("position_offset", 0)
        rows = torch.arange(n) + offset
        if kind == "none":
            return torch.zeros(n, d, dtype=torch.float64)
        if kind == "learned":
            return self.w[side + ".embed_positions.weight"][rows]
        table = torch.zeros(n, d, dtype=torch.float64)
        for i, p in enumerate(rows.tolist()):
            if kind == "sinusoidal":
                for k in range(0, d, 2):
                    angle = p / 10000.0 ** (k / d)
                    table[i, k] = float(np.float32(math.sin(angle)))
                    if k + 1 < d:
                        table[i, k + 1] = float(np.float32(math.cos(angle)))
            elif ids[i] != c["special_tokens"]["pad"]:  # fairseq's, in float32 step by step
                half = d // 2
                step = np.float32(-(math.log(10000.0) / (half - 1)))
                for k in range(half):
                    angle = np.float32(np.float32(p) * np.exp(np.float32(k) * step))
                    table[i, k] = float(np.sin(angle))
                    table[i, half + k] = float(np.cos(angle))
        return table

    def bias_table(self, side, n, bidirectional):
        """T5's bias [H, n, n] of query i and key j, or 0."""
        rel = self.c.get("relative_attention")
        if not rel:
            return 0.0
        weight = self.w[side + ".relative_attention_bias.weight"]  # [buckets, H]
        index = [[bucket(j - i, bidirectional, rel["buckets"], rel["max_distance"])
                  for j in range(n)] for i in range(n)]
        return weight[torch.tensor(index)].permute(2, 0, 1)

    def attention(self, name, x, memory, bias, causal, ablated):
        """x [B, tq, d], memory [B, tk, d] -> [B, tq, d]; ablated: head numbers switched off."""
        b, tq, tk = x.shape[0], x.shape[1], memory.shape[1]
        q = self.linear(name + ".q_proj", x).view(b, tq, self.h, self.dk).transpose(1, 2)
        k = self.linear(name + ".k_proj", memory).view(b, tk, self.h, self.dk).transpose(1, 2)
        v = self.linear(name + ".v_proj", memory).view(b, tk, self.h, self.dk).transpose(1, 2)
        scores = q @ k.transpose(-1, -2)
        if self.c.get("scale_attention_scores", True):
            scores = scores / math.sqrt(self.dk)
        scores = scores + bias
        if causal:
            hidden = torch.triu(torch.ones(tq, tk, dtype=torch.bool), 1)
            scores = scores.masked_fill(hidden, float("-inf"))
        a = torch.softmax(scores, -1)
        keep = torch.ones(self.h, dtype=torch.float64)
        keep[list(ablated)] = 0.0
        a = a * keep.view(1, -1, 1, 1)
        context = (a @ v).transpose(1, 2).reshape(b, tq, self.h * self.dk)
        return self.linear(name + ".out_proj", context)

    def residual(self, norm, x, sublayer):
        if self.pre:
            return x + sublayer(self.norm(norm, x))
        return self.norm(norm, x + sublayer(x))

    def feed_forward(self, name, x):
        inner = self.act(self.linear(name + ".fc1", x))
        if self.c.get("feed_forward", "standard") == "gated":
            inner = inner * self.linear(name + ".fc1_linear", x)
        return self.linear(name + ".fc2", inner)

    def embed(self, side, rows, ids):
        scale = math.sqrt(self.d) if self.c["scale_embeddings"] else 1.0
        x = rows * scale + self.positions(side, ids)
        return self.norm(side + ".layernorm_embedding", x) if self.c.get("embedding_norm") else x

    # -- the forward

    def log_probs(self, src_rows, tgt_rows, source, decoder_input, output, ablate=()):
        """src_rows [B, S, d], tgt_rows [B, T, d] -> f [B, T]."""
        c = self.c
        heads = {kind: {} for kind in ("encoder", "decoder", "cross")}
        for kind, layer, head in ablate:
            heads[kind].setdefault(layer, set()).add(head)
        x = self.embed("encoder", src_rows, source)
        bias = self.bias_table("encoder", len(source), True)
        for l in range(c["encoder_layers"]):
            p = "encoder.layers.%d" % l
            x = self.residual(p + ".self_attn_layer_norm", x, lambda u: self.attention(
                p + ".self_attn", u, u, bias, False, heads["encoder"].get(l, ())))
            x = self.residual(p + ".final_layer_norm", x, lambda u: self.feed_forward(p, u))
        memory = self.norm("encoder.layer_norm", x) if self.final_norms else x
        y = self.embed("decoder", tgt_rows, decoder_input)
        bias = self.bias_table("decoder", len(decoder_input), False)
        for l in range(c["decoder_layers"]):
            p = "decoder.layers.%d" % l
            y = self.residual(p + ".self_attn_layer_norm", y, lambda u: self.attention(
                p + ".self_attn", u, u, bias, True, heads["decoder"].get(l, ())))
            y = self.residual(p + ".encoder_attn_layer_norm", y, lambda u: self.attention(
                p + ".encoder_attn", u, memory, 0.0, False, heads["cross"].get(l, ())))
            y = self.residual(p + ".final_layer_norm", y, lambda u: self.feed_forward(p, u))
        if self.final_norms:
            y = self.norm("decoder.layer_norm", y)
        y = y * c.get("output_scale", 1.0)
        out = self.w["decoder.embed_tokens.weight"] if c["tie_output"] else self.w["lm_head.weight"]
        logits = y @ out.T
        if "final_logits_bias" in self.w:
            logits = logits + self.w["final_logits_bias"]
        f = F.log_softmax(logits, -1)[:, torch.arange(len(output)), torch.tensor(output)]
        if self.forced is not None:  # the forced first token: log-probability 0, constant
            f = torch.cat([torch.zeros_like(f[:, :1]), f[:, 1:]], 1)
        return f

    # -- the methods

    def rows(self, source, decoder_input):
        return (self.w["encoder.embed_tokens.weight"][torch.tensor(source)],
                self.w["decoder.embed_tokens.weight"][torch.tensor(decoder_input)])

    def gradients(self, e, dvec, alphas, ids, ablate):
        """df_t/d(rows) at rows * alpha_k: [K, T, S, d] and [K, T, T, d]; and f [K, T]."""
        k = len(alphas)
        a = torch.tensor(alphas, dtype=torch.float64).view(k, 1, 1)
        src = (a * e).detach().requires_grad_(True)
        tgt = (a * dvec).detach().requires_grad_(True)
        f = self.log_probs(src, tgt, *ids, ablate=ablate)
        ts = f.shape[1]
        gs, gt = [], []
        for t in range(ts):
            if not f[:, t].requires_grad:
                gs.append(torch.zeros_like(src)), gt.append(torch.zeros_like(tgt))
                continue
            s, g = torch.autograd.grad(f[:, t].sum(), (src, tgt), retain_graph=True,
                                       allow_unused=True)
            gs.append(s if s is not None else torch.zeros_like(src))
            gt.append(g if g is not None else torch.zeros_like(tgt))
        return torch.stack(gs, 1), torch.stack(gt, 1), f.detach()

    def attributions(self, source, decoder_input, output, methods, steps=32,
                     rule="gauss_legendre", ablate=()):
        ids = (source, decoder_input, output)
        e, dvec = self.rows(source, decoder_input)
        T = len(output)
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool))  # j <= t
        gs, gt, f = self.gradients(e, dvec, [1.0], ids, ablate)
        out = {"log_probs": f[0].tolist()}

        def shaped(source_values, target_values):
            target = target_values.masked_fill(~causal, float("nan"))
            return {"source": source_values, "target": target}

        if "saliency" in methods:
            out["saliency"] = shaped(gs[0].norm(dim=-1), gt[0].norm(dim=-1))
        if "input_x_gradient" in methods:
            out["input_x_gradient"] = shaped((gs[0] * e).sum(-1), (gt[0] * dvec).sum(-1))
        if "integrated_gradients" in methods:
            if rule == "riemann_right":
                alphas, weights = [(k + 1) / steps for k in range(steps)], [1 / steps] * steps
            else:
                nodes, w = np.polynomial.legendre.leggauss(steps)
                alphas, weights = ((nodes + 1) / 2).tolist(), (w / 2).tolist()
            gs, gt, _ = self.gradients(e, dvec, alphas, ids, ablate)
            w = torch.tensor(weights, dtype=torch.float64).view(-1, 1, 1, 1)
            src = ((w * gs).sum(0) * e).sum(-1)
            tgt = ((w * gt).sum(0) * dvec).sum(-1).masked_fill(~causal, 0.0)
            zero = self.log_probs(0 * e[None], 0 * dvec[None], *ids, ablate=ablate)[0]
            gap = src.sum(1) + tgt.sum(1) - (f[0] - zero)
            # sum_k w_k |e . g_k|: the size of the terms each attribution sums (its float
            # rounding is relative to that, not to the sum)
            terms = ((w * gs * e).sum(-1).abs().sum(0), (w * gt * dvec).sum(-1).abs().sum(0))
            out["integrated_gradients"] = dict(shaped(src, tgt), completeness_gap=gap,
                                               source_terms=terms[0], target_terms=terms[1])
        if "occlusion" in methods:
            with torch.no_grad():
                src = torch.zeros(T, len(source), dtype=torch.float64)
                tgt = torch.zeros(T, T, dtype=torch.float64)
                for i in range(len(source)):
                    occluded = list(source)
                    occluded[i] = self.unk
                    e2, _ = self.rows(occluded, decoder_input)
                    src[:, i] = f[0] - self.log_probs(e2[None], dvec[None], occluded,
                                                      decoder_input, output, ablate)[0]
                for j in range(T):
                    occluded = list(decoder_input)
                    occluded[j] = self.unk
                    _, d2 = self.rows(source, occluded)
                    tgt[:, j] = f[0] - self.log_probs(e[None], d2[None], source, occluded,
                                                      output, ablate)[0]
            out["occlusion"] = shaped(src, tgt)
        return out
