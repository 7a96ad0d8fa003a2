#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ from the hand-written model.

    tests/fuzz/make_seeds.py MINIMT   (MINIMT: a built minimt, for the attention dump seeds)
"""
import json
import pathlib
import struct
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
HAND = HERE.parent / "fixtures" / "hand-model"


def safetensors(tensors, dtype="F32"):
    """The safetensors bytes of {name: (shape, floats)}; F32, F16 or BF16."""
    header, blob = {}, b""
    for name, (shape, data) in tensors.items():
        if dtype == "F32":
            raw = struct.pack(f"<{len(data)}f", *data)
        elif dtype == "F16":
            raw = struct.pack(f"<{len(data)}e", *data)
        else:  # BF16: the high half of each F32
            raw = b"".join(struct.pack("<f", x)[2:] for x in data)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + blob


def handmade_dump():
    src, dec, out = ["\u2581a", "\u2581b", "</s>"], ["</s>", "\u2581a"], ["\u2581a", "</s>"]
    square = lambda n: [[round(1.0 / n, 3)] * n for _ in range(n)]
    cross = [[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]]
    sentence = {"source": "a b", "translation": "a", "source_tokens": src,
                "decoder_input_tokens": dec, "output_tokens": out,
                "encoder_self_attention": [[square(3), square(3)]],
                "decoder_self_attention": [[[[1.0, 0.0], [0.5, 0.5]]] * 2],
                "cross_attention": [[cross, cross]]}
    return {"format": "minimt-attention", "version": 1, "model": "hand-model",
            "selection": {"types": ["encoder", "decoder", "cross"], "layers": None,
                          "heads": [0, 1]},
            "sentences": [sentence, {"source": "caf\u00e9", "error": "invalid UTF-8 at byte 0"},
                          {"source": "", "translation": "", "source_tokens": [],
                           "decoder_input_tokens": [], "output_tokens": []}]}


def write(target, name, data):
    path = HERE / "corpus" / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def sentencepiece_seeds():
    """Model files (first byte 0) and charsmaps for the hand model (first byte 1): the hand and
    shipped tokenizers, one trained per model type, a crafted charsmap and SentencePiece's
    nmt_nfkc one (tests/e2e/test_tokenizer_files.py writes the crafted ones)."""
    import io
    import sentencepiece
    sys.path.insert(0, str(HERE.parent / "e2e"))
    import test_tokenizer_files as spm

    write("sentencepiece", "model-hand", b"\0" + (HAND / "vocab.spm").read_bytes())
    write("sentencepiece", "model-shipped-source",
          b"\0" + (HERE.parent.parent / "models" / "en-fr" / "source.spm").read_bytes())
    text = ["the cat sees the dog", "le chat voit le chien", "a b c <tag> caf\u00e9"] * 20
    for kind, extra in (("unigram", {}), ("bpe", {}), ("word", {}),
                        ("char", {"user_defined_symbols": ["<tag>", "<t"], "byte_fallback": True})):
        out = io.BytesIO()
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(text), model_writer=out, vocab_size=300 if extra else 30,
            hard_vocab_limit=False, model_type=kind, normalization_rule_name="identity",
            minloglevel=2, **extra)
        write("sentencepiece", "model-" + kind, b"\0" + out.getvalue())
    write("sentencepiece", "charsmap-crafted", b"\1" + spm.charsmap(spm.RULES))
    write("sentencepiece", "charsmap-nested", b"\1" + spm.charsmap(spm.nested_rules(32)))
    nfkc = spm.trained("nmt_nfkc")
    charsmap = next(value for number, value in protobuf_fields(
        next(value for number, value in protobuf_fields(nfkc) if number == 3)) if number == 2)
    write("sentencepiece", "charsmap-nmt-nfkc", b"\1" + charsmap)


def protobuf_fields(data):
    """(number, payload) of each length-delimited field; other fields skipped."""
    at = 0
    while at < len(data):
        key, at = read_varint(data, at)
        if key & 7 == 0:
            _, at = read_varint(data, at)
        elif key & 7 in (1, 5):
            at += 8 if key & 7 == 1 else 4
        else:
            length, at = read_varint(data, at)
            yield key >> 3, data[at:at + length]
            at += length


def read_varint(data, at):
    value, shift = 0, 0
    while True:
        value |= (data[at] & 0x7F) << shift
        shift, at = shift + 7, at + 1
        if data[at - 1] < 0x80:
            return value, at


def main():
    config = json.loads((HAND / "config.json").read_text())
    weights = {k: (v["shape"], v["data"]) for k, v in config["weights"].items()}
    small = dict(list(weights.items())[:3])
    for dtype in ("F32", "F16", "BF16"):
        write("safetensors", f"small-{dtype.lower()}.safetensors", safetensors(small, dtype))
    write("safetensors", "hand-model.safetensors", safetensors(weights))

    write("config", "hand-model.json", (HAND / "config.json").read_text())
    external = dict(config, weights="model.safetensors")
    write("config", "external-weights.json", json.dumps(external, indent=1))
    sinusoidal = dict(external, positions="sinusoidal", norm_position="pre",
                      activation="relu", scale_embeddings=True)
    write("config", "sinusoidal.json", json.dumps(sinusoidal, indent=1))

    # model_dir: 4-byte config length, config.json, then model.safetensors.
    for name, cfg, blob in (("external", external, safetensors(weights)),
                            ("external-f16", external, safetensors(weights, "F16")),
                            ("inline", config, b"")):
        text = json.dumps(cfg).encode()
        write("model_dir", name, struct.pack("<I", len(text)) + text + blob)

    sentences = ["a b", "b a a", "", "   ", "a\tb\r", "\u00e9t\u00e9", "a b c d e f g h i",
                 "\xff", "a\nb\n\nc\r\n"]
    for i, s in enumerate(sentences):
        write("text", f"sentence-{i}", s.encode("utf-8", "surrogateescape")
              if s != "\xff" else b"\xffa")

    sentencepiece_seeds()

    if len(sys.argv) < 2:  # no minimt: one dump written here, in the same schema
        write("dump", "handmade.json", json.dumps(handmade_dump()))
        return
    minimt = sys.argv[1]
    for name, extra in (("all", []), ("cross-last-layer", ["--dump-types", "cross",
                                                           "--dump-layers", "-1"]),
                        ("heads", ["--dump-heads", "1"])):
        out = HERE / "corpus" / "dump" / f"{name}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([minimt, "translate", "-m", str(HAND), "--dump-attention", str(out),
                        *extra, "a b", "b a a", "\u00e9"], check=True,
                       stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
