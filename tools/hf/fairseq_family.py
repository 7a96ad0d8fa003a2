"""mBART-50 (model_type "mbart"), M2M100 and NLLB (model_type "m2m_100"): BART-shaped
pre-norm stacks with a final norm each, language codes in the sequences.

Read from transformers' modeling_mbart.py and modeling_m2m_100.py:
  mBART   learned positions with an offset of 2 (MBartLearnedPositionalEmbedding), a LayerNorm
          on the embeddings (layernorm_embedding), final_logits_bias
  M2M100  fairseq's sinusoidal positions (M2M100SinusoidalPositionalEmbedding: sin half, cos
          half, rows from padding_idx + 1, pad tokens the zero row), no embedding norm
and the tokenizers of tokenizer_layouts.py. Weight names: model.{encoder,decoder}.* as
minimt's, model.shared.weight (or every tied copy), lm_head.weight.
"""
import os

import numpy as np

import hf_config
import hf_keys
import languages
import tokenizer_layouts
from errors import ConversionError
from weights import Source, _embedding, layer_shapes

# MBartConfig / M2M100Config defaults (transformers 4.x) where a config.json may omit a key
DEFAULTS = {"mbart": {"scale_embedding": False, "activation_function": "gelu",
                      "max_position_embeddings": 1024, "pad_token_id": 1, "bos_token_id": 0,
                      "eos_token_id": 2, "decoder_start_token_id": 2,
                      "tie_word_embeddings": True},
            "m2m_100": {"scale_embedding": True, "activation_function": "relu",
                        "max_position_embeddings": 1024, "pad_token_id": 1, "bos_token_id": 0,
                        "eos_token_id": 2, "decoder_start_token_id": 2,
                        "tie_word_embeddings": True}}


class Plan:
    pass


def plan_architecture(family, config, path):
    k = hf_keys.Keys(config, path, DEFAULTS["mbart" if family == "mbart" else "m2m_100"])
    p = Plan()
    p.family = family
    p.d_model = k.int("d_model", 1)
    p.num_heads = k.same("encoder_attention_heads", "decoder_attention_heads")
    if p.d_model % p.num_heads:
        raise ConversionError(path, "key 'd_model' (%d) is not divisible by "
                                    "'encoder_attention_heads' (%d)" % (p.d_model, p.num_heads))
    p.d_ff = k.same("encoder_ffn_dim", "decoder_ffn_dim")
    p.encoder_layers = k.int("encoder_layers", 1)
    p.decoder_layers = k.int("decoder_layers", 1)
    p.max_positions = k.int("max_position_embeddings", 2)
    hf_config.check_table(path, p.max_positions + 2, p.d_model)
    p.activation = k.activation("activation_function")
    p.scale_embeddings = k.bool("scale_embedding")
    p.tied_output = k.bool("tie_word_embeddings")
    p.vocab_size = k.int("vocab_size", 1)
    p.pad, p.bos, p.eos = k.int("pad_token_id"), k.int("bos_token_id"), k.int("eos_token_id")
    p.decoder_start = k.int("decoder_start_token_id")
    if p.decoder_start >= p.vocab_size:
        raise ConversionError(path, "key 'decoder_start_token_id' is %d, past the vocabulary "
                                    "(%d)" % (p.decoder_start, p.vocab_size))
    if (p.bos, p.pad, p.eos) != (0, 1, 2):
        raise ConversionError(path, "keys bos/pad/eos_token_id are %d/%d/%d; the fairseq "
                                    "tokenizers give <s> 0, <pad> 1, </s> 2"
                              % (p.bos, p.pad, p.eos))
    if family == "mbart" and p.max_positions < 2:
        raise ConversionError(path, "key 'max_position_embeddings' is too small")
    return p


