#!/usr/bin/python3
"""Writes a small Hugging Face MarianMTModel directory with seeded random weights, in the
layout transformers' save_pretrained writes and OPUS-MT models are published in:

  config.json              MarianConfig as transformers 4.x writes it (the legacy 3.x keys that
                           OPUS-MT configs still carry included)
  generation_config.json   bad_words_ids [[pad]], num_beams 4, ... (--no-generation-config: in
                           config.json only, as in older uploads)
  model.safetensors        save_pretrained: tied copies dropped (model.shared.weight kept),
                           embed_positions not saved (_keys_to_ignore_on_save)
  pytorch_model.bin        (--weights bin) torch.save of the whole state dict: tied tensors
                           share storage, embed_positions included
  source.spm, target.spm   unigram SentencePiece models as Marian trains them
                           (<unk> 0, <s> 1, </s> 2, no <pad>)
  vocab.json               Marian's joint vocabulary: </s> 0, <unk> 1, the union of both
                           models' pieces (seeded order), >>xx<< codes, <pad> last
  target_vocab.json        (--separate) each side its own vocabulary; <pad> at 2 in both
  tokenizer_config.json, special_tokens_map.json

  make_fixture.py OUT_DIR [--seed N] [--activation swish] [--norm post|pre] [...]
"""
import argparse
import io
import json
import math
import os
import random

import sentencepiece as spm
import torch

ENGLISH = """The cat sat on the mat.
My grandmother makes the best apple pie in the world.
Where is the railway station?
The museum opens at nine o'clock in the morning.
We will walk along the river to the market.
She reads a red book under the old tree.
The children are playing football in the park.
I would like a cup of coffee, please.
The weather is cold and windy today.
He forgot his umbrella at the office again.
Birds sing loudly when the sun rises.
Our neighbours bought a new car last week.
Please close the window before you leave.
The small dog barks at every stranger.
They travelled to the mountains for the holidays.
Can you help me carry these heavy boxes?
The teacher explained the lesson twice.
A black horse runs across the green field.
Zebras and quartz sparkle: 42 stars!
Nobody knows why the bridge was closed."""

FRENCH = """Le chat est assis sur le tapis.
Ma grand-mère fait la meilleure tarte aux pommes du monde.
Où est la gare ?
Le musée ouvre à neuf heures du matin.
Nous marcherons le long de la rivière jusqu'au marché.
Elle lit un livre rouge sous le vieil arbre.
Les enfants jouent au football dans le parc.
Je voudrais une tasse de café, s'il vous plaît.
Il fait froid et venteux aujourd'hui.
Il a encore oublié son parapluie au bureau.
Les oiseaux chantent fort quand le soleil se lève.
Nos voisins ont acheté une nouvelle voiture la semaine dernière.
Fermez la fenêtre avant de partir, s'il vous plaît.
Le petit chien aboie après chaque inconnu.
Ils sont partis à la montagne pour les vacances.
Pouvez-vous m'aider à porter ces lourdes boîtes ?
Le professeur a expliqué la leçon deux fois.
Un cheval noir court à travers le champ vert.
Les zèbres et le quartz brillent : 42 étoiles !
Personne ne sait pourquoi le pont était fermé."""


def shuffled_corpus(text, seed, copies=20):
    """The sentences and seeded recombinations of their words: enough for ~150 pieces."""
    rng = random.Random(seed)
    lines = text.splitlines()
    words = text.split()
    for _ in range(copies * len(lines)):
        lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(3, 10))))
    return lines


def train_spm(lines, vocab_size, path):
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, vocab_size=vocab_size,
        model_type="unigram", unk_id=0, bos_id=1, eos_id=2, pad_id=-1, hard_vocab_limit=False,
        character_coverage=1.0, num_threads=1, minloglevel=2, seed_sentencepiece_size=20000)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return spm.SentencePieceProcessor(model_file=path)


def normal_pieces(processor):
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())
            if not (processor.is_control(i) or processor.is_unknown(i))]


def build_vocabs(args, source, target):
    """-> (source vocab list, target vocab list or None): pieces by id."""
    rng = random.Random(args.seed)
    codes = [">>fra<<", ">>spa<<", ">>ita<<"] if args.language_codes else []
    if args.separate:
        lists = []
        for processor in (source, target):
            pieces = normal_pieces(processor)
            rng.shuffle(pieces)
            lists.append(["</s>", "<unk>", "<pad>"] + pieces)
        lists[0][3:3] = codes
        return lists[0], lists[1]
    union = list(dict.fromkeys(normal_pieces(source) + normal_pieces(target)))
    rng.shuffle(union)
    for _ in range(args.drop_from_vocab):  # pieces SentencePiece makes but vocab.json lacks
        union.remove(next(p for p in normal_pieces(source) if p in union and len(p) > 2))
    return ["</s>", "<unk>"] + union + codes + ["<pad>"], None


