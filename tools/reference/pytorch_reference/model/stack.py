"""One side of the model, encoder or decoder: embeddings, layers, and the final LayerNorm of a
pre-norm stack. x = E[id] * (sqrt(d_model) if scale_embeddings else 1) + P[pos]
(docs/model-format.md, "The forward pass"); the layers run in the caller (MinimtTransformer),
which knows the masks.
"""
import math

import torch.nn as nn
import torch.nn.functional as F

from . import norms
from .positions import add_position_table, position_rows


class Stack(nn.Module):
    """embed_tokens, the position table, layers (layer_cls each), layer_norm (pre-norm only)."""

    def __init__(self, config, vocab_size, layer_cls, num_layers, dropout):
        super().__init__()
        d_model = config["d_model"]
        self.embed_scale = math.sqrt(d_model) if config["scale_embeddings"] else 1.0
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        add_position_table(self, config)
        self.layers = nn.ModuleList([layer_cls(config, dropout) for _ in range(num_layers)])
        self.layer_norm = norms.final_norm(config)
        self.dropout = dropout

    def embed(self, ids, start=0):
        """ids [B, T] at positions start..start+T-1 -> [B, T, D]."""
        positions = position_rows(self, start, ids.shape[1])               # [T, D]
        x = self.embed_tokens(ids) * self.embed_scale + positions
        return F.dropout(x, self.dropout, self.training) if self.dropout > 0 else x

    def finish(self, x):
        return self.layer_norm(x) if self.layer_norm is not None else x
