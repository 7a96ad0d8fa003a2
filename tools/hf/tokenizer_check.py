"""Checks a rewritten SentencePiece model against its family's Hugging Face tokenizer on texts
made of the model's own pieces (tokenizer_layouts.hf_ids gives what the tokenizer does)."""
import random

from errors import ConversionError
from tokenizer_layouts import hf_ids


def sample_texts(processor, count=300, seed=0):
    rng = random.Random(seed)
    words = [processor.id_to_piece(i) for i in range(processor.get_piece_size())
             if not (processor.is_control(i) or processor.is_unknown(i)
                     or processor.is_unused(i))]
    texts = ["".join(rng.choice(words) for _ in range(rng.randint(1, 8))).replace("\u2581", " ")
             for _ in range(count)]
    return texts + ["Zebras & quartz: 42!", "\u00c6\u00d8\u00c5 \u6f22\u5b57 \U0001F600", ""]


def check(kind, spm_path, rewritten, vocab_size, unk, vocab=None):
    """-> number of texts compared, 0 without the Python sentencepiece module."""
    try:
        import sentencepiece
    except ImportError:
        return 0
    import hf_files
    try:
        original = sentencepiece.SentencePieceProcessor(
            model_proto=hf_files.read_bytes(spm_path, "tokenizer"))
        new = sentencepiece.SentencePieceProcessor(model_proto=rewritten)
    except RuntimeError as e:
        raise ConversionError(spm_path, "SentencePiece cannot load it (%s)"
                              % str(e).strip()[:200])
    ids = {p: i for i, p in enumerate(vocab)} if vocab else None
    texts = sample_texts(original)
    for text in texts:
        want = hf_ids(kind, original, text, ids, unk)
        got = [i if i < vocab_size else unk for i in new.encode(text)]
        if got != want:
            raise ConversionError(spm_path, "the rewritten tokenizer cuts %r into ids %s, the "
                                            "Hugging Face tokenizer into %s"
                                  % (text, got[:12], want[:12]))
    return len(texts)