def hf_config(args, vocab_size, target_vocab_size, pad):
    """config.json as transformers 4.x saves a converted OPUS-MT MarianConfig."""
    layers = {"encoder_layers": args.layers, "decoder_layers": args.layers}
    c = {
        "_name_or_path": "fixture/opus-mt-en-fr", "activation_dropout": 0.0,
        "activation_function": args.activation, "add_bias_logits": False,
        "add_final_layer_norm": args.norm == "pre", "architectures": ["MarianMTModel"],
        "attention_dropout": 0.0, "bos_token_id": 0, "classif_dropout": 0.0,
        "classifier_dropout": 0.0, "d_model": args.d_model,
        "decoder_attention_heads": args.heads, "decoder_ffn_dim": args.ffn,
        "decoder_layerdrop": 0.0, "decoder_start_token_id": pad,
        "decoder_vocab_size": target_vocab_size, "dropout": 0.1,
        "encoder_attention_heads": args.heads, "encoder_ffn_dim": args.ffn,
        "encoder_layerdrop": 0.0, "eos_token_id": 0, "extra_pos_embeddings": vocab_size,
        "forced_eos_token_id": 0, "gradient_checkpointing": False, "init_std": 0.02,
        "is_encoder_decoder": True, "max_length": 512,
        "max_position_embeddings": args.max_positions, "model_type": "marian",
        "normalize_before": args.norm == "pre", "normalize_embedding": False, "num_beams": 4,
        "num_hidden_layers": args.layers, "pad_token_id": pad,
        "scale_embedding": args.scale_embedding,
        "share_encoder_decoder_embeddings": not args.separate,
        "static_position_embeddings": True, "torch_dtype": args.dtype_name,
        "transformers_version": "4.40.0", "use_cache": True, "vocab_size": vocab_size,
    }
    c.update(layers)
    if args.untied:
        c["tie_word_embeddings"] = False
    if not args.generation_config:
        c["bad_words_ids"] = [[pad]]
    return c


def generation_config(pad):
    return {"_from_model_config": True, "bad_words_ids": [[pad]], "bos_token_id": 0,
            "decoder_start_token_id": pad, "eos_token_id": 0, "forced_eos_token_id": 0,
            "max_length": 512, "num_beams": 4, "pad_token_id": pad, "renormalize_logits": True,
            "transformers_version": "4.40.0"}


class Random:
    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)

    def normal(self, shape, std, mean=0.0):
        return torch.randn(shape, generator=self.gen) * std + mean


def layer_tensors(r, args, prefix, cross):
    d, t = args.d_model, {}
    # sharp attention, and sublayer outputs larger than the residual they join, so that
    # outputs depend on the context more than on the previous token
    gain = {"q_proj": 2.0, "k_proj": 2.0, "v_proj": 1.0, "out_proj": 3.0}
    for block in ["self_attn"] + (["encoder_attn"] if cross else []):
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            std = gain[proj] / math.sqrt(d)
            t["%s.%s.%s.weight" % (prefix, block, proj)] = r.normal((d, d), std)
            t["%s.%s.%s.bias" % (prefix, block, proj)] = r.normal((d,), 0.1)
        t["%s.%s_layer_norm.weight" % (prefix, block)] = r.normal((d,), 0.1, 1.0)
        t["%s.%s_layer_norm.bias" % (prefix, block)] = r.normal((d,), 0.1)
    t[prefix + ".fc1.weight"] = r.normal((args.ffn, d), 1 / math.sqrt(d))
    t[prefix + ".fc1.bias"] = r.normal((args.ffn,), 0.1)
    t[prefix + ".fc2.weight"] = r.normal((d, args.ffn), 3 / math.sqrt(args.ffn))
    t[prefix + ".fc2.bias"] = r.normal((d,), 0.1)
    t[prefix + ".final_layer_norm.weight"] = r.normal((d,), 0.1, 1.0)
    t[prefix + ".final_layer_norm.bias"] = r.normal((d,), 0.1)
    return t


def positions_table(n_pos, dim):
    """What MarianSinusoidalPositionalEmbedding holds (saved by older transformers)."""
    pos = torch.arange(n_pos, dtype=torch.float64)[:, None]
    j = torch.arange(dim, dtype=torch.float64)
    angles = pos / torch.pow(10000.0, 2 * torch.div(j, 2, rounding_mode="floor") / dim)
    return torch.cat([torch.sin(angles[:, 0::2]), torch.cos(angles[:, 1::2])], 1).float()


