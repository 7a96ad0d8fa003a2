"""Positions: the vectors added to the scaled token embeddings, x = E[id] * scale + P[pos]
(docs/model-format.md, "The forward pass"), positions counted from 0 in both stacks.

    positions "sinusoidal": sinusoidal_table, the original Transformer's, interleaved:
        P[pos][2i] = sin(pos / 10000^(2i/d)),  P[pos][2i+1] = cos(pos / 10000^(2i/d));
        computed, never stored in the file
    positions "learned": the tensor {encoder,decoder}.embed_positions.weight [max_positions, d]
    Marian (the Marian reference): sinusoidal_halves, sin in the first half, cos in the second

A new scheme (an offset, a family's own table) is one more function here and one more branch
in add_position_table and position_rows.
"""
import numpy as np
import torch
import torch.nn as nn


def sinusoidal_table(max_positions, d_model):
    """[P, D] float32, computed in float64: P[pos][2i] = sin(angle), P[pos][2i+1] = cos(angle)."""
    pos = torch.arange(max_positions, dtype=torch.float64).unsqueeze(1)   # [P, 1]
    even = torch.arange(0, d_model, 2, dtype=torch.float64)               # 2i
    angle = pos / torch.pow(10000.0, even / d_model)                      # [P, ceil(d/2)]
    table = torch.zeros(max_positions, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table.float()


def sinusoidal_halves(n_pos, dim):
    """Hugging Face's MarianSinusoidalPositionalEmbedding._init_weight: the angle of column j is
    pos / 10000^(2 (j // 2) / dim); sin of the even columns' angles fills the first half, cos of
    the odd ones' the second. [n_pos, dim] float32."""
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                             for pos in range(n_pos)])
    out = torch.empty(n_pos, dim)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = torch.FloatTensor(np.sin(position_enc[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(position_enc[:, 1::2]))
    return out


def add_position_table(stack, config):
    """Gives an encoder or decoder stack its positions: learned -> stack.embed_positions, an
    nn.Embedding [max_positions, d_model] (saved as <side>.embed_positions.weight); sinusoidal
    -> stack.pos_table, a buffer that is not saved."""
    stack.learned_positions = config["positions"] == "learned"
    if stack.learned_positions:
        stack.embed_positions = nn.Embedding(config["max_positions"], config["d_model"])
    else:
        stack.register_buffer("pos_table",
                              sinusoidal_table(config["max_positions"], config["d_model"]),
                              persistent=False)


def position_rows(stack, start, count):
    """P[start .. start+count-1] of the stack's table -> [count, D]; ValueError past its end."""
    table = stack.embed_positions.weight if stack.learned_positions else stack.pos_table
    if start + count > table.shape[0]:
        raise ValueError("sequence of %d positions exceeds max_positions %d"
                         % (start + count, table.shape[0]))
    return table[start:start + count]
