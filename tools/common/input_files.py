"""Reading files from a folder somebody else wrote (a downloaded Hugging Face model), under the
rules minimt's C++ readers follow (docs/robustness.md, "The Hugging Face converter"):

- only regular files are read, and only inside the input folder: a symbolic link may point
  elsewhere in the folder, or into the blobs folder of a Hugging Face cache repository
  (.../models--NAME/blobs/, where the cache's snapshot folders and `--local-dir` downloads
  link their files); one that resolves anywhere else, or to a device, FIFO, socket, directory
  or /proc file, is refused naming the file and where it leads;
- every kind of file has a size cap (CAPS), checked on st_size before reading, and no more
  than cap + 1 bytes are ever read (a file that grows while read is refused);
- JSON is parsed strictly: at most MAX_JSON_DEPTH levels of nesting (checked before the
  parser runs), each key once in its object, no NaN/Infinity, no number past a float or
  with more than MAX_INT_DIGITS digits, no string that is not Unicode (lone surrogates).

Every refusal is an InputFileError, a ValueError whose str() is "PATH: what".
"""
import json
import os
import re
import stat

# kind -> (bytes, what the kind holds); docs/robustness.md lists them
CAPS = {
    "config": (8 << 20, "a JSON configuration file"),
    "vocab": (64 << 20, "a JSON vocabulary"),
    "tokenizer": (64 << 20, "a SentencePiece model"),
    "weights": (64 << 30, "a weights file"),
}
MAX_JSON_DEPTH = 32
MAX_INT_DIGITS = 40

KINDS = {stat.S_IFDIR: "a directory", stat.S_IFCHR: "a character device",
         stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
         stat.S_IFLNK: "a symbolic link"}


class InputFileError(ValueError):
    """A file the converter refuses; str() is "PATH: what"."""

    def __init__(self, path, what):
        super().__init__("%s: %s" % (path, what))
        self.path, self.what = path, what


def size_text(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return "%d %s" % (size >> shift, unit)
    return "%d bytes" % size


def _in_cache_blobs(real):
    """A file of a Hugging Face cache repository's blobs folder (.../models--NAME/blobs/F)."""
    parent = os.path.dirname(real)
    return os.path.basename(parent) == "blobs" and \
        os.path.basename(os.path.dirname(parent)).startswith(("models--", "datasets--"))


class InputFolder:
    """The folder the converter reads; every file comes through open() or read()."""

    def __init__(self, path):
        self.path = path
        try:
            info = os.stat(path)
        except OSError as e:
            raise InputFileError(path, "cannot be read (%s)" % (e.strerror or e))
        if not stat.S_ISDIR(info.st_mode):
            raise InputFileError(path, "is not a directory")
        self.real = os.path.realpath(path)

    def join(self, name):
        return os.path.join(self.path, name)

    def present(self, name):
        """True when NAME is in the folder as anything (a dangling link included): reading
        it then refuses what is not a regular file, instead of calling it missing."""
        return os.path.lexists(self.join(name))

    def inside(self, real):
        return os.path.commonpath([self.real, real]) == self.real or _in_cache_blobs(real)

    def open(self, name, kind):
        """-> (binary file object, size) of a regular file inside the folder, checked against
        the kind's cap; the caller closes it."""
        path = self.join(name)
        cap, what = CAPS[kind]
        if not os.path.lexists(path):
            raise InputFileError(path, "is missing")
        real = os.path.realpath(path)
        if not self.inside(real):
            raise InputFileError(path, "resolves outside the input folder (%s)" % real)
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW
                         | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            raise InputFileError(path, "cannot be opened (%s)" % (e.strerror or e))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise InputFileError(path, "is not a regular file (%s)"
                                     % KINDS.get(stat.S_IFMT(info.st_mode), "not a file"))
            if info.st_size > cap:
                raise InputFileError(path, "is %d bytes, more than the %d bytes (%s) the "
                                           "converter reads for %s"
                                     % (info.st_size, cap, size_text(cap), what))
            os.set_blocking(fd, True)
            f = os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
        return f, info.st_size

    def read(self, name, kind):
        """-> bytes of a regular file inside the folder, at most the kind's cap."""
        path = self.join(name)
        cap, what = CAPS[kind]
        f, _ = self.open(name, kind)
        with f:
            try:
                data = f.read(cap + 1)
            except OSError as e:
                raise InputFileError(path, "cannot be read (%s)" % (e.strerror or e))
        if len(data) > cap:
            raise InputFileError(path, "grew past the %d bytes (%s) the converter reads for %s "
                                       "while it was read" % (cap, size_text(cap), what))
        return data


# ----------------------------------------------------------------------------- JSON

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_KEY = re.compile(rb'"((?:[^"\\]|\\.){0,60})[^"]*"\s*:[\s\[{]*$', re.S)


def _depth_check(path, data):
    """Refuses nesting past MAX_JSON_DEPTH before the parser runs (it recurses)."""
    import numpy as np
    blanked = _STRING.sub(lambda m: b'"' + b" " * (len(m.group()) - 2) + b'"', data)
    codes = np.frombuffer(blanked, dtype=np.uint8)
    steps = ((codes == ord("[")) | (codes == ord("{"))).astype(np.int32) - \
        ((codes == ord("]")) | (codes == ord("}"))).astype(np.int32)
    if not len(steps):
        return
    depth = np.cumsum(steps)
    if depth.max() > MAX_JSON_DEPTH:
        at = int(np.argmax(depth > MAX_JSON_DEPTH))
        key = _KEY.search(data[max(0, at - 200):at]) if at else None
        named = "key '%s' " % key.group(1).decode("utf-8", "replace") if key else ""
        raise InputFileError(path, "%snests arrays and objects more than %d deep (at byte %d)"
                             % (named, MAX_JSON_DEPTH, at))


def _strings_check(path, value, where):
    """Refuses strings Python can hold but not write as UTF-8 (lone surrogates)."""
    stack = [(value, where)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise InputFileError(path, "%sholds a string that is not Unicode (a lone "
                                           "surrogate): %s" % (where, ascii(value)[:80]))
        elif isinstance(value, dict):
            for key, item in value.items():
                stack.append((key, where))
                stack.append((item, "key %s " % ascii(key)[:80]))
        elif isinstance(value, list):
            stack.extend((item, where) for item in value)


def parse_json(path, data):
    """Strict JSON of bytes read from `path` -> the value."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(path, "is not UTF-8 (byte %d)" % e.start)
    _depth_check(path, data)

    def pairs(items):
        seen = {}
        for key, value in items:
            if key in seen:
                raise InputFileError(path, "key %s appears twice in one object" % ascii(key)[:80])
            seen[key] = value
        return seen

    def constant(name):
        raise InputFileError(path, "holds %s, which is not JSON" % name)

    def integer(digits):
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise InputFileError(path, "holds an integer of %d digits (at most %d are read)"
                                 % (len(digits.lstrip("-")), MAX_INT_DIGITS))
        return int(digits)

    def number(digits):
        value = float(digits)
        if value in (float("inf"), float("-inf")):
            raise InputFileError(path, "holds the number %s, past the float range"
                                 % digits[:40])
        return value

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant,
                           parse_int=integer, parse_float=number)
    except json.JSONDecodeError as e:
        raise InputFileError(path, "is not valid JSON (%s, character %d)" % (e.msg, e.pos))
    except RecursionError:
        raise InputFileError(path, "nests arrays and objects more than %d deep"
                             % MAX_JSON_DEPTH)
    _strings_check(path, value, "")
    return value
