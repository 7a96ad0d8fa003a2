"""Rewrites a Marian SentencePiece model so that its piece ids are the model's vocab.json ids.

minimt's format 1 takes the ids the SentencePiece model gives as rows of the embedding
table. A Hugging Face Marian model does not: MarianTokenizer lets SentencePiece cut the text
into pieces, then looks each piece up in vocab.json (one id space, usually the union of the
source and target vocabularies, with <pad> added). The rewritten model has one piece per
vocab.json entry, at that entry's id:

- pieces the original model has keep their score and type, so SentencePiece cuts text the
  same way (pieces it cannot produce are still cut the same way: their order does not matter
  to the unigram algorithm, only their scores);
- entries the original model lacks (pieces of the other side's model) become UNUSED pieces,
  which the unigram algorithm never produces but which still decode to their text;
- except single characters the original model does not know at all: SentencePiece gives
  such a character as an unknown piece whose text MarianTokenizer then finds in vocab.json,
  so they become NORMAL pieces with the model's lowest score (above the unknown piece's, not
  below any piece's, so nothing else changes). A run of two or more unknown characters is
  one unknown piece to SentencePiece, which vocab.json rarely lists: there the rewritten
  model gives one id per character where transformers gives <unk> (docs/models.md);
- the unknown, end-of-sentence and padding tokens become its UNKNOWN and CONTROL pieces;
- on the source side, target-language tokens (">>fra<<") become user-defined pieces written
  "▁>>fra<<", so that ">>fra<< text" gives the code's id then the text's pieces, as
  MarianTokenizer's remove_language_code does;
- on the target side, <unk> decodes to nothing (SentencePiece's default is " \u2047 "), as
  in MarianTokenizer.decode(ids, skip_special_tokens=True).
"""
import spm_proto as sp
from errors import ConversionError

LANGUAGE_CODE_MARK = "\u2581"
MAX_PIECES = sp.MAX_PIECES  # as minimt's tokenizer reads (docs/robustness.md)
MAX_PIECE_BYTES = 2048  # the whitespace mark SentencePiece puts before each word


def load_spm(spm_path):
    """The SentencePiece model at spm_path, read through hf_files (a regular file inside the
    input folder, at most 64 MiB)."""
    import hf_files
    try:
        return sp.SpmModel(hf_files.read_bytes(spm_path, "tokenizer"))
    except sp.ProtoError as e:
        raise ConversionError(spm_path, "is not a SentencePiece model that can be read (%s)" % e)


def is_language_code(token):
    return token.startswith(">>") and token.endswith("<<") and len(token) > 4


def read_vocab(path, data):
    """vocab.json contents -> list of pieces by id; ids must be 0..N-1, each once."""
    if not isinstance(data, dict) or not data:
        raise ConversionError(path, "must be a JSON object mapping pieces to ids")
    if len(data) > MAX_PIECES:
        raise ConversionError(path, "has %d pieces, more than the %d minimt's tokenizer reads"
                              % (len(data), MAX_PIECES))
    by_id = {}
    for piece, index in data.items():
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ConversionError(path, "piece %r has id %r, not an id >= 0" % (piece, index))
        if index in by_id:
            raise ConversionError(path, "id %d is given to both %r and %r"
                                  % (index, by_id[index], piece))
        if piece == "":
            raise ConversionError(path, "has an empty piece (id %d); SentencePiece cannot "
                                        "hold one" % index)
        if "\0" in piece or len(piece.encode("utf-8")) > MAX_PIECE_BYTES:
            raise ConversionError(path, "piece %s (id %d) holds a NUL or is longer than %d "
                                        "bytes; minimt's tokenizer refuses it"
                                  % (ascii(piece)[:80], index, MAX_PIECE_BYTES))
        by_id[index] = piece
    if len(by_id) != max(by_id) + 1:
        missing = next(i for i in range(len(by_id)) if i not in by_id)
        raise ConversionError(path, "ids are not 0..%d without gaps (no piece has id %d)"
                              % (len(by_id) - 1, missing))
    return [by_id[i] for i in range(len(by_id))]


PRODUCIBLE = (sp.NORMAL, sp.USER_DEFINED, sp.BYTE)


def _missing_pieces(model, vocab_ids, specials):
    """Pieces the SentencePiece model can produce that vocab.json does not list."""
    return [p.text for p in model.pieces
            if p.type in PRODUCIBLE and p.text not in vocab_ids and p.text not in specials]


