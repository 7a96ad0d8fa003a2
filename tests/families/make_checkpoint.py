#!/usr/bin/python3
"""Writes a small random checkpoint of one Hugging Face family, in the layout the hub ships:

  mbart50   MBartForConditionalGeneration (mBART-50 many-to-many): config.json (MBartConfig),
            generation_config.json, sentencepiece.bpe.model (BPE, <unk> 0 <s> 1 </s> 2),
            tokenizer_config.json (MBart50Tokenizer, src_lang en_XX, tgt_lang fr_XX)
  m2m100    M2M100ForConditionalGeneration: sentencepiece.bpe.model and vocab.json (fairseq's
            dictionary: <s> 0 <pad> 1 </s> 2 <unk> 3, then pieces; a few SentencePiece pieces
            missing, one entry SentencePiece lacks), tokenizer_config.json (M2M100Tokenizer)
  nllb      M2M100ForConditionalGeneration weights, NllbTokenizer files (sentencepiece.bpe.model,
            tokenizer_config.json with added_tokens_decoder as transformers >= 4.34 saves it)
  t5        T5ForConditionalGeneration, original (relu, tied, output * d_model^-0.5) or
            --gated (v1.1 / FLAN: gated-gelu, untied lm_head); spiece.model (unigram, <pad> 0
            </s> 1 <unk> 2), tokenizer_config.json (extra_ids 100)

Every family: generate()'s keys in config.json as the hub's checkpoint has them (num_beams,
max_length, early_stopping, forced_eos_token_id; PUBLISHED_GENERATION), and generation_config.json
as transformers 4.27 wrote it from them (--no-generation-config: none, as checkpoints saved
before transformers 4.26 have it; generate() then reads config.json's keys).

Weights are seeded random; model.safetensors holds the tied table once (model.shared.weight /
shared.weight), pytorch_model.bin (--weights bin) every tied name sharing one storage.
OUT_DIR.reference/state.pt (beside the HF directory, not in it) holds the full state dict for the
PyTorch forward of the test, so that it reads no file the converter reads.

  make_checkpoint.py FAMILY OUT_DIR [--seed N] [--weights safetensors|bin] [--gated]
                     [--no-generation-config] ...
"""
import argparse
import io
import math
import os
import sys

import sentencepiece as spm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "marian"))
from make_fixture import (ENGLISH, FRENCH, Random, save_bin, save_safetensors,  # noqa: E402
                          shuffled_corpus, write_json)

MBART50_CODES = ["ar_AR", "cs_CZ", "de_DE", "en_XX", "es_XX", "et_EE", "fi_FI", "fr_XX", "gu_IN",
                 "hi_IN", "it_IT", "ja_XX", "kk_KZ", "ko_KR", "lt_LT", "lv_LV", "my_MM", "ne_NP",
                 "nl_XX", "ro_RO", "ru_RU", "si_LK", "tr_TR", "vi_VN", "zh_CN", "af_ZA", "az_AZ",
                 "bn_IN", "fa_IR", "he_IL", "hr_HR", "id_ID", "ka_GE", "km_KH", "mk_MK", "ml_IN",
                 "mn_MN", "mr_IN", "pl_PL", "ps_AF", "pt_XX", "sv_SE", "sw_KE", "ta_IN", "te_IN",
                 "th_TH", "tl_XX", "uk_UA", "ur_PK", "xh_ZA", "gl_ES", "sl_SI"]
M2M100_CODES = ("af am ar ast az ba be bg bn br bs ca ceb cs cy da de el en es et fa ff fi fr "
                "fy ga gd gl gu ha he hi hr ht hu hy id ig ilo is it ja jv ka kk km kn ko lb lg "
                "ln lo lt lv mg mk ml mn mr ms my ne nl no ns oc or pa pl ps pt ro ru sd si sk "
                "sl so sq sr ss su sv sw ta th tl tn tr uk ur uz vi wo xh yi yo zh zu").split()
# NLLB's 202 codes; the fixture writes a shorter list into tokenizer_config.json's
# additional_special_tokens and added_tokens_decoder, as a fine-tuned checkpoint may.
NLLB_CODES = ["eng_Latn", "fra_Latn", "deu_Latn", "spa_Latn", "zho_Hans"]


def train(lines, path, kind, vocab_size, ids):
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, vocab_size=vocab_size, model_type=kind,
        hard_vocab_limit=False, character_coverage=1.0, num_threads=1, minloglevel=2, **ids)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return spm.SentencePieceProcessor(model_file=path)


def corpus(seed):
    return shuffled_corpus(ENGLISH + "\n" + FRENCH, seed, copies=10)


FAIRSEQ_IDS = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}