def tokenizer_kind(family, hf_dir, tokenizer_config):
    """mBART-50 and NLLB: sentencepiece.bpe.model with the fairseq offset; M2M100: vocab.json."""
    cls = str(tokenizer_config.get("tokenizer_class", ""))
    if family == "mbart":
        if cls and not cls.startswith("MBart50"):
            raise ConversionError(os.path.join(hf_dir, "tokenizer_config.json"),
                                  "key 'tokenizer_class' is %r; only mBART-50's tokenizer "
                                  "(MBart50Tokenizer: [code] X </s>) is converted" % cls)
        return "mbart50"
    import hf_files
    if cls.startswith("Nllb") or not hf_files.present(os.path.join(hf_dir, "vocab.json")):
        return "nllb"
    return "m2m100"


def language_codes(kind, tokenizer_config, path="tokenizer_config.json"):
    if kind == "mbart50":
        return languages.MBART50
    if kind == "nllb":
        listed = tokenizer_config.get("additional_special_tokens")
        if listed and (not isinstance(listed, list) or
                       not all(isinstance(c, str) for c in listed)):
            raise ConversionError(path, "key 'additional_special_tokens' is not a list of "
                                        "strings")
        return languages.NLLB if not listed else list(listed)
    name = tokenizer_config.get("language_codes", "m2m100")
    if not isinstance(name, str) or name not in languages.M2M100:
        raise ConversionError(path, "key 'language_codes' is %r; known: %s"
                              % (name, ", ".join(languages.M2M100)))
    return languages.M2M100[name]


def check_added_tokens(tokenizer_config, code_ids, path):
    """tokenizer_config.json's added_tokens_decoder (newer transformers) must agree."""
    decoder = tokenizer_config.get("added_tokens_decoder") or {}
    if not isinstance(decoder, dict):
        raise ConversionError(path, "key 'added_tokens_decoder' is not a JSON object")
    for index, token in decoder.items():
        text = token.get("content") if isinstance(token, dict) else token
        if not isinstance(text, str) or not (index.isascii() and index.isdigit()) or \
                len(index) > 9:
            raise ConversionError(path, "key 'added_tokens_decoder' holds %s: %s, not an id "
                                        "and a token" % (ascii(index)[:40], ascii(token)[:80]))
        if text in code_ids and code_ids[text] != int(index):
            raise ConversionError(path, "gives %r id %s, but its tokenizer numbers it %d"
                                  % (text, index, code_ids[text]))


def layouts(kind, hf_dir, p, tokenizer_config, notes):
    """-> (spm path, layout, {code text: id}, vocab pieces or None, language codes)."""
    spm_path = os.path.join(hf_dir, "sentencepiece.bpe.model")
    import hf_files
    if not hf_files.present(spm_path):
        raise ConversionError(spm_path, "is missing")
    codes = language_codes(kind, tokenizer_config, os.path.join(hf_dir, "tokenizer_config.json"))
    if kind == "m2m100":
        import vocab as marian_vocab
        vocab_path = os.path.join(hf_dir, "vocab.json")
        vocab = marian_vocab.read_vocab(vocab_path, hf_files.read_json(vocab_path, kind="vocab"))
        layout, ids = tokenizer_layouts.m2m100_vocab(spm_path, vocab, vocab_path, codes,
                                                     p.vocab_size, notes)
        return spm_path, layout, {"__%s__" % c: i for c, i in ids.items()}, vocab, codes
    layout, ids = tokenizer_layouts.fairseq_offset(spm_path, codes, p.vocab_size)
    check_added_tokens(tokenizer_config, ids, os.path.join(hf_dir, "tokenizer_config.json"))
    return spm_path, layout, ids, None, codes


def m2m100_table(rows, d_model, padding_idx):
    """M2M100SinusoidalPositionalEmbedding.get_embedding, in float32 as torch computes it."""
    half = d_model // 2
    step = np.float32(-(np.log(10000.0) / (half - 1)))
    freqs = np.exp(np.arange(half, dtype=np.float32) * step)
    angles = np.arange(rows, dtype=np.float32)[:, None] * freqs[None, :]
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    if d_model % 2:
        table = np.concatenate([table, np.zeros((rows, 1), np.float32)], axis=1)
    table[padding_idx] = 0
    return table


