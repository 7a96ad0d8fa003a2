"""Maps a Hugging Face MarianConfig (config.json, generation_config.json,
tokenizer_config.json) onto minimt's format 1, refusing what format 1 cannot hold.

Keys a config leaves out take MarianConfig's defaults, as transformers does. Keys from
transformers 3.x (when Marian was a BART model: normalize_before, add_final_layer_norm,
normalize_embedding, static_position_embeddings, add_bias_logits) are honoured or refused;
transformers 4.x ignores them, and they are false/true as below in every OPUS-MT config.
"""
import json

from errors import ConversionError

# MarianConfig.__init__ defaults (transformers 4.x)
DEFAULTS = {"vocab_size": 58101, "max_position_embeddings": 1024, "encoder_layers": 12,
            "encoder_ffn_dim": 4096, "encoder_attention_heads": 16, "decoder_layers": 12,
            "decoder_ffn_dim": 4096, "decoder_attention_heads": 16, "d_model": 1024,
            "activation_function": "gelu", "decoder_start_token_id": 58100,
            "scale_embedding": False, "pad_token_id": 58100, "eos_token_id": 0,
            "share_encoder_decoder_embeddings": True, "tie_word_embeddings": True}

# transformers' ACT2FN names -> minimt's. "gelu" is the erf form in both.
ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "swish": "silu", "silu": "silu"}

# (key, the value format 1 can hold, why another value cannot be held)
LEGACY_FLAGS = [
    ("normalize_embedding", False, "a LayerNorm on the embeddings (transformers 3.x)"),
    ("layernorm_embedding", False, "a LayerNorm on the embeddings"),
    ("add_bias_logits", False, "a second logits bias (transformers 3.x)"),
    ("static_position_embeddings", True, "learned positions with BART's offset of 2"),
    ("tie_encoder_decoder", False, "encoder weights shared with the decoder"),
    ("do_blenderbot_90_layernorm", False, "Blenderbot's layer norm placement"),
]


class Plan:
    """What the converter will write: minimt config values and how to read the weights."""


# The largest value the converter takes for each config.json key (every family's names): as
# minimt's config reader (src/model/config_reader.h) or tighter, so that nothing the converter
# computes from them (position tables, id layouts) is a huge allocation. Real models are far
# below: d_model 2048, 1024 positions, 256,206 ids (NLLB). Other integer keys: 2^31 - 1.
DIMENSION, VOCABULARY = 1 << 16, 1 << 19
LIMITS = {"d_model": DIMENSION, "d_kv": DIMENSION, "num_heads": DIMENSION,
          "encoder_attention_heads": DIMENSION, "decoder_attention_heads": DIMENSION,
          "encoder_ffn_dim": 4 * DIMENSION, "decoder_ffn_dim": 4 * DIMENSION,
          "d_ff": 4 * DIMENSION, "encoder_layers": 1024, "decoder_layers": 1024,
          "num_layers": 1024, "num_decoder_layers": 1024,
          "max_position_embeddings": DIMENSION, "n_positions": DIMENSION,
          "relative_attention_num_buckets": DIMENSION,
          "relative_attention_max_distance": 1 << 20,
          "vocab_size": VOCABULARY, "decoder_vocab_size": VOCABULARY, "extra_ids": VOCABULARY,
          "pad_token_id": VOCABULARY, "eos_token_id": VOCABULARY, "bos_token_id": VOCABULARY,
          "decoder_start_token_id": VOCABULARY}
INT_LIMIT = (1 << 31) - 1
# positions x d_model: the sinusoidal tables the converter computes (16.7 M values)
MAX_TABLE = 1 << 24


def int_value(value, path, key, low=0):
    """value (config.json's key, or its default) as an integer in [low, LIMITS[key]]."""
    high = LIMITS.get(key, INT_LIMIT)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConversionError(path, "key '%s' is %s, not an integer from %d to %d"
                              % (key, json.dumps(value)[:80], low, high))
    return value


