"""Reads and writes SentencePiece model files (a ModelProto) without the protobuf package.

Debian's python3-sentencepiece ships sentencepiece_model_pb2, which needs python3-protobuf;
the wire format is simple enough to read here, so the converter needs neither. Only the
fields the converter changes are decoded (the pieces and a few TrainerSpec fields); every
other field is kept as its raw bytes and written back unchanged, in its original order.
"""
import struct

# protobuf wire types
VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
TYPE_NAMES = {NORMAL: "NORMAL", UNKNOWN: "UNKNOWN", CONTROL: "CONTROL",
              USER_DEFINED: "USER_DEFINED", UNUSED: "UNUSED", BYTE: "BYTE"}

# field numbers (src/sentencepiece_model.proto)
MODEL_PIECES, MODEL_TRAINER_SPEC = 1, 2
PIECE_TEXT, PIECE_SCORE, PIECE_TYPE = 1, 2, 3
TRAINER_MODEL_TYPE, TRAINER_VOCAB_SIZE = 3, 4
TRAINER_IDS = {"unk": 40, "bos": 41, "eos": 42, "pad": 43}
TRAINER_PIECES = {"unk": 45, "bos": 46, "eos": 47, "pad": 48}
TRAINER_UNK_SURFACE = 44
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


class ProtoError(ValueError):
    pass


def _varint(data, pos):
    value, shift = 0, 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ProtoError("truncated or overlong varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


# A model holds at most MAX_PIECES pieces (as minimt's tokenizer reads), plus a few other
# fields; a piece or the trainer spec at most MAX_FIELDS fields: a hostile file of many tiny
# fields cannot make millions of Python objects.
MAX_PIECES = 1 << 19
MAX_FIELDS = 4096


def parse_fields(data, limit=MAX_FIELDS):
    """bytes -> [(field number, wire type, value)]: ints for varints, bytes otherwise."""
    fields, pos = [], 0
    while pos < len(data):
        if len(fields) >= limit:
            raise ProtoError("more than %d fields (at byte %d)" % (limit, pos))
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, pos = _varint(data, pos)
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            value, pos = bytes(data[pos:pos + size]), pos + size
        elif wire == BYTES:
            size, pos = _varint(data, pos)
            value, pos = bytes(data[pos:pos + size]), pos + size
        else:
            raise ProtoError("unsupported wire type %d" % wire)
        if pos > len(data):
            raise ProtoError("field %d runs past the end" % number)
        fields.append((number, wire, value))
    return fields


def _encode_varint(value):
    if value < 0:
        value += 1 << 64  # int32/int64 negatives are written as 10-byte varints
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def serialize_fields(fields):
    out = bytearray()
    for number, wire, value in fields:
        out += _encode_varint(number << 3 | wire)
        if wire == VARINT:
            out += _encode_varint(value)
        elif wire == BYTES:
            out += _encode_varint(len(value)) + value
        else:
            out += value
    return bytes(out)


def _signed32(value):
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


class Piece:
    __slots__ = ("text", "score", "type", "extra")

    def __init__(self, text, score=0.0, type=NORMAL, extra=()):
        self.text, self.score, self.type, self.extra = text, score, type, list(extra)

    @classmethod
    def parse(cls, data):
        piece = cls("")
        for number, wire, value in parse_fields(data):
            if number == PIECE_TEXT and wire == BYTES:
                try:
                    piece.text = value.decode("utf-8")
                except UnicodeDecodeError:
                    raise ProtoError("a piece is not UTF-8: %r" % value[:40])
            elif number == PIECE_SCORE and wire == FIXED32:
                piece.score = struct.unpack("<f", value)[0]
            elif number == PIECE_TYPE and wire == VARINT:
                piece.type = value
            else:
                piece.extra.append((number, wire, value))
        return piece

    def serialize(self):
        fields = [(PIECE_TEXT, BYTES, self.text.encode("utf-8")),
                  (PIECE_SCORE, FIXED32, struct.pack("<f", self.score))]
        if self.type != NORMAL:
            fields.append((PIECE_TYPE, VARINT, self.type))
        return serialize_fields(fields + self.extra)


class SpmModel:
    """A SentencePiece ModelProto: its pieces, and the other fields as they were."""

    def __init__(self, data):
        self.pieces, self.rest = [], []
        for number, wire, value in parse_fields(data, MAX_PIECES + MAX_FIELDS):
            if number == MODEL_PIECES and wire == BYTES:
                self.pieces.append(Piece.parse(value))
            else:
                self.rest.append((number, wire, value))
        if not self.pieces:
            raise ProtoError("no pieces: not a SentencePiece model")
        if len(self.pieces) > MAX_PIECES:
            raise ProtoError("%d pieces, more than the %d minimt reads"
                             % (len(self.pieces), MAX_PIECES))

    @classmethod
    def load(cls, path):
        with open(path, "rb") as f:
            return cls(f.read())

    def _trainer(self):
        for number, wire, value in self.rest:
            if number == MODEL_TRAINER_SPEC and wire == BYTES:
                return parse_fields(value)
        return []

    def trainer_int(self, number, default):
        for n, wire, value in self._trainer():
            if n == number and wire == VARINT:
                return _signed32(value)
        return default

    def model_type(self):
        return MODEL_TYPES.get(self.trainer_int(TRAINER_MODEL_TYPE, 1), "unknown")

    def set_trainer(self, ints, strings):
        """Replace TrainerSpec fields: ints {number: int}, strings {number: str}."""
        trainer = [f for f in self._trainer() if f[0] not in ints and f[0] not in strings]
        trainer += [(n, VARINT, v) for n, v in sorted(ints.items())]
        trainer += [(n, BYTES, s.encode("utf-8")) for n, s in sorted(strings.items())]
        rest = [f for f in self.rest if f[0] != MODEL_TRAINER_SPEC]
        # protobuf readers accept fields in any order; keep the trainer spec where it was
        index = next((i for i, f in enumerate(self.rest) if f[0] == MODEL_TRAINER_SPEC), 0)
        rest.insert(index, (MODEL_TRAINER_SPEC, BYTES, serialize_fields(trainer)))
        self.rest = rest

    def serialize(self):
        return serialize_fields([(MODEL_PIECES, BYTES, p.serialize()) for p in self.pieces]
                                + self.rest)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.serialize())
