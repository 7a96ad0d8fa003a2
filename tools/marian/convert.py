"""Converts a Hugging Face MarianMTModel directory (an OPUS-MT model): reads HF_DIR
(config.json, model.safetensors or pytorch_model.bin, source.spm, target.spm, vocab.json, and
target_vocab.json for separate vocabularies; generation_config.json and tokenizer_config.json
when present) and writes config.json, model.safetensors, source.spm and target.spm
(docs/models.md says what is converted, what is refused and what was tested)."""
import os

import hf_config
import hf_files
import ignored_tensors  # tools/hf
import output
import selfcheck
import vocab as vocab_mod
import weights as weights_mod
from errors import ConversionError


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
        separate = self.tokenizer_config.get("separate_vocabs", False)
        if not isinstance(separate, bool):
            raise ConversionError(tokenizer_path, "key 'separate_vocabs' is %r, not true or "
                                                  "false" % (separate,))
        self.target_vocab_path = target if separate else self.source_vocab_path
        self.vocab = {}
        for side, path in (("source", self.source_vocab_path), ("target", self.target_vocab_path)):
            self.vocab[side] = vocab_mod.read_vocab(path, hf_files.read_json(path,
                                                                             kind="vocab"))
        for side in ("source", "target"):
            path = os.path.join(hf_dir, side + ".spm")
            if not hf_files.present(path):
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
    """-> {side: pieces read as <unk>} (format v2's unknown_pieces)."""
    unknown = {}
    for side in ("source", "target"):
        spm_path = os.path.join(inputs.dir, side + ".spm")
        vocab_path = inputs.source_vocab_path if side == "source" else inputs.target_vocab_path
        data, side_notes, unknown[side] = vocab_mod.rewrite(
            spm_path, inputs.vocab[side], vocab_path, inputs.specials, side == "source",
            drop_missing)
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
    return unknown


def convert(args):
    output.check_paths(args.hf_dir, args.out_dir, args.force)
    inputs = Inputs(args.hf_dir)
    p = hf_config.plan_architecture(inputs.config, inputs.config_path)
    banned = hf_config.banned_tokens(inputs.config, inputs.generation, inputs.config_path,
                                     inputs.generation_path)
    unk = check_ids(inputs, p)
    notes = hf_config.generation_notes(inputs.config, inputs.generation)
    notes += hf_config.tokenizer_notes(inputs.tokenizer_config)
    weights_path, tensors = hf_files.read_weights(args.hf_dir)
    notes += ignored_tensors.leave_out("marian", tensors, weights_path)
    out = weights_mod.map_weights(tensors, weights_path, p, banned, notes)
    if banned:
        notes.append("token ids %s (bad_words_ids) are never generated: final_logits_bias %g"
                     % (banned, weights_mod.BANNED_LOGIT_BIAS))
    stage = output.StagedDirectory(args.out_dir, args.force)
    try:
        unknown = write_tokenizers(inputs, stage, args.drop_missing_pieces, notes)
        config = minimt_config(p, unk)
        if any(unknown.values()):  # format v2 reads the pieces vocab.json lacks as <unk>
            config.update({"format_version": 2, "unknown_pieces": unknown})
        output.write_weights_and_config(stage, out, config, args)
        stage.commit()
    except BaseException:
        stage.abandon()
        raise
    return notes