def check_table(path, positions, d_model, key="max_position_embeddings"):
    if positions * d_model > MAX_TABLE:
        raise ConversionError(path, "key '%s' (%d) times 'd_model' (%d) is more than %d: the "
                                    "position table would be too large"
                              % (key, positions, d_model, MAX_TABLE))


def _int(config, path, key, low=0):
    return int_value(config.get(key, DEFAULTS.get(key)), path, key, low)


def _bool(config, path, key, default):
    value = config.get(key, default)
    if not isinstance(value, bool):
        raise ConversionError(path, "key '%s' is %r, not true or false" % (key, value))
    return value


def _same(config, path, key_a, key_b):
    a, b = _int(config, path, key_a, 1), _int(config, path, key_b, 1)
    if a != b:
        raise ConversionError(path, "key '%s' is %d but '%s' is %d; minimt's format has one "
                                    "value for both stacks" % (key_b, b, key_a, a))
    return a


def check_model_type(config, path):
    model_type = config.get("model_type", "marian")
    if model_type != "marian":
        raise ConversionError(path, "key 'model_type' is %r; only \"marian\" (MarianMTModel) "
                                    "is converted" % model_type)
    architectures = config.get("architectures") or ["MarianMTModel"]
    if not isinstance(architectures, list) or "MarianMTModel" not in architectures:
        raise ConversionError(path, "key 'architectures' is %r; only MarianMTModel (the "
                                    "encoder-decoder translator) is converted" % architectures)


def norm_position(config, path):
    before = _bool(config, path, "normalize_before", False)
    final = _bool(config, path, "add_final_layer_norm", False)
    if before and not final:
        raise ConversionError(path, "key 'normalize_before' is true but 'add_final_layer_norm' "
                                    "is false; minimt's pre-norm stacks end with a LayerNorm")
    if final and not before:
        raise ConversionError(path, "key 'add_final_layer_norm' is true but 'normalize_before' "
                                    "is false; minimt's post-norm stacks have no final LayerNorm")
    return "pre" if before else "post"


def check_legacy_flags(config, path):
    for key, allowed, what in LEGACY_FLAGS:
        if key in config and config[key] is not None and config[key] != allowed:
            raise ConversionError(path, "key '%s' is %s: %s, which minimt's format cannot hold"
                                  % (key, json.dumps(config[key]), what))


def activation(config, path):
    name = config.get("activation_function", DEFAULTS["activation_function"])
    if not isinstance(name, str) or name not in ACTIVATIONS:
        raise ConversionError(path, "key 'activation_function' is %r; minimt has relu, gelu "
                                    "(erf form) and swish/silu" % (name,))
    return ACTIVATIONS[name]


def plan_architecture(config, path):
    check_model_type(config, path)
    check_legacy_flags(config, path)
    p = Plan()
    p.d_model = _int(config, path, "d_model", 1)
    p.num_heads = _same(config, path, "encoder_attention_heads", "decoder_attention_heads")
    if p.d_model % p.num_heads:
        raise ConversionError(path, "key 'd_model' (%d) is not divisible by "
                                    "'encoder_attention_heads' (%d)" % (p.d_model, p.num_heads))
    p.d_ff = _same(config, path, "encoder_ffn_dim", "decoder_ffn_dim")
    p.encoder_layers = _int(config, path, "encoder_layers", 1)
    p.decoder_layers = _int(config, path, "decoder_layers", 1)
    p.max_positions = _int(config, path, "max_position_embeddings", 2)
    check_table(path, p.max_positions, p.d_model)
    p.activation = activation(config, path)
    p.norm_position = norm_position(config, path)
    p.scale_embeddings = _bool(config, path, "scale_embedding", False)
    p.shared_embeddings = _bool(config, path, "share_encoder_decoder_embeddings", True)
    p.tied_output = _bool(config, path, "tie_word_embeddings", True)
    p.vocab_size = _int(config, path, "vocab_size", 1)
    decoder_vocab = config.get("decoder_vocab_size")
    p.decoder_vocab_size = p.vocab_size if decoder_vocab is None else \
        _int(config, path, "decoder_vocab_size", 1)
    p.target_vocab_size = p.vocab_size if p.shared_embeddings else p.decoder_vocab_size
    if p.shared_embeddings and p.decoder_vocab_size != p.vocab_size:
        raise ConversionError(path, "key 'decoder_vocab_size' is %d but 'vocab_size' is %d and "
                                    "'share_encoder_decoder_embeddings' is true"
                              % (p.decoder_vocab_size, p.vocab_size))
    p.pad = _int(config, path, "pad_token_id")
    p.eos = _int(config, path, "eos_token_id")
    start = config.get("decoder_start_token_id")
    p.decoder_start = p.pad if start is None else _int(config, path, "decoder_start_token_id")
    for key, value in (("pad_token_id", p.pad), ("eos_token_id", p.eos),
                       ("decoder_start_token_id", p.decoder_start)):
        if value >= min(p.vocab_size, p.target_vocab_size):
            raise ConversionError(path, "key '%s' is %d, past the vocabulary (%d)"
                                  % (key, value, min(p.vocab_size, p.target_vocab_size)))
    return p


