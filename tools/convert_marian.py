#!/usr/bin/python3
"""Converts a Hugging Face MarianMTModel directory (an OPUS-MT model) into a minimt model.

  tools/convert_marian.py HF_DIR OUT_DIR [--dtype F32|F16|BF16] [--drop-missing-pieces] [--force]

HF_DIR holds config.json, model.safetensors or pytorch_model.bin, source.spm, target.spm,
vocab.json (and target_vocab.json for separate vocabularies; generation_config.json and
tokenizer_config.json when present). OUT_DIR receives config.json, model.safetensors,
source.spm and target.spm in minimt's format 1 (docs/model-format.md). docs/models.md says
what is converted, what is refused and what was tested.

Exit status: 0 converted, 1 refused or failed (one line on stderr naming the file and the
key or tensor), 2 usage.
"""
import argparse
import os
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(TOOLS, "common"))
sys.path.insert(0, os.path.join(TOOLS, "marian"))

import hf_config  # noqa: E402
import hf_files  # noqa: E402
import output  # noqa: E402
import safetensors_file  # noqa: E402
import selfcheck  # noqa: E402
import vocab as vocab_mod  # noqa: E402
import weights as weights_mod  # noqa: E402
from errors import ConversionError  # noqa: E402


class Inputs:
    """Everything read from HF_DIR."""

    def __init__(self, hf_dir):
        self.dir = hf_dir
        self.config_path = os.path.join(hf_dir, "config.json")
        self.config = hf_files.read_json(self.config_path)
        self.generation_path = os.path.join(hf_dir, "generation_config.json")
        self.generation = hf_files.read_json(self.generation_path, required=False)
        tokenizer_path = os.path.join(hf_dir, "tokenizer_config.json")
        self.tokenizer_config = hf_files.read_json(tokenizer_path, required=False) or {}
        for path, value in ((self.config_path, self.config),
                            (self.generation_path, self.generation or {}),
                            (tokenizer_path, self.tokenizer_config)):
            if not isinstance(value, dict):
                raise ConversionError(path, "must hold a JSON object")
        self.specials = hf_config.tokenizer_specials(self.tokenizer_config)
        self.source_vocab_path = os.path.join(hf_dir, "vocab.json")
        target = os.path.join(hf_dir, "target_vocab.json")
        separate = bool(self.tokenizer_config.get("separate_vocabs", False))
        self.target_vocab_path = target if separate else self.source_vocab_path
        self.vocab = {}
        for side, path in (("source", self.source_vocab_path), ("target", self.target_vocab_path)):
            self.vocab[side] = vocab_mod.read_vocab(path, hf_files.read_json(path))
        for side in ("source", "target"):
            path = os.path.join(hf_dir, side + ".spm")
            if not os.path.isfile(path):
                raise ConversionError(path, "is missing")


def check_ids(inputs, p):
    """config.json's vocabulary sizes and special ids against vocab.json."""
    cfg = inputs.config_path
    sizes = (("source", "vocab_size", p.vocab_size),
             ("target", "vocab_size" if p.shared_embeddings else "decoder_vocab_size",
              p.target_vocab_size))
    for side, key, size in sizes:
        pieces = inputs.vocab[side]
        path = inputs.source_vocab_path if side == "source" else inputs.target_vocab_path
        if len(pieces) != size:
            raise ConversionError(cfg, "key '%s' is %d but %s has %d pieces; minimt's tokenizer "
                                       "ids must be the embedding rows" % (key, size, path,
                                                                           len(pieces)))
    for side in ("source", "target"):
        ids = {piece: i for i, piece in enumerate(inputs.vocab[side])}
        for key, name, value in (("eos_token_id", "eos", p.eos), ("pad_token_id", "pad", p.pad)):
            token = inputs.specials[name]
            if ids.get(token) != value:
                raise ConversionError(cfg, "key '%s' is %d but the %s vocabulary gives %r id %s"
                                      % (key, value, side, token, ids.get(token)))
    unk = [inputs.vocab[s].index(inputs.specials["unk"]) if inputs.specials["unk"] in
           inputs.vocab[s] else None for s in ("source", "target")]
    if unk[0] is None or unk[0] != unk[1]:
        raise ConversionError(inputs.target_vocab_path, "gives %r ids %s (source, target); "
                                                        "minimt needs one id on both sides"
                              % (inputs.specials["unk"], unk))
    return unk[0]


