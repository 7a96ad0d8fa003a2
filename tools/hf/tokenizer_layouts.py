"""Each family's id layout (spm_layout.Layout) as its Hugging Face tokenizer numbers pieces,
and that tokenizer's way from text to ids, to check the rewritten model against.

- fairseq offset (MBart50Tokenizer, NllbTokenizer): <s> 0, <pad> 1, </s> 2, <unk> 3, then the
  SentencePiece model's piece i (i >= 3) at i + 1; the language codes after the last piece,
  then <mask>.
- vocab.json (M2M100Tokenizer): each piece at its vocab.json id (<unk> for a piece the file
  lacks); the codes __xx__ at len(vocab.json) + i; the model's 8 "madeup words" after them.
- SentencePiece ids (T5Tokenizer): piece i at i; <extra_id_N> at pieces + extra_ids - 1 - N.
"""
import spm_layout
from errors import ConversionError


def fairseq_offset(spm_path, codes, vocab_size):
    """-> (layout, {code: id}); the SentencePiece model must hold <unk>, <s>, </s> at 0, 1, 2."""
    model = spm_layout.load(spm_path)
    head = [p.text for p in model.pieces[:3]]
    if head != ["<unk>", "<s>", "</s>"]:
        raise ConversionError(spm_path, "starts with %r, not ['<unk>', '<s>', '</s>'] as the "
                                        "fairseq id offset expects" % head)
    layout = spm_layout.Layout()
    for role, text in (("control", "<s>"), ("control", "<pad>"), ("control", "</s>"),
                       ("unk", "<unk>")):
        layout.add(role, text)
    for piece in model.pieces[3:]:
        layout.add("piece", piece.text)
    code_ids = {code: layout.add("control", code) for code in codes}
    layout.add("control", "<mask>")
    _fill(layout, vocab_size, spm_path)
    return layout, code_ids


def m2m100_vocab(spm_path, vocab, vocab_path, codes, vocab_size, notes):
    """vocab: pieces by id (vocab.json). -> (layout, {code: id})."""
    model = spm_layout.load(spm_path)
    own = {p.text for p in model.pieces}
    layout, foreign = spm_layout.Layout(), 0
    for piece in vocab:
        if piece == "<unk>":
            layout.add("unk", piece)
        elif piece in own and piece not in ("<s>", "</s>", "<pad>"):
            layout.add("piece", piece)
        else:
            foreign += piece not in ("<s>", "</s>", "<pad>")
            layout.add("control", piece)
    if "<unk>" not in vocab:
        raise ConversionError(vocab_path, "has no '<unk>'")
    if foreign:
        notes.append("%s: %d entries are not pieces of %s: never produced, decoded to nothing"
                     % (vocab_path, foreign, spm_path))
    code_ids = {code: layout.add("control", "__%s__" % code) for code in codes}
    _fill(layout, vocab_size, spm_path, "madeupword%04d")
    return layout, code_ids


def t5_pieces(spm_path, extra_ids, vocab_size):
    model = spm_layout.load(spm_path)
    layout = spm_layout.Layout()
    for piece in model.pieces:
        layout.add("unk" if piece.type == 2 else "piece", piece.text)
    for n in range(extra_ids - 1, -1, -1):
        layout.add("control", "<extra_id_%d>" % n)
    _fill(layout, vocab_size, spm_path)
    return layout


def _fill(layout, vocab_size, spm_path, name="<minimt_unused_%d>"):
    if len(layout.entries) > vocab_size:
        raise ConversionError(spm_path, "with the special tokens gives %d ids, more than the "
                                        "model's vocab_size (%d)" % (len(layout.entries),
                                                                     vocab_size))
    layout.fill_to(vocab_size, name)


def hf_ids(kind, processor, text, vocab=None, unk=None):
    """The ids the family's Hugging Face tokenizer gives the text's pieces (no specials)."""
    if kind == "t5":
        return processor.encode(text)
    pieces = processor.encode(text, out_type=str)
    if kind == "fairseq":
        return [processor.piece_to_id(p) + 1 if processor.piece_to_id(p) else 3 for p in pieces]
    return [vocab.get(p, unk) for p in pieces]  # M2M100: vocab.json, <unk> when absent