def banned_tokens(config, generation, config_path, generation_path):
    """Single-token bad_words_ids (OPUS-MT configs ban <pad>): ids generation never picks."""
    source, path = (generation, generation_path) if generation and "bad_words_ids" in generation \
        else (config, config_path)
    if source.get("forced_bos_token_id") is not None:
        raise ConversionError(path, "key 'forced_bos_token_id' is set; minimt cannot force a "
                                    "first output token")
    words = source.get("bad_words_ids") or []
    if not isinstance(words, list):
        raise ConversionError(path, "key 'bad_words_ids' is not a list of lists of token ids")
    banned = []
    for word in words:
        if not isinstance(word, list) or len(word) != 1 or not isinstance(word[0], int) or \
                isinstance(word[0], bool):
            raise ConversionError(path, "key 'bad_words_ids' holds %r; only single tokens can be "
                                        "banned (through final_logits_bias)" % (word,))
        banned.append(word[0])
    return banned


def generation_notes(config, generation):
    """Generation settings minimt does not take from the model, to tell the user."""
    source = dict(config)
    source.update(generation or {})
    notes = []
    if source.get("num_beams", 1) not in (None, 1):
        notes.append("the model's default is beam search with %s beams (num_beams): run "
                     "minimt with --beam-size %s for the same search" %
                     (source["num_beams"], source["num_beams"]))
    if source.get("max_length") not in (None, 20):
        notes.append("max_length %s is not copied: minimt's --max-length counts generated "
                     "tokens and is capped by max_positions" % source["max_length"])
    for key in ("repetition_penalty", "no_repeat_ngram_size", "length_penalty", "min_length"):
        default = {"repetition_penalty": 1.0, "length_penalty": 1.0}.get(key, 0)
        if source.get(key) not in (None, default):
            notes.append("%s = %s is not applied by minimt" % (key, source[key]))
    return notes


def tokenizer_notes(tokenizer_config):
    """Differences in decoded text that depend on the transformers version."""
    cleanup = tokenizer_config.get("clean_up_tokenization_spaces")
    if cleanup is False:
        return []
    return ["transformers %s removes the space before . , ! ? and in English contractions "
            "when it decodes (clean_up_tokenization_spaces); minimt prints SentencePiece's "
            "text as it is" % ("" if cleanup else "(versions that default to it)")]


def token_text(value, default):
    """A special token in tokenizer_config.json: a string or an AddedToken dict."""
    if value is None:
        return default
    if isinstance(value, dict):
        value = value.get("content", default)
    return str(value)


def tokenizer_specials(tokenizer_config):
    t = tokenizer_config or {}
    return {"unk": token_text(t.get("unk_token"), "<unk>"),
            "eos": token_text(t.get("eos_token"), "</s>"),
            "pad": token_text(t.get("pad_token"), "<pad>")}
