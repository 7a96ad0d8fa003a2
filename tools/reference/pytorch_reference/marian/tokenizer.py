"""MarianTokenizer (transformers' tokenization_marian.py): SentencePiece pieces looked up in
vocab.json (<unk> if absent), a leading >>xx<< language code kept whole, eos appended."""
import os

import sentencepiece as spm

from .hf_files import read_json

SPIECE_UNDERLINE = "\u2581"


def clean_up_tokenization(text):
    """PreTrainedTokenizerBase.clean_up_tokenization."""
    for before, after in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
                          (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"),
                          (" 're", "'re")):
        text = text.replace(before, after)
    return text


class MarianTokenizerRef:
    """MarianTokenizer: SentencePiece pieces, looked up in vocab.json (<unk> if absent)."""

    def __init__(self, hf_dir):
        tc = read_json(os.path.join(hf_dir, "tokenizer_config.json"), {})

        def text(key, default):
            value = tc.get(key, default)
            return value.get("content") if isinstance(value, dict) else value
        self.unk, self.eos, self.pad = text("unk_token", "<unk>"), text("eos_token", "</s>"), \
            text("pad_token", "<pad>")
        self.separate = bool(tc.get("separate_vocabs", False))
        self.encoder = read_json(os.path.join(hf_dir, "vocab.json"))
        target = read_json(os.path.join(hf_dir, "target_vocab.json")) if self.separate else None
        self.decoder = {v: k for k, v in (target or self.encoder).items()}
        self.spm_source = spm.SentencePieceProcessor(model_file=os.path.join(hf_dir, "source.spm"))
        self.spm_target = spm.SentencePieceProcessor(model_file=os.path.join(hf_dir, "target.spm"))
        self.special = {self.unk, self.eos, self.pad}
        # absent: False in current transformers, True in older versions
        self.clean_up = bool(tc.get("clean_up_tokenization_spaces", False))

    def remove_language_code(self, text):
        if text.startswith(">>") and text.find("<<") != -1:
            end = text.find("<<") + 2
            return [text[:end]], text[end:]
        return [], text

    def tokenize(self, text):
        code, text = self.remove_language_code(text)
        return code + self.spm_source.encode(text, out_type=str)

    def encode(self, text):
        """input_ids: the pieces' ids, then eos (build_inputs_with_special_tokens)."""
        unk = self.encoder[self.unk]
        return [self.encoder.get(p, unk) for p in self.tokenize(text)] + [self.encoder[self.eos]]

    def decode(self, ids):
        """decode(ids, skip_special_tokens=True): convert_tokens_to_string of the rest."""
        tokens = [self.decoder.get(i, self.unk) for i in ids]
        tokens = [t for t in tokens if t not in self.special]
        # transformers 4.x decodes with the target model unless told otherwise; with shared
        # vocabularies the newest versions use the source model: both join the same pieces.
        out = self.spm_target.decode_pieces(tokens).replace(SPIECE_UNDERLINE, " ").strip()
        return clean_up_tokenization(out) if self.clean_up else out