def bart_layer(r, d, ffn, prefix, cross):
    t = {}
    gain = {"q_proj": 2.0, "k_proj": 2.0, "v_proj": 1.0, "out_proj": 3.0}
    for block in ["self_attn"] + (["encoder_attn"] if cross else []):
        for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
            t["%s.%s.%s.weight" % (prefix, block, proj)] = r.normal((d, d), gain[proj] / d ** .5)
            t["%s.%s.%s.bias" % (prefix, block, proj)] = r.normal((d,), 0.1)
        t["%s.%s_layer_norm.weight" % (prefix, block)] = r.normal((d,), 0.1, 1.0)
        t["%s.%s_layer_norm.bias" % (prefix, block)] = r.normal((d,), 0.1)
    t[prefix + ".fc1.weight"] = r.normal((ffn, d), 1 / d ** .5)
    t[prefix + ".fc1.bias"] = r.normal((ffn,), 0.1)
    t[prefix + ".fc2.weight"] = r.normal((d, ffn), 3 / ffn ** .5)
    t[prefix + ".fc2.bias"] = r.normal((d,), 0.1)
    t[prefix + ".final_layer_norm.weight"] = r.normal((d,), 0.1, 1.0)
    t[prefix + ".final_layer_norm.bias"] = r.normal((d,), 0.1)
    return t


def bart_state(args, vocab_size, mbart):
    r, d = Random(args.seed), args.d_model
    shared = r.normal((vocab_size, d), 1 / math.sqrt(d))
    sd = {"model.shared.weight": shared, "model.encoder.embed_tokens.weight": shared,
          "model.decoder.embed_tokens.weight": shared}
    for stack in ("encoder", "decoder"):
        if mbart:
            sd["model.%s.embed_positions.weight" % stack] = r.normal((args.max_positions + 2, d),
                                                                     0.5)
        for i in range(args.layers):
            sd.update(bart_layer(r, d, args.ffn, "model.%s.layers.%d" % (stack, i),
                                 stack == "decoder"))
        if mbart:
            sd["model.%s.layernorm_embedding.weight" % stack] = r.normal((d,), 0.1, 1.0)
            sd["model.%s.layernorm_embedding.bias" % stack] = r.normal((d,), 0.1)
        sd["model.%s.layer_norm.weight" % stack] = r.normal((d,), 0.1, 1.0) * \
            (3.0 if stack == "decoder" else 1.0)  # peaked logits: greedy not decided by rounding
        sd["model.%s.layer_norm.bias" % stack] = r.normal((d,), 0.1)
    sd["lm_head.weight"] = shared
    if mbart:
        bias = r.normal((1, vocab_size), 0.3)
        bias[0, 2] += args.eos_bias
        sd["final_logits_bias"] = bias
    return sd


def bart_config(args, family, vocab_size):
    c = {"_name_or_path": "fixture/" + family, "activation_dropout": 0.0,
         "activation_function": args.activation, "architectures": [
             "MBartForConditionalGeneration" if family == "mbart50"
             else "M2M100ForConditionalGeneration"],
         "attention_dropout": 0.0, "bos_token_id": 0, "d_model": args.d_model,
         "decoder_attention_heads": args.heads, "decoder_ffn_dim": args.ffn,
         "decoder_layerdrop": 0.0, "decoder_layers": args.layers, "decoder_start_token_id": 2,
         "dropout": 0.1, "encoder_attention_heads": args.heads, "encoder_ffn_dim": args.ffn,
         "encoder_layerdrop": 0.0, "encoder_layers": args.layers, "eos_token_id": 2,
         "init_std": 0.02, "is_encoder_decoder": True,
         "max_position_embeddings": args.max_positions,
         "model_type": "mbart" if family == "mbart50" else "m2m_100",
         "num_hidden_layers": args.layers, "pad_token_id": 1, "scale_embedding": True,
         "torch_dtype": "float32", "transformers_version": "4.40.0", "use_cache": True,
         "vocab_size": vocab_size}
    if family == "mbart50":
        c.update({"add_bias_logits": False, "add_final_layer_norm": True,
                  "normalize_before": True, "normalize_embedding": True, "static_position_"
                  "embeddings": False, "forced_eos_token_id": 2, "classif_dropout": 0.0})
    return c


