"""A copy of a model whose target vocabulary spells some pieces otherwise (a tab, an ESC, a
newline inside them), as a downloaded model could: the SentencePiece file is rewritten field
by field here (its protobuf wire format), the weights left as they are, so the model writes the
renamed pieces where it wrote the old ones."""

import json
import os
import shutil


def _varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if not byte & 0x80:
            return value, at


def _put_varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _fields(data):
    """(number, wire type, raw bytes of the whole field, payload) of each field."""
    at = 0
    while at < len(data):
        start = at
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, at = _varint(data, at)
            payload = None
        elif wire == 1:
            at += 8
            payload = None
        elif wire == 5:
            at += 4
            payload = None
        elif wire == 2:
            length, at = _varint(data, at)
            payload = data[at:at + length]
            at += length
        else:
            raise ValueError("wire type %d" % wire)
        yield number, wire, data[start:at], payload


def _field(number, payload):
    return _put_varint(number << 3 | 2) + _put_varint(len(payload)) + payload


def rename_pieces(spm, renames):
    """The bytes of SentencePiece model `spm` with each piece in `renames` (old text -> new
    text) spelled anew."""
    out = bytearray()
    for number, wire, raw, payload in _fields(spm):
        if number == 1 and wire == 2:
            inner = bytearray()
            for n, w, r, p in _fields(payload):
                if n == 1 and w == 2 and p.decode("utf-8") in renames:
                    inner += _field(1, renames[p.decode("utf-8")].encode("utf-8"))
                else:
                    inner += r
            out += _field(1, bytes(inner))
        else:
            out += raw
    return bytes(out)


def model_with_pieces(model, folder, renames):
    """`model` copied to `folder` with its target tokenizer's pieces renamed."""
    shutil.copytree(model, folder)
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        target = json.load(f)["tokenizer"]["target"]
    path = os.path.join(folder, target)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(rename_pieces(data, renames))
    return folder
