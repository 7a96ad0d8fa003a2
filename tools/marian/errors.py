"""The converter's one error type: a message naming the file and the key or tensor."""


class ConversionError(Exception):
    """Raised for anything the converter refuses; str() is the whole message."""

    def __init__(self, where, what):
        super().__init__("%s: %s" % (where, what))
