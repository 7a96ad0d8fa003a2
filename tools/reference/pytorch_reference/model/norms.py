"""LayerNorm and where it goes (docs/model-format.md, `norm_position`): every sublayer f (an
attention or the feed-forward) sits in a residual connection with its own LayerNorm,

    post: x = LN(x + f(x))        (the original Transformer; no final norm)
    pre:  x = x + f(LN(x))        (and one more LayerNorm at the end of each stack)

LN(x) = (x - mean) / sqrt(var + layer_norm_eps) * weight + bias over the last dimension.
The Marian reference places its norms with `residual` too. A new norm (RMSNorm for T5) is one
more constructor here.
"""
import torch.nn as nn


def layer_norm(config):
    """nn.LayerNorm over d_model with the config's epsilon (tensors .weight and .bias)."""
    return nn.LayerNorm(config["d_model"], eps=config["layer_norm_eps"])


def final_norm(config):
    """The LayerNorm that ends a stack: pre-norm stacks have one, post-norm stacks none."""
    return layer_norm(config) if config["norm_position"] == "pre" else None


def residual(x, norm, sublayer, pre_norm, drop=None):
    """One sublayer in its residual connection: pre x + f(LN(x)), post LN(x + f(x)).

    sublayer(h) returns (f(h), extra); extra (attention weights, or None) is returned beside the
    new x. drop, when given, is applied to f's output (dropout in training)."""
    if pre_norm:
        out, extra = sublayer(norm(x))
        return x + (drop(out) if drop else out), extra
    out, extra = sublayer(x)
    return norm(x + (drop(out) if drop else out)), extra
