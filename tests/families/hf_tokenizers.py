"""The source ids and decoded text of each family's Hugging Face tokenizer, written from
transformers' tokenization_mbart50.py, tokenization_nllb.py, tokenization_m2m_100.py and
tokenization_t5.py (read, not imported), on the checkpoint's own files:

  MBart50Tokenizer  [lang_code_to_id[src]] + ids + [eos]; ids: spm id + fairseq_offset (1),
                    <unk> (3) for SentencePiece's unknown (spm id 0); codes at sp size + 1 + i
  NllbTokenizer     the same (legacy_behaviour=False); code ids from added_tokens_decoder
  M2M100Tokenizer   [lang_token_to_id[__src__]] + vocab.json.get(piece, <unk>) + [eos];
                    codes at len(vocab.json) + i
  T5Tokenizer       SentencePiece ids + [eos]; <extra_id_N> at sp size + 99 - N
decode(ids, skip_special_tokens=True): specials and codes dropped, SentencePiece decodes the rest.
"""
import json
import os

import sentencepiece as spm


class HfTokenizer:
    def __init__(self, family, hf_dir):
        self.family = family
        self.config = json.load(open(os.path.join(hf_dir, "tokenizer_config.json")))
        if family == "t5":
            self.sp = spm.SentencePieceProcessor(model_file=os.path.join(hf_dir, "spiece.model"))
            self.codes, self.special = {}, {0, 1, 2}
            n = self.sp.get_piece_size()
            self.special |= set(range(n, n + 100))
            return
        self.sp = spm.SentencePieceProcessor(
            model_file=os.path.join(hf_dir, "sentencepiece.bpe.model"))
        n = self.sp.get_piece_size()
        if family == "m2m100":
            self.vocab = json.load(open(os.path.join(hf_dir, "vocab.json")))
            self.pieces = {i: p for p, i in self.vocab.items()}
            from make_checkpoint import M2M100_CODES
            self.codes = {"__%s__" % c: len(self.vocab) + i for i, c in enumerate(M2M100_CODES)}
        elif family == "mbart50":
            from make_checkpoint import MBART50_CODES
            self.codes = {c: n + 1 + i for i, c in enumerate(MBART50_CODES)}
        else:  # NLLB: the ids tokenizer_config.json's added_tokens_decoder gives
            added = self.config["added_tokens_decoder"]
            self.codes = {v["content"]: int(k) for k, v in added.items()
                          if v["content"] in self.config["additional_special_tokens"]}
        self.special = {0, 1, 2, 3} | set(self.codes.values())

    def piece_ids(self, text):
        if self.family == "t5":
            return self.sp.encode(text)
        pieces = self.sp.encode(text, out_type=str)
        if self.family == "m2m100":
            return [self.vocab.get(p, self.vocab["<unk>"]) for p in pieces]
        return [self.sp.piece_to_id(p) + 1 if self.sp.piece_to_id(p) else 3 for p in pieces]

    def source_ids(self, text, source_lang=None, prefix=""):
        if self.family == "t5":
            return self.piece_ids(prefix + text) + [1]
        code = "__%s__" % source_lang if self.family == "m2m100" else source_lang
        return [self.codes[code]] + self.piece_ids(text) + [2]

    def target_code(self, target_lang):
        return self.codes["__%s__" % target_lang if self.family == "m2m100" else target_lang]

    def text_piece(self, i):
        """The piece of an ordinary id, or None (a special token, a code, an unnamed row)."""
        if i in self.special:
            return None
        if self.family == "t5":
            return self.sp.id_to_piece(i) if i < self.sp.get_piece_size() else None
        if self.family == "m2m100":
            return self.pieces.get(i)
        return self.sp.id_to_piece(i - 1) if i - 1 < self.sp.get_piece_size() else None

    def decode(self, ids):
        """-> text, or None when an id has no piece at all (a row no token names)."""
        pieces = []
        for i in ids:
            if i in self.special:
                continue
            piece = self.text_piece(i)
            if piece is None:
                return None
            pieces.append(piece)
        return self.sp.decode_pieces(pieces)