def t5_state(args, vocab_size):
    r, d, kv = Random(args.seed), args.d_model, args.heads * args.d_kv
    shared = r.normal((vocab_size, d), 1.0)
    sd = {"shared.weight": shared, "encoder.embed_tokens.weight": shared,
          "decoder.embed_tokens.weight": shared}
    for stack in ("encoder", "decoder"):
        for i in range(args.layers):
            p = "%s.block.%d.layer" % (stack, i)
            blocks = [("0.SelfAttention", True)] + ([("1.EncDecAttention", False)]
                                                    if stack == "decoder" else [])
            for block, own in blocks:
                for name, shape, std in (("q", (kv, d), 0.7 / d ** .5), ("k", (kv, d), 1 / d ** .5),
                                         ("v", (kv, d), 1 / d ** .5), ("o", (d, kv), 3 / kv ** .5)):
                    sd["%s.%s.%s.weight" % (p, block, name)] = r.normal(shape, std)
                if own and i == 0:
                    sd["%s.%s.relative_attention_bias.weight" % (p, block)] = r.normal(
                        (args.buckets, args.heads), 1.0)
                sd["%s.%s.layer_norm.weight" % (p, block.split(".")[0])] = r.normal((d,), 0.1, 1.0)
            ff = "%s.%d" % (p, 2 if stack == "decoder" else 1)
            names = ["wi_0", "wi_1"] if args.gated else ["wi"]
            for name in names:
                sd["%s.DenseReluDense.%s.weight" % (ff, name)] = r.normal((args.ffn, d),
                                                                          1 / d ** .5)
            sd[ff + ".DenseReluDense.wo.weight"] = r.normal((d, args.ffn), 3 / args.ffn ** .5)
            sd[ff + ".layer_norm.weight"] = r.normal((d,), 0.1, 1.0)
        sd[stack + ".final_layer_norm.weight"] = r.normal((d,), 0.1, 1.0) * \
            (3.0 if stack == "decoder" else 1.0)
    sd["lm_head.weight"] = r.normal((vocab_size, d), 1.0) if args.gated else shared
    if args.published_layout:  # t5-small's file: a cross-attention bias nothing reads
        sd["decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"] = \
            r.normal((args.buckets, args.heads), 1.0)
    return sd


def t5_config(args, vocab_size):
    return {"_name_or_path": "fixture/t5", "architectures": ["T5ForConditionalGeneration"],
            "d_ff": args.ffn, "d_kv": args.d_kv, "d_model": args.d_model,
            "decoder_start_token_id": 0, "dense_act_fn": "gelu_new" if args.gated else "relu",
            "dropout_rate": 0.1, "eos_token_id": 1,
            "feed_forward_proj": "gated-gelu" if args.gated else "relu",
            "initializer_factor": 1.0, "is_encoder_decoder": True, "is_gated_act": args.gated,
            "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 512,
            "num_decoder_layers": args.layers, "num_heads": args.heads,
            "num_layers": args.layers, "output_past": True, "pad_token_id": 0,
            "relative_attention_max_distance": args.max_distance,
            "relative_attention_num_buckets": args.buckets,
            "task_specific_params": {"translation_en_to_fr": {
                "early_stopping": True, "max_length": 300, "num_beams": 4,
                "prefix": "translate English to French: "}},
            "tie_word_embeddings": not args.gated, "torch_dtype": "float32",
            "transformers_version": "4.40.0", "use_cache": True, "vocab_size": vocab_size}


# generate()'s keys in config.json as the hub's checkpoints have them (mbart-large-50-many-to-
# many-mmt, m2m100_418M, nllb-200-distilled-600M; t5-small and t5-v1_1 have none but
# task_specific_params). Their generation_config.json is what transformers 4.27 wrote from
# config.json (generation_config()): the same values.
PUBLISHED_GENERATION = {
    "mbart50": {"early_stopping": True, "forced_eos_token_id": 2, "max_length": 200,
                "num_beams": 5},
    "m2m100": {"early_stopping": True, "max_length": 200, "num_beams": 5},
    "nllb": {"max_length": 200},
    "t5": {},
}
GENERATION_KEYS = ("bos_token_id", "decoder_start_token_id", "early_stopping", "eos_token_id",
                   "forced_eos_token_id", "length_penalty", "max_length", "num_beams",
                   "pad_token_id", "bad_words_ids", "no_repeat_ngram_size", "repetition_penalty")


def generation_config(config):
    """GenerationConfig.from_model_config(config), saved: the generation keys config.json sets."""
    out = {"_from_model_config": True}
    out.update({k: config[k] for k in GENERATION_KEYS if k in config})
    out["transformers_version"] = "4.27.0.dev0"
    return out