def minimt_config(p, unk):
    return {
        "format": "minimt-transformer", "format_version": 1,
        "d_model": p.d_model, "num_heads": p.num_heads, "d_ff": p.d_ff,
        "encoder_layers": p.encoder_layers, "decoder_layers": p.decoder_layers,
        "activation": p.activation, "norm_position": p.norm_position,
        "layer_norm_eps": 1e-5,  # torch.nn.LayerNorm's default, which MarianMTModel uses
        "max_positions": p.max_positions, "positions": "learned",
        "scale_embeddings": p.scale_embeddings,
        "source_vocab_size": p.vocab_size, "target_vocab_size": p.target_vocab_size,
        "tie_output": p.tied_output,
        # Marian has no bos: the decoder starts from <pad>, which also stands in for bos
        "special_tokens": {"pad": p.pad, "unk": unk, "bos": p.decoder_start, "eos": p.eos},
        "decoder_start_token": p.decoder_start,
        "tokenizer": {"source": "source.spm", "target": "target.spm"},
        "weights": "model.safetensors",
    }


def write_tokenizers(inputs, stage, drop_missing, notes):
    for side in ("source", "target"):
        spm_path = os.path.join(inputs.dir, side + ".spm")
        vocab_path = inputs.source_vocab_path if side == "source" else inputs.target_vocab_path
        data, side_notes = vocab_mod.rewrite(spm_path, inputs.vocab[side], vocab_path,
                                             inputs.specials, side == "source", drop_missing)
        notes += side_notes
        if not any("dropped" in n for n in side_notes):
            checked = selfcheck.check(spm_path, data, inputs.vocab[side], inputs.specials["unk"],
                                      side == "source", spm_path)
            notes.append("%s: %d sample texts tokenized as MarianTokenizer does" % (spm_path,
                                                                                   checked)
                         if checked else "%s: not checked against MarianTokenizer (no Python "
                         "sentencepiece module)" % spm_path)
        with open(stage.file(side + ".spm"), "wb") as f:
            f.write(data)


def check_paths(hf_dir, out_dir):
    hf, out = os.path.realpath(hf_dir), os.path.realpath(out_dir)
    if hf == out or hf.startswith(out + os.sep):
        raise ConversionError(out_dir, "would replace the model being converted (%s)" % hf_dir)


def convert(args):
    import json
    check_paths(args.hf_dir, args.out_dir)
    inputs = Inputs(args.hf_dir)
    p = hf_config.plan_architecture(inputs.config, inputs.config_path)
    banned = hf_config.banned_tokens(inputs.config, inputs.generation, inputs.config_path,
                                     inputs.generation_path)
    unk = check_ids(inputs, p)
    notes = hf_config.generation_notes(inputs.config, inputs.generation)
    notes += hf_config.tokenizer_notes(inputs.tokenizer_config)
    weights_path, tensors = hf_files.read_weights(args.hf_dir)
    out = weights_mod.map_weights(tensors, weights_path, p, banned, notes)
    if banned:
        notes.append("token ids %s (bad_words_ids) are never generated: final_logits_bias %g"
                     % (banned, weights_mod.BANNED_LOGIT_BIAS))
    stage = output.StagedDirectory(args.out_dir, args.force)
    try:
        write_tokenizers(inputs, stage, args.drop_missing_pieces, notes)
        safetensors_file.write_safetensors(
            stage.file("model.safetensors"), out, args.dtype, keep_f32={"final_logits_bias"},
            metadata={"converted_from": os.path.abspath(args.hf_dir),
                      "converter": "tools/convert_marian.py"})
        with open(stage.file("config.json"), "w", encoding="utf-8") as f:
            json.dump(minimt_config(p, unk), f, indent=1)
            f.write("\n")
        stage.commit()
    except BaseException:
        stage.abandon()
        raise
    return notes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hf_dir", metavar="HF_DIR")
    ap.add_argument("out_dir", metavar="OUT_DIR")
    ap.add_argument("--dtype", default="F32", choices=["F32", "F16", "BF16"],
                    help="weights in OUT_DIR (default F32; minimt widens F16/BF16 at load)")
    ap.add_argument("--drop-missing-pieces", action="store_true",
                    help="remove SentencePiece pieces that vocab.json lacks instead of refusing")
    ap.add_argument("--force", action="store_true", help="replace a non-empty OUT_DIR")
    ap.add_argument("--quiet", action="store_true", help="no notes on stderr")
    args = ap.parse_args(argv)
    try:
        notes = convert(args)
    except (ConversionError, OSError, ValueError) as e:
        print("convert_marian.py: %s" % e, file=sys.stderr)
        return 1
    if not args.quiet:
        for note in notes:
            print("note: %s" % note, file=sys.stderr)
        print("converted %s -> %s" % (args.hf_dir, args.out_dir), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
