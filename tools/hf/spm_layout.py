"""Rewrites a SentencePiece model so that its piece ids are a Hugging Face model's ids.

minimt takes the ids its SentencePiece model gives as rows of the embedding table. The
Hugging Face tokenizers of mBART-50, NLLB (the fairseq id offset), M2M100 (vocab.json) and T5
(extra ids after the pieces) give other ids; the layout lists, for every model id, the piece
minimt's tokenizer must hold there:

  ("piece", text)    one of the original model's pieces, kept with its score and type, so
                     SentencePiece cuts text exactly as before (BPE and unigram alike: both
                     read only the pieces' scores, never their order)
  ("unk", text)      the unknown piece
  ("control", text)  a piece SentencePiece never produces and decodes to nothing: special
                     tokens, language codes, rows of the embedding no token names

Pieces the original model can produce that the layout does not place keep their place in the
cutting and are appended after the layout: format v2's unknown_pieces reads them as unk, as
the Hugging Face tokenizer does when its vocabulary lacks a piece.
"""
import spm_proto as sp
from errors import ConversionError
from vocab import check_unique

PRODUCIBLE = (sp.NORMAL, sp.USER_DEFINED, sp.BYTE)


class Layout:
    def __init__(self):
        self.entries = []  # (role, text) by model id

    def add(self, role, text):
        self.entries.append((role, text))
        return len(self.entries) - 1

    def fill_to(self, size, name):
        """Control pieces named name % n up to `size` ids: embedding rows no token names."""
        n = 0
        while len(self.entries) < size:
            self.add("control", name % n)
            n += 1


def load(spm_path):
    from vocab import load_spm
    return load_spm(spm_path)


def rewrite(spm_path, layout, ids, target_side):
    """-> (bytes of the rewritten model, number of unknown pieces appended).
    ids: {"unk": id, "eos": id, "pad": id, "bos": id or -1} in the layout. On the target side
    the unknown piece decodes to nothing, as decode(ids, skip_special_tokens=True) drops it."""
    model = load(spm_path)
    own = {p.text: p for p in model.pieces}
    pieces, placed = [], set()
    for index, (role, text) in enumerate(layout.entries):
        if role == "piece":
            if text not in own:
                raise ConversionError(spm_path, "has no piece %r (id %d)" % (text, index))
            original = own[text]
            kind = sp.CONTROL if original.type == sp.UNKNOWN else original.type
            pieces.append(sp.Piece(text, original.score, kind, original.extra))
        elif role == "unk":
            pieces.append(sp.Piece(text, 0.0, sp.UNKNOWN))
        else:
            pieces.append(sp.Piece(text, 0.0, sp.CONTROL))
        placed.add(text)
    extra = [p for p in model.pieces if p.type in PRODUCIBLE and p.text not in placed]
    pieces += [sp.Piece(p.text, p.score, p.type, p.extra) for p in extra]
    check_unique(pieces, spm_path)
    model.pieces = pieces
    names = {key: layout.entries[value][1] for key, value in ids.items() if value >= 0}
    model.set_trainer({sp.TRAINER_VOCAB_SIZE: len(pieces),
                       **{sp.TRAINER_IDS[key]: value for key, value in ids.items()}},
                      {**{sp.TRAINER_PIECES[key]: text for key, text in names.items()},
                       **({sp.TRAINER_UNK_SURFACE: ""} if target_side else {})})
    return model.serialize(), len(extra)
