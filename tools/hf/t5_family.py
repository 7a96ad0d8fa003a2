"""T5 (model_type "t5"): the original (relu feed-forward, output tied and scaled by
d_model^-0.5) and v1.1 / FLAN-T5 (gated-gelu, gelu_new, untied output).

Read from transformers' modeling_t5.py: no absolute positions, a relative-position bias in the
first layer's self-attention of each stack shared by every layer (T5Attention.compute_bias,
_relative_position_bucket), T5LayerNorm (RMS, no bias, variance in float32), no biases, no
1/sqrt(d_k) scaling, pre-norm with a final_layer_norm per stack, decoder_start_token_id = pad.
Weight names: shared.weight, {encoder,decoder}.block.{i}.layer.{j}.*, lm_head.weight.
"""
from errors import ConversionError
import hf_keys
from weights import Source, _embedding

DEFAULTS = {"vocab_size": 32128, "d_model": 512, "d_kv": 64, "d_ff": 2048, "num_layers": 6,
            "num_heads": 8, "relative_attention_num_buckets": 32,
            "relative_attention_max_distance": 128, "layer_norm_epsilon": 1e-6,
            "feed_forward_proj": "relu", "tie_word_embeddings": True, "pad_token_id": 0,
            "eos_token_id": 1, "decoder_start_token_id": 0, "n_positions": 512}


class Plan:
    pass


