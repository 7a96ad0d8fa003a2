"""Maps MarianMTModel's state dict onto format 1's tensor names and shapes.

HF name (prefix "model.")                      minimt name
  shared.weight (or encoder/decoder.embed_tokens) encoder/decoder.embed_tokens.weight
  encoder/decoder.embed_positions.weight          same (learned table; computed when absent)
  encoder/decoder.layers.{i}.<sublayer>           same
  encoder/decoder.layer_norm.* (3.x pre-norm)     same
lm_head.weight (untied only), final_logits_bias [1, V] -> [V].
"""
import numpy as np

from errors import ConversionError

# Added to the logits bias of a banned token: far below any real logit, still finite
# (format 1 refuses infinities), so exp() of it is exactly 0 in float32.
BANNED_LOGIT_BIAS = -1.0e9

ATTENTION = ["q_proj", "k_proj", "v_proj", "out_proj"]


def marian_sinusoidal_table(max_positions, d_model):
    """MarianSinusoidalPositionalEmbedding: sin of every frequency in the first half, cos in
    the second (not interleaved); computed in float64 as transformers does, then float32."""
    j = np.arange(d_model)
    angles = np.arange(max_positions)[:, None] / np.power(10000.0, 2 * (j // 2) / d_model)[None]
    sentinel = (d_model + 1) // 2
    table = np.empty((max_positions, d_model), dtype=np.float32)
    table[:, :sentinel] = np.sin(angles[:, 0::2])
    table[:, sentinel:] = np.cos(angles[:, 1::2])
    return table


def layer_shapes(p, stack):
    """Sublayer tensor shapes; transformers' Marian has head_dim = d_model / heads."""
    d = p.d_model
    shapes = {}
    for block in ["self_attn"] + (["encoder_attn"] if stack == "decoder" else []):
        for proj in ATTENTION:
            shapes["%s.%s.weight" % (block, proj)] = (d, d)
            shapes["%s.%s.bias" % (block, proj)] = (d,)
        shapes[block + "_layer_norm.weight"] = (d,)
        shapes[block + "_layer_norm.bias"] = (d,)
    shapes.update({"fc1.weight": (p.d_ff, d), "fc1.bias": (p.d_ff,), "fc2.weight": (d, p.d_ff),
                   "fc2.bias": (d,), "final_layer_norm.weight": (d,),
                   "final_layer_norm.bias": (d,)})
    return shapes


class Source:
    """The checkpoint's tensors; remembers which were used, to refuse the others."""

    def __init__(self, tensors, path):
        self.tensors, self.path, self.used = tensors, path, set()

    def has(self, name):
        return name in self.tensors

    def take(self, name, shape):
        if name not in self.tensors:
            raise ConversionError(self.path, "tensor %s is missing" % name)
        value = self.tensors[name]
        if tuple(value.shape) != tuple(shape):
            raise ConversionError(self.path, "tensor %s has shape %s, expected %s"
                                  % (name, list(value.shape), list(shape)))
        if not np.all(np.isfinite(value)):
            raise ConversionError(self.path, "tensor %s holds a NaN or an infinity" % name)
        self.used.add(name)
        return value

    def unused(self):
        return sorted(set(self.tensors) - self.used)


def _embedding(src, names, shape, what):
    """The first present alias; every other present alias must hold the same values."""
    present = [n for n in names if src.has(n)]
    if not present:
        raise ConversionError(src.path, "has no %s (looked for %s)" % (what, ", ".join(names)))
    value = src.take(present[0], shape)
    for other in present[1:]:
        if not np.array_equal(src.take(other, shape), value):
            raise ConversionError(src.path, "tensors %s and %s differ although they are the "
                                            "same %s" % (present[0], other, what))
    return value


def embeddings(src, p, out):
    d = p.d_model
    if p.shared_embeddings:
        aliases = ["model.shared.weight", "model.encoder.embed_tokens.weight",
                   "model.decoder.embed_tokens.weight"]
        if p.tied_output:
            aliases.append("lm_head.weight")
        table = _embedding(src, aliases, (p.vocab_size, d), "shared embedding table")
        out["encoder.embed_tokens.weight"] = table
        out["decoder.embed_tokens.weight"] = table
    else:
        out["encoder.embed_tokens.weight"] = _embedding(
            src, ["model.encoder.embed_tokens.weight"], (p.vocab_size, d), "encoder embedding")
        decoder = ["model.decoder.embed_tokens.weight"] + (["lm_head.weight"] if p.tied_output
                                                           else [])
        out["decoder.embed_tokens.weight"] = _embedding(
            src, decoder, (p.target_vocab_size, d), "decoder embedding")
    if not p.tied_output:
        out["lm_head.weight"] = src.take("lm_head.weight", (p.target_vocab_size, d))
    elif src.has("lm_head.weight"):
        src.used.add("lm_head.weight")  # transformers ties it to the embedding on load


def positions(src, p, out, notes):
    computed = marian_sinusoidal_table(p.max_positions, p.d_model)
    for stack in ("encoder", "decoder"):
        name = "model.%s.embed_positions.weight" % stack
        if src.has(name):
            table = src.take(name, (p.max_positions, p.d_model))
            diff = float(np.abs(table - computed).max())
            notes.append("%s: from the checkpoint (differs from the computed table by %.1e)"
                         % (name, diff))
        else:
            table = computed
        out["%s.embed_positions.weight" % stack] = table


def logits_bias(src, p, banned, out):
    v = p.target_vocab_size
    bias = src.take("final_logits_bias", (1, v)).reshape(v).copy() \
        if src.has("final_logits_bias") else None
    if banned:
        bias = np.zeros(v, dtype=np.float32) if bias is None else bias
        for token in banned:
            if not 0 <= token < v:
                raise ConversionError(src.path, "bad_words_ids names token %d, past the target "
                                                "vocabulary (%d)" % (token, v))
            bias[token] = BANNED_LOGIT_BIAS
    if bias is not None:
        out["final_logits_bias"] = bias


def map_weights(tensors, path, p, banned, notes):
    """-> {minimt name: float32 array}; refuses missing, misshapen and unknown tensors."""
    src, out = Source(tensors, path), {}
    embeddings(src, p, out)
    positions(src, p, out, notes)
    for stack, count in (("encoder", p.encoder_layers), ("decoder", p.decoder_layers)):
        shapes = layer_shapes(p, stack)
        for i in range(count):
            for name, shape in shapes.items():
                key = "%s.layers.%d.%s" % (stack, i, name)
                out[key] = src.take("model." + key, shape)
        if p.norm_position == "pre":
            for part in ("weight", "bias"):
                key = "%s.layer_norm.%s" % (stack, part)
                out[key] = src.take("model." + key, (p.d_model,))
    logits_bias(src, p, banned, out)
    unused = src.unused()
    if unused:
        raise ConversionError(path, "tensor %s is not part of a MarianMTModel that minimt's "
                                    "format can hold (%d such tensor%s)"
                              % (unused[0], len(unused), "s" if len(unused) > 1 else ""))
    return out
