"""Random model directories for tests and benchmarks (reference.py random-model): seeded
tokenizers trained on sample_text, seeded random weights scaled so that a random model's
translations are not degenerate, and config.json + weights + tokenizers written as format v1.

    write_random_model(out_dir, seed, vocab, target_vocab, dtype, final_logits_bias,
                       eos_boost, decoder_start, **architecture)
    randomize(model, config, seed, eos_boost=0.0)
"""
import math
import os

import torch

from .model.config import make_config
from .model.files import save_model
from .model.transformer import MinimtTransformer
from .sample_text import ENGLISH, FRENCH, train_tokenizer


def randomize(model, config, seed, eos_boost=0.0):
    """Seeded random weights, scaled so attention rows are informative (neither uniform
    nor one-hot) and logits are well separated (greedy is not decided by rounding)."""
    gen = torch.Generator().manual_seed(seed)
    d_model = config["d_model"]
    embed_std = 1.0 / math.sqrt(d_model) if config["scale_embeddings"] else 1.0

    def normal(shape, std, mean=0.0):
        return torch.randn(shape, generator=gen) * std + mean

    state = model.state_dict()
    new = {}
    for name in sorted(state):
        shape = state[name].shape
        if name.endswith("embed_tokens.weight"):
            value = normal(shape, embed_std)
        elif name.endswith("embed_positions.weight"):
            value = normal(shape, 0.5)
        elif "layer_norm" in name:
            value = normal(shape, 0.1, 1.0 if name.endswith("weight") else 0.0)
        elif name.endswith(("q_proj.weight", "k_proj.weight")):
            value = normal(shape, 1.2 / math.sqrt(shape[1]))
        elif name.endswith(("out_proj.weight", "fc2.weight")):
            # sublayer outputs comparable to the residual stream, so that generated
            # tokens vary instead of the embedding of the last token winning again
            value = normal(shape, 2.0 / math.sqrt(shape[1]))
        elif name.endswith(".weight") and name != "lm_head.weight":
            value = normal(shape, 1.0 / math.sqrt(shape[1]))
        elif name == "lm_head.weight":
            value = normal(shape, 1.0 / math.sqrt(shape[1]) * 2.0)
        elif name == "final_logits_bias":
            value = normal(shape, 0.5)
            value[int(config["special_tokens"]["eos"])] += eos_boost
        else:  # Linear biases
            value = normal(shape, 0.1)
        new[name] = value
    model.load_state_dict(new, strict=True)


def write_random_model(out_dir, seed=0, vocab=100, target_vocab=None, dtype="F32",
                       final_logits_bias=False, eos_boost=0.0, decoder_start=None,
                       **architecture):
    """A complete model directory: source.spm and target.spm (vocab pieces requested, the
    target's target_vocab if given), config.json (make_config with the architecture keywords:
    d_model, num_heads, ...; the vocabulary sizes are the tokenizers' piece counts) and the
    weights in dtype (F32 | F16 | BF16 | inline)."""
    os.makedirs(out_dir, exist_ok=True)
    source_vocab = train_tokenizer(ENGLISH, vocab, os.path.join(out_dir, "source.spm"),
                                   seed=seed)
    target_vocab = train_tokenizer(FRENCH, target_vocab or vocab,
                                   os.path.join(out_dir, "target.spm"), seed=seed + 1)
    config = make_config(source_vocab_size=source_vocab, target_vocab_size=target_vocab,
                         **architecture)
    if decoder_start is not None:
        config["decoder_start_token"] = decoder_start
    torch.manual_seed(seed)
    model = MinimtTransformer(config, final_logits_bias=final_logits_bias)
    randomize(model, config, seed, eos_boost)
    save_model(model, config, out_dir, dtype)