def rewrite(spm_path, vocab, vocab_path, specials, source_side, drop_missing):
    """-> (new SentencePiece model bytes, notes, unknown pieces). vocab: pieces by id;
    specials: {'unk': '<unk>', 'eos': '</s>', 'pad': '<pad>'} as the tokenizer names them.
    Pieces vocab.json lacks are appended after it (format v2's unknown_pieces reads them as
    <unk>, as MarianTokenizer does), or dropped with drop_missing."""
    model = load_spm(spm_path)
    ids = {piece: i for i, piece in enumerate(vocab)}
    for name, token in specials.items():
        if token not in ids:
            raise ConversionError(vocab_path, "has no %s token %r" % (name, token))
    notes = []
    missing = _missing_pieces(model, ids, set(specials.values()))
    if missing and drop_missing:
        notes.append("%s: dropped %d pieces not in %s" % (spm_path, len(missing), vocab_path))
    elif missing:
        notes.append("%s: %d pieces that %s lacks (e.g. %s) are read as %s, as MarianTokenizer "
                     "does; --drop-missing-pieces removes them instead" %
                     (spm_path, len(missing), vocab_path, ", ".join(map(repr, missing[:3])),
                      specials["unk"]))
    kept = [] if drop_missing else [p for p in model.pieces if p.text in set(missing)]
    own = {p.text: p for p in model.pieces}
    foreign = sum(1 for piece in vocab if piece not in own and piece not in specials.values())
    if foreign and model.model_type() != "unigram":
        raise ConversionError(spm_path, "is a %s SentencePiece model and %s lists %d pieces it "
                              "lacks; only unigram models (Marian's default) keep their "
                              "segmentation when pieces are added" %
                              (model.model_type(), vocab_path, foreign))
    own_chars = set("".join(p.text for p in model.pieces if p.type in PRODUCIBLE))
    lowest = min((p.score for p in model.pieces if p.type == sp.NORMAL), default=0.0)
    unknown_char = lambda piece: len(piece) == 1 and piece not in own_chars  # noqa: E731
    model.pieces = [_new_piece(piece, own, specials, source_side, unknown_char, lowest)
                    for piece in vocab] + kept
    check_unique(model.pieces, spm_path)
    strings = {} if source_side else {sp.TRAINER_UNK_SURFACE: ""}
    model.set_trainer(
        {sp.TRAINER_VOCAB_SIZE: len(model.pieces), sp.TRAINER_IDS["unk"]: ids[specials["unk"]],
         sp.TRAINER_IDS["eos"]: ids[specials["eos"]], sp.TRAINER_IDS["pad"]: ids[specials["pad"]],
         sp.TRAINER_IDS["bos"]: -1},
        {sp.TRAINER_PIECES["unk"]: specials["unk"], sp.TRAINER_PIECES["eos"]: specials["eos"],
         sp.TRAINER_PIECES["pad"]: specials["pad"], **strings})
    chars = sum(1 for p in model.pieces if p.text not in own and p.type == sp.NORMAL)
    notes.append("%s: %d pieces -> %d (%d from the other vocabulary: %d characters this model "
                 "gives as unknown, the others unused)" % (spm_path, len(own), len(vocab),
                                                           foreign, chars))
    return model.serialize(), notes, len(kept)


def _new_piece(piece, own, specials, source_side, unknown_char, lowest):
    if piece == specials["unk"]:
        return sp.Piece(piece, 0.0, sp.UNKNOWN)
    if piece in (specials["eos"], specials["pad"]):
        return sp.Piece(piece, 0.0, sp.CONTROL)
    if source_side and is_language_code(piece):
        return sp.Piece(LANGUAGE_CODE_MARK + piece, 0.0, sp.USER_DEFINED)
    if piece in own:
        original = own[piece]
        kind = sp.CONTROL if original.type == sp.UNKNOWN else original.type
        return sp.Piece(piece, original.score, kind, original.extra)
    if unknown_char(piece):
        return sp.Piece(piece, lowest, sp.NORMAL)
    return sp.Piece(piece, 0.0, sp.UNUSED)


def check_unique(pieces, spm_path):
    """Each piece text once: SentencePiece refuses a model that has one twice."""
    seen = set()
    for i, piece in enumerate(pieces):
        if piece.text in seen:
            raise ConversionError(spm_path, "piece %r would appear twice (again at id %d)"
                                  % (piece.text, i))
        seen.add(piece.text)
