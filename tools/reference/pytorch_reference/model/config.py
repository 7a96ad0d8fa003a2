"""config.json of format v1 (docs/model-format.md, "config.json"): a default config for new
models, the checks this reference relies on, and the numbers derived from it.

    make_config(**overrides) -> dict
    check_config(config)                 ValueError for what this reference cannot run
    head_dim_of(config) -> int           head_dim, else d_model / num_heads
    decoder_start_of(config) -> int      decoder_start_token, else special_tokens.bos

The in-memory-only key `final_logits_bias` (bool) asks the model for that tensor; it is never
written to config.json (the file format signals it by the tensor's presence).
"""
import torch.nn.functional as F

FORMAT_NAME = "minimt-transformer"
FORMAT_VERSION = 1

# Keys config.json may hold (format v1). Anything else is kept in memory only.
FORMAT_KEYS = (
    "format", "format_version", "d_model", "num_heads", "head_dim", "d_ff",
    "encoder_layers", "decoder_layers", "activation", "norm_position",
    "layer_norm_eps", "max_positions", "positions", "scale_embeddings",
    "source_vocab_size", "target_vocab_size", "tie_output", "special_tokens",
    "decoder_start_token", "tokenizer", "weights",
)

# The feed-forward's activation by its config name; F.gelu is the erf form.
ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "silu": F.silu}


def make_config(**overrides):
    """A valid format-v1 config with sensible defaults; keyword arguments replace keys."""
    config = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "d_model": 256,
        "num_heads": 4,
        "d_ff": 1024,
        "encoder_layers": 3,
        "decoder_layers": 3,
        "activation": "relu",
        "norm_position": "pre",
        "layer_norm_eps": 1e-5,
        "max_positions": 256,
        "positions": "sinusoidal",
        "scale_embeddings": True,
        "source_vocab_size": 8000,
        "target_vocab_size": 8000,
        "tie_output": True,
        "special_tokens": {"pad": 0, "unk": 1, "bos": 2, "eos": 3},
        "tokenizer": {"source": "source.spm", "target": "target.spm"},
        "weights": "model.safetensors",
    }
    config.update(overrides)
    if config.get("head_dim") is None:
        config.pop("head_dim", None)
    return config


def head_dim_of(config):
    if "head_dim" in config and config["head_dim"] is not None:
        return int(config["head_dim"])
    d_model, heads = config["d_model"], config["num_heads"]
    if d_model % heads != 0:
        raise ValueError("d_model %d is not divisible by num_heads %d and head_dim is not set"
                         % (d_model, heads))
    return d_model // heads


def decoder_start_of(config):
    return int(config.get("decoder_start_token", config["special_tokens"]["bos"]))


def check_config(config):
    """Light validation of the keys this reference relies on (the engine does the full job)."""
    if config.get("format") != FORMAT_NAME:
        raise ValueError("config format must be %r" % FORMAT_NAME)
    if config.get("format_version") != FORMAT_VERSION:
        raise ValueError("config format_version %r is not supported (this module reads %d)"
                         % (config.get("format_version"), FORMAT_VERSION))
    if config["activation"] not in ACTIVATIONS:
        raise ValueError("unknown activation %r" % config["activation"])
    if config["norm_position"] not in ("pre", "post"):
        raise ValueError("unknown norm_position %r" % config["norm_position"])
    if config["positions"] not in ("sinusoidal", "learned"):
        raise ValueError("unknown positions %r" % config["positions"])
    if head_dim_of(config) <= 0:
        raise ValueError("head_dim must be positive")
    for key in ("encoder_layers", "decoder_layers"):
        if config[key] < 1:
            raise ValueError("%s must be >= 1" % key)
