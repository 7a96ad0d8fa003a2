"""Checks a rewritten SentencePiece model against MarianTokenizer's way of getting ids.

MarianTokenizer: strip a leading ">>xx<<" code, SentencePiece pieces of the rest, each piece
looked up in vocab.json (<unk> when absent). The rewritten model must give the same ids, its
pieces past vocab.json read as <unk> (format v2's unknown_pieces), on texts made of the
model's own pieces.
"""
import random

from errors import ConversionError
from vocab import is_language_code


def marian_ids(processor, ids, unk, text):
    code = []
    if text.startswith(">>") and text.find("<<") != -1:
        end = text.find("<<") + 2
        code, text = [ids.get(text[:end], unk)], text[end:]
    return code + [ids.get(piece, unk) for piece in processor.encode(text, out_type=str)]


def sample_texts(processor, codes, foreign_chars, count=400, seed=0):
    """Texts of the model's own pieces; some with a character only vocab.json knows."""
    rng = random.Random(seed)
    words = [processor.id_to_piece(i) for i in range(processor.get_piece_size())
             if not (processor.is_control(i) or processor.is_unknown(i)
                     or processor.is_unused(i))]
    texts = []
    for n in range(count):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 8))).replace("\u2581", " ")
        if foreign_chars and n % 3 == 0:
            text = rng.choice(words).replace("\u2581", " ") + rng.choice(foreign_chars) + text
        if codes and n % 4 == 0:
            text = rng.choice(codes) + " " + text.strip()
        texts.append(text)
    return texts + ["Zebras & quartz: 42!", "\u00c6\u00d8\u00c5 \u6f22\u5b57 \U0001F600", ""]


def check(original_path, rewritten_bytes, vocab, unk_token, source_side, path_for_messages):
    """-> number of texts compared; raises ConversionError on the first difference."""
    try:
        import sentencepiece
    except ImportError:
        return 0
    import hf_files
    try:
        original = sentencepiece.SentencePieceProcessor(
            model_proto=hf_files.read_bytes(original_path, "tokenizer"))
        rewritten = sentencepiece.SentencePieceProcessor(model_proto=rewritten_bytes)
    except RuntimeError as e:
        raise ConversionError(original_path, "SentencePiece cannot load it (%s)"
                              % str(e).strip()[:200])
    ids = {piece: i for i, piece in enumerate(vocab)}
    codes = [p for p in vocab if is_language_code(p)] if source_side else []
    known = set("".join(original.id_to_piece(i) for i in range(original.get_piece_size())
                        if not (original.is_control(i) or original.is_unknown(i))))
    foreign_chars = [p for p in vocab if len(p) == 1 and p not in known]
    texts = sample_texts(original, codes, foreign_chars)
    for text in texts:
        want = marian_ids(original, ids, ids[unk_token], text)
        got = [i if i < len(vocab) else ids[unk_token] for i in rewritten.encode(text)]
        if got != want:
            raise ConversionError(path_for_messages, "the rewritten tokenizer cuts %r into ids "
                                  "%s, MarianTokenizer into %s" % (text, got[:12], want[:12]))
    return len(texts)