def map_weights(tensors, path, p, notes):
    src, out, d = Source(tensors, path), {}, p.d_model
    aliases = ["model.shared.weight", "model.encoder.embed_tokens.weight",
               "model.decoder.embed_tokens.weight"] + (["lm_head.weight"] if p.tied_output else [])
    table = _embedding(src, aliases, (p.vocab_size, d), "shared embedding table")
    out["encoder.embed_tokens.weight"] = out["decoder.embed_tokens.weight"] = table
    if not p.tied_output:
        out["lm_head.weight"] = src.take("lm_head.weight", (p.vocab_size, d))
    rows = p.max_positions + 2
    for stack in ("encoder", "decoder"):
        if p.family == "mbart":
            out[stack + ".embed_positions.weight"] = src.take(
                "model.%s.embed_positions.weight" % stack, (rows, d))
            for part in ("weight", "bias"):
                out["%s.layernorm_embedding.%s" % (stack, part)] = src.take(
                    "model.%s.layernorm_embedding.%s" % (stack, part), (d,))
        else:
            name = "model.%s.embed_positions.weights" % stack  # older checkpoints saved it
            if src.has(name):
                diff = np.abs(src.take(name, (rows, d)) - m2m100_table(rows, d, p.pad)).max()
                notes.append("%s: the stored table differs from the computed one by %.1e; "
                             "minimt computes it" % (name, diff))
        for i in range(p.encoder_layers if stack == "encoder" else p.decoder_layers):
            for name, shape in layer_shapes(p, stack).items():
                key = "%s.layers.%d.%s" % (stack, i, name)
                out[key] = src.take("model." + key, shape)
        for part in ("weight", "bias"):
            key = "%s.layer_norm.%s" % (stack, part)
            out[key] = src.take("model." + key, (d,))
    if src.has("final_logits_bias"):
        out["final_logits_bias"] = src.take("final_logits_bias", (1, p.vocab_size)).reshape(-1)
    unused = src.unused()
    if unused:
        raise ConversionError(path, "tensor %s is not part of a %s model that minimt's format "
                                    "can hold (%d such tensor%s)" % (unused[0], p.family,
                                                                      len(unused),
                                                                      "s" * (len(unused) > 1)))
    return out


def minimt_config(p, unk, source_prefix, forced, unknown_pieces):
    config = {
        "format": "minimt-transformer", "format_version": 2,
        "d_model": p.d_model, "num_heads": p.num_heads, "d_ff": p.d_ff,
        "encoder_layers": p.encoder_layers, "decoder_layers": p.decoder_layers,
        "activation": p.activation, "norm_position": "pre", "final_norms": True,
        "layer_norm_eps": 1e-5,  # torch.nn.LayerNorm's default, which both families use
        "max_positions": p.max_positions, "position_offset": 2,
        "scale_embeddings": p.scale_embeddings,
        "source_vocab_size": p.vocab_size, "target_vocab_size": p.vocab_size,
        "tie_output": p.tied_output,
        "special_tokens": {"pad": p.pad, "unk": unk, "bos": p.bos, "eos": p.eos},
        "decoder_start_token": p.decoder_start,
        "forced_first_token": forced,
        "source_prefix_tokens": source_prefix, "source_suffix_tokens": [p.eos],
        "tokenizer": {"source": "tokenizer.spm", "target": "tokenizer.spm"},
        "weights": "model.safetensors",
    }
    if p.family == "mbart":
        config.update({"positions": "learned", "embedding_norm": True})
    else:
        config.update({"positions": "sinusoidal_split", "position_offset": p.pad + 1})
    if unknown_pieces:
        config["unknown_pieces"] = {"source": unknown_pieces, "target": unknown_pieces}
    return config