def plan_architecture(config, path):
    k = hf_keys.Keys(config, path, DEFAULTS)
    p = Plan()
    p.d_model, p.head_dim, p.d_ff = k.int("d_model", 1), k.int("d_kv", 1), k.int("d_ff", 1)
    p.num_heads = k.int("num_heads", 1)
    p.encoder_layers = k.int("num_layers", 1)
    p.decoder_layers = p.encoder_layers if config.get("num_decoder_layers") is None else \
        k.int("num_decoder_layers", 1)
    p.buckets = k.int("relative_attention_num_buckets", 4)
    p.max_distance = k.int("relative_attention_max_distance", 1)
    if p.max_distance <= p.buckets // 2:
        raise ConversionError(path, "key 'relative_attention_max_distance' (%d) must exceed "
                                    "half the buckets (%d)" % (p.max_distance, p.buckets // 2))
    p.eps = k.float("layer_norm_epsilon")
    proj = k.value("feed_forward_proj")
    parts = str(proj).split("-")
    if len(parts) > 2 or (len(parts) == 2 and parts[0] != "gated"):
        raise ConversionError(path, "key 'feed_forward_proj' is %r; T5 has 'ACT' or 'gated-ACT'"
                              % proj)
    p.gated = len(parts) == 2
    # T5Config: "gated-gelu" means gelu_new (the tanh form); other names are ACT2FN's
    act = "gelu_new" if proj == "gated-gelu" else parts[-1]
    p.activation = hf_keys.Keys({"act": act}, path, {}).activation("act")
    if config.get("dense_act_fn") not in (None, act):
        raise ConversionError(path, "key 'dense_act_fn' is %r but 'feed_forward_proj' %r means "
                                    "%r" % (config.get("dense_act_fn"), proj, act))
    p.tied_output = k.bool("tie_word_embeddings")
    p.vocab_size = k.int("vocab_size", 1)
    p.pad, p.eos = k.int("pad_token_id"), k.int("eos_token_id")
    p.decoder_start = k.int("decoder_start_token_id")
    p.max_positions = max(k.int("n_positions", 2), 512)
    for key, value in (("pad_token_id", p.pad), ("eos_token_id", p.eos),
                       ("decoder_start_token_id", p.decoder_start)):
        if value >= p.vocab_size:
            raise ConversionError(path, "key '%s' is %d, past the vocabulary (%d)"
                                  % (key, value, p.vocab_size))
    return p


def _attention(src, out, hf, minimt, p):
    width = p.num_heads * p.head_dim
    for hf_name, name, shape in (("q", "q_proj", (width, p.d_model)),
                                 ("k", "k_proj", (width, p.d_model)),
                                 ("v", "v_proj", (width, p.d_model)),
                                 ("o", "out_proj", (p.d_model, width))):
        out["%s.%s.weight" % (minimt, name)] = src.take("%s.%s.weight" % (hf, hf_name), shape)


def _feed_forward(src, out, hf, minimt, p):
    dense = hf + ".DenseReluDense"
    pairs = (("wi_0", "fc1"), ("wi_1", "fc1_linear")) if p.gated else (("wi", "fc1"),)
    for hf_name, name in pairs:
        out["%s.%s.weight" % (minimt, name)] = src.take("%s.%s.weight" % (dense, hf_name),
                                                         (p.d_ff, p.d_model))
    out[minimt + ".fc2.weight"] = src.take(dense + ".wo.weight", (p.d_model, p.d_ff))


def map_weights(tensors, path, p):
    src, out, d = Source(tensors, path), {}, p.d_model
    aliases = ["shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"] + \
        (["lm_head.weight"] if p.tied_output else [])
    table = _embedding(src, aliases, (p.vocab_size, d), "shared embedding table")
    out["encoder.embed_tokens.weight"] = out["decoder.embed_tokens.weight"] = table
    if not p.tied_output:
        out["lm_head.weight"] = src.take("lm_head.weight", (p.vocab_size, d))
    for stack, count in (("encoder", p.encoder_layers), ("decoder", p.decoder_layers)):
        out[stack + ".relative_attention_bias.weight"] = src.take(
            "%s.block.0.layer.0.SelfAttention.relative_attention_bias.weight" % stack,
            (p.buckets, p.num_heads))
        for i in range(count):
            hf, minimt = "%s.block.%d.layer" % (stack, i), "%s.layers.%d" % (stack, i)
            _attention(src, out, hf + ".0.SelfAttention", minimt + ".self_attn", p)
            out[minimt + ".self_attn_layer_norm.weight"] = src.take(hf + ".0.layer_norm.weight",
                                                                    (d,))
            ff = 1
            if stack == "decoder":
                _attention(src, out, hf + ".1.EncDecAttention", minimt + ".encoder_attn", p)
                out[minimt + ".encoder_attn_layer_norm.weight"] = src.take(
                    hf + ".1.layer_norm.weight", (d,))
                ff = 2
            _feed_forward(src, out, "%s.%d" % (hf, ff), minimt, p)
            out[minimt + ".final_layer_norm.weight"] = src.take(
                "%s.%d.layer_norm.weight" % (hf, ff), (d,))
        out[stack + ".layer_norm.weight"] = src.take(stack + ".final_layer_norm.weight", (d,))
    unused = src.unused()
    if unused:
        raise ConversionError(path, "tensor %s is not part of a T5 model that minimt's format "
                                    "can hold (%d such tensor%s)"
                              % (unused[0], len(unused), "s" * (len(unused) > 1)))
    return out


def minimt_config(p, unk, source_prefix):
    return {
        "format": "minimt-transformer", "format_version": 2,
        "d_model": p.d_model, "num_heads": p.num_heads, "head_dim": p.head_dim, "d_ff": p.d_ff,
        "encoder_layers": p.encoder_layers, "decoder_layers": p.decoder_layers,
        "activation": p.activation, "feed_forward": "gated" if p.gated else "standard",
        "norm_position": "pre", "final_norms": True, "norm": "rms_norm",
        "layer_norm_eps": p.eps, "max_positions": p.max_positions, "positions": "none",
        "relative_attention": {"buckets": p.buckets, "max_distance": p.max_distance},
        "scale_embeddings": False, "scale_attention_scores": False, "biases": False,
        "source_vocab_size": p.vocab_size, "target_vocab_size": p.vocab_size,
        "tie_output": p.tied_output,
        # modeling_t5.py: sequence_output * model_dim**-0.5 before a tied lm_head
        "output_scale": p.d_model ** -0.5 if p.tied_output else 1.0,
        # T5 has no bos: the decoder starts from pad, which also stands in for bos
        "special_tokens": {"pad": p.pad, "unk": unk, "bos": p.decoder_start, "eos": p.eos},
        "decoder_start_token": p.decoder_start,
        "source_prefix_tokens": source_prefix, "source_suffix_tokens": [p.eos],
        "tokenizer": {"source": "tokenizer.spm", "target": "tokenizer.spm"},
        "weights": "model.safetensors",
    }