def state_dict(args, vocab_size, target_vocab_size, pad):
    """MarianMTModel.state_dict() with seeded random values (tied tensors are one tensor)."""
    r, d = Random(args.seed), args.d_model
    emb_std = 1 / math.sqrt(d) if args.scale_embedding else 1.0
    sd = {}
    enc = r.normal((vocab_size, d), emb_std)
    dec = enc if not args.separate else r.normal((target_vocab_size, d), emb_std)
    if not args.separate:
        sd["model.shared.weight"] = enc
    sd["model.encoder.embed_tokens.weight"] = enc
    sd["model.decoder.embed_tokens.weight"] = dec
    table = positions_table(args.max_positions, d)
    sd["model.encoder.embed_positions.weight"] = table
    sd["model.decoder.embed_positions.weight"] = table.clone()
    for stack, cross in (("encoder", False), ("decoder", True)):
        for i in range(args.layers):
            sd.update(layer_tensors(r, args, "model.%s.layers.%d" % (stack, i), cross))
        if args.norm == "pre":
            sd["model.%s.layer_norm.weight" % stack] = r.normal((d,), 0.1, 1.0)
            sd["model.%s.layer_norm.bias" % stack] = r.normal((d,), 0.1)
    # The decoder's last LayerNorm gets a gain of 3 so that the logits h.E are peaked enough
    # (std about 3 with scaled embeddings) for greedy not to be decided by rounding.
    last = "model.decoder.layer_norm.weight" if args.norm == "pre" else \
        "model.decoder.layers.%d.final_layer_norm.weight" % (args.layers - 1)
    sd[last] = sd[last] * 3.0
    sd["lm_head.weight"] = r.normal((target_vocab_size, d), emb_std) if args.untied else dec
    bias = r.normal((1, target_vocab_size), 0.3)
    bias[0, 0] += args.eos_bias  # eos is id 0: a boost lets some sentences end early
    bias[0, pad] += args.pad_bias  # a strong <pad>: only bad_words_ids keeps it out
    sd["final_logits_bias"] = bias
    return sd


def save_safetensors(path, sd, dtype):
    """save_pretrained(safe_serialization=True): one copy of tied tensors (the first name in
    state-dict order, model.shared.weight), no embed_positions unless asked."""
    kind, torch_type = {"float32": ("F32", torch.float32),
                        "float16": ("F16", torch.float16)}[dtype]
    header, blobs, offset, seen = {"__metadata__": {"format": "pt"}}, [], 0, set()
    for name, tensor in sd.items():
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        data = tensor.to(torch_type).contiguous().numpy().tobytes()
        header[name] = {"dtype": kind, "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def save_bin(path, sd, dtype):
    """torch.save(model.state_dict()): every name, tied tensors sharing one storage."""
    converted, out = {}, {}
    for name, tensor in sd.items():
        if id(tensor) not in converted:
            converted[id(tensor)] = tensor.to(getattr(torch, dtype)).clone()
        out[name] = converted[id(tensor)]
    torch.save(out, path)


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--d-model", type=int, default=16)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--max-positions", type=int, default=64)
    ap.add_argument("--activation", default="swish")
    ap.add_argument("--norm", choices=["post", "pre"], default="post",
                    help="pre: transformers 3.x keys normalize_before/add_final_layer_norm")
    ap.add_argument("--no-scale-embedding", dest="scale_embedding", action="store_false")
    ap.add_argument("--untied", action="store_true", help="tie_word_embeddings false, lm_head")
    ap.add_argument("--separate", action="store_true",
                    help="share_encoder_decoder_embeddings false, separate vocabularies")
    ap.add_argument("--weights", choices=["safetensors", "bin"], default="safetensors")
    ap.add_argument("--dtype", dest="dtype_name", choices=["float32", "float16"],
                    default="float32")
    ap.add_argument("--positions-in-checkpoint", action="store_true",
                    help="keep embed_positions in model.safetensors (older transformers)")
    ap.add_argument("--language-codes", action="store_true", help=">>fra<< etc. in vocab.json")
    ap.add_argument("--no-generation-config", dest="generation_config", action="store_false")
    ap.add_argument("--eos-bias", type=float, default=0.0)
    ap.add_argument("--pad-bias", type=float, default=10.0)
    ap.add_argument("--drop-from-vocab", type=int, default=0,
                    help="leave N source pieces out of vocab.json")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    path = lambda name: os.path.join(args.out_dir, name)  # noqa: E731
    source = train_spm(shuffled_corpus(ENGLISH, args.seed), 150, path("source.spm"))
    target = train_spm(shuffled_corpus(FRENCH, args.seed + 1), 180, path("target.spm"))
    vocab, target_vocab = build_vocabs(args, source, target)
    write_json(path("vocab.json"), {piece: i for i, piece in enumerate(vocab)})
    if target_vocab:
        write_json(path("target_vocab.json"), {piece: i for i, piece in enumerate(target_vocab)})
    pad = vocab.index("<pad>")
    target_size = len(target_vocab or vocab)
    write_json(path("config.json"), hf_config(args, len(vocab), target_size, pad))
    if args.generation_config:
        write_json(path("generation_config.json"), generation_config(pad))
    specials = {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}
    write_json(path("special_tokens_map.json"), specials)
    write_json(path("tokenizer_config.json"), dict(
        specials, model_max_length=512, source_lang="en", target_lang="fr", sp_model_kwargs={},
        separate_vocabs=args.separate, tokenizer_class="MarianTokenizer"))
    sd = state_dict(args, len(vocab), target_size, pad)
    if args.weights == "bin":
        save_bin(path("pytorch_model.bin"), sd, args.dtype_name)
    else:
        if not args.positions_in_checkpoint:
            sd = {k: v for k, v in sd.items() if "embed_positions" not in k}
        save_safetensors(path("model.safetensors"), sd, args.dtype_name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