def tokenizer_files(args, out):
    """-> (vocab_size of the model, tokenizer_config.json contents, extra files written)."""
    family = args.family
    if family == "t5":
        sp = train(corpus(args.seed), os.path.join(out, "spiece.model"), "unigram", 150,
                   {"pad_id": 0, "eos_id": 1, "unk_id": 2, "bos_id": -1})
        config = {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>",
                  "extra_ids": 100, "additional_special_tokens": [
                      "<extra_id_%d>" % i for i in range(100)], "legacy": True,
                  "model_max_length": 512, "tokenizer_class": "T5Tokenizer"}
        return sp.get_piece_size() + 100 + 28, config
    sp = train(corpus(args.seed), os.path.join(out, "sentencepiece.bpe.model"), "bpe", 150,
               FAIRSEQ_IDS)
    n = sp.get_piece_size()
    if family == "mbart50":
        config = {"tokenizer_class": "MBart50Tokenizer", "src_lang": "en_XX", "tgt_lang": "fr_XX",
                  "additional_special_tokens": MBART50_CODES, "model_max_length": 1024}
        return n + 1 + len(MBART50_CODES) + 1, config
    if family == "nllb":
        added = {"0": "<s>", "1": "<pad>", "2": "</s>", "3": "<unk>"}
        for i, code in enumerate(NLLB_CODES):
            added[str(n + 1 + i)] = code
        added[str(n + 1 + len(NLLB_CODES))] = "<mask>"
        config = {"tokenizer_class": "NllbTokenizer", "src_lang": "eng_Latn", "tgt_lang": None,
                  "legacy_behaviour": False, "additional_special_tokens": NLLB_CODES,
                  "added_tokens_decoder": {k: {"content": v, "special": True}
                                           for k, v in added.items()}}
        return n + 1 + len(NLLB_CODES) + 1 + 2, config
    # M2M100: fairseq's dictionary of the training data's pieces, which SentencePiece's
    # model need not match: three of its pieces missing, one entry it lacks
    pieces = [sp.id_to_piece(i) for i in range(3, n)]
    missing = [p for p in pieces if len(p) > 2][:3]
    vocab = ["<s>", "<pad>", "</s>", "<unk>"] + [p for p in pieces if p not in missing] + ["▁zzq"]
    write_json(os.path.join(out, "vocab.json"), {p: i for i, p in enumerate(vocab)})
    config = {"tokenizer_class": "M2M100Tokenizer", "src_lang": "en", "tgt_lang": "fr",
              "language_codes": "m2m100", "num_madeup_words": 8, "model_max_length": 1024}
    return len(vocab) + len(M2M100_CODES) + 8, config


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("family", choices=["mbart50", "m2m100", "nllb", "t5"])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", choices=["safetensors", "bin"], default="safetensors")
    ap.add_argument("--gated", action="store_true", help="T5 v1.1 / FLAN-T5")
    ap.add_argument("--d-model", type=int, default=32)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-kv", type=int, default=6, help="T5: per-head width (not d_model/heads)")
    ap.add_argument("--ffn", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--max-positions", type=int, default=256,
                    help="above generate()'s max_length (200), as the hub's 1024 is")
    ap.add_argument("--buckets", type=int, default=8)
    ap.add_argument("--max-distance", type=int, default=6)
    ap.add_argument("--activation", default="gelu")
    ap.add_argument("--published-layout", action="store_true",
                    help="T5: also the unused tensor t5-small's checkpoint holds")
    ap.add_argument("--eos-bias", type=float, default=0.0)
    ap.add_argument("--no-generation-config", action="store_true",
                    help="no generation_config.json: generate() reads config.json's keys")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    vocab_size, tokenizer_config = tokenizer_files(args, args.out_dir)
    if args.family == "t5":
        sd, config = t5_state(args, vocab_size), t5_config(args, vocab_size)
    else:
        sd = bart_state(args, vocab_size, args.family == "mbart50")
        config = bart_config(args, args.family, vocab_size)
    config.update(PUBLISHED_GENERATION[args.family])
    write_json(os.path.join(args.out_dir, "config.json"), config)
    if not args.no_generation_config:
        write_json(os.path.join(args.out_dir, "generation_config.json"), generation_config(config))
    write_json(os.path.join(args.out_dir, "tokenizer_config.json"), tokenizer_config)
    if args.weights == "bin":
        save_bin(os.path.join(args.out_dir, "pytorch_model.bin"), sd, "float32")
    else:
        save_safetensors(os.path.join(args.out_dir, "model.safetensors"), sd, "float32")
    reference = os.path.join(os.path.dirname(os.path.abspath(args.out_dir)),
                             os.path.basename(os.path.abspath(args.out_dir)) + ".reference")
    os.makedirs(reference, exist_ok=True)
    torch.save({k: v.clone() for k, v in sd.items()}, os.path.join(reference, "state.pt"))
    write_json(os.path.join(reference, "config.json"), config)


if __name__ == "__main__":
    main()
