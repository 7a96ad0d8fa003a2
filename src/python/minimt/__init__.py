"""minimt from Python: the same engine and numbers as the command line, as numpy arrays.

    import minimt
    model = minimt.Model("en-fr")
    result = model.translate("I am a student.", dump_scores=True)
    result.text                       # 'Je suis étudiant.'
    result.cross_attention.shape      # (layers, heads, T, S)
    minimt.view(result)               # the attention page, inline in Jupyter

Every keyword option is the CLI's long option with '_' for '-' (beam_size is --beam-size) and
the server's JSON field of the same name; minimt.options() lists them. docs/python.md says
what each result holds and the arrays' axes.
"""

import html as _html
import json as _json
import os as _os
import warnings as _warnings

from . import _core


class Error(Exception):
    """Every error minimt reports; its message is the one the CLI prints."""


class OptionError(Error, ValueError):
    """A bad option or value; .field is the option at fault ("beam_size")."""

    def __init__(self, message, field=None):
        super().__init__(message)
        self.field = field


class ModelError(Error, OSError):
    """A model directory that cannot be loaded: the message names the file and the key."""


class FileError(Error, OSError):
    """A file minimt was asked to read or write and could not."""


class InputError(Error, ValueError):
    """Text that cannot be translated."""


_core._set_errors(Error, OptionError, ModelError, FileError, InputError)

_TRANSLATE_ONLY = "translation"


def options():
    """The options translate and score take: [{"name", "type", "translate", "score",
    "attention", "help"}], the table the CLI's flags and the server's fields come from."""
    return _core.options()


class Model:
    """A loaded model. name_or_path: a model directory, or a name looked up as the CLI looks
    it up (MINIMT_MODEL_PATH, ~/.local/share/minimt/models, the installed models); None: the
    CLI's default ($MINIMT_MODEL, else the shipped en-fr). compute_type: "float32", "int8",
    "bf16" or None (the file's). threads: worker threads per call (0: one per core)."""

    def __init__(self, name_or_path=None, compute_type=None, threads=1, batch_size=16):
        for name, value in (("threads", threads), ("batch_size", batch_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "threads" else 1):
                raise OptionError("%s: expected %s integer" % (name, "a non-negative" if name == "threads" else "a positive"), name)
        self._model = _core.load(name_or_path or "", compute_type or "", _module_dir())
        self.threads = threads
        self.batch_size = batch_size
        for text in self._model.warnings:
            _warnings.warn(text, stacklevel=2)

    @property
    def directory(self):
        return self._model.directory

    @property
    def compute_type(self):
        return self._model.compute_type

    @property
    def info(self):
        """What `minimt info` prints, as a dict; "file" and "task" hold lists."""
        result = {}
        for label, text in self._model.info():
            if label in ("file", "task"):
                result.setdefault(label + "s", []).append(text)
            else:
                result[label] = text
        return result

    def translate(self, texts, attention=False, **options):
        """Translates a str (one Result) or a list of str (a list of Results, one per text,
        in order; a text that fails has .error and is never dropped). attention=True, or any
        option of the dump (dump_scores, logit_lens, ...), gives each result its arrays."""
        lines, single = _lines(texts, "texts")
        return _results(self._run(False, lines, options, attention), single)

    def score(self, sources, targets, attention=False, **options):
        """The log-probability of each target given its source (teacher forcing): .score,
        .token_log_probs, and the attention of that target with attention=True."""
        source_lines, single = _lines(sources, "sources")
        target_lines, target_single = _lines(targets, "targets")
        if single != target_single or len(source_lines) != len(target_lines):
            raise OptionError("sources and targets: give as many of each (%d and %d)"
                              % (len(source_lines), len(target_lines)), "targets")
        for i, (s, t) in enumerate(zip(source_lines, target_lines)):
            if b"\t" in s or b"\t" in t:
                raise OptionError("item %d: a source or target with a tab cannot be scored "
                                  "(the tab separates them)" % i, "sources")
        lines = [s + b"\t" + t for s, t in zip(source_lines, target_lines)]
        return _results(self._run(True, lines, options, attention), single)

    def _run(self, scoring, lines, options, attention):
        if not isinstance(attention, bool):
            raise OptionError("attention: expected a boolean", "attention")
        records, sentences, warnings = _core.run(self._model, scoring, lines, options, attention,
                                                 self.threads, self.batch_size)
        for text in warnings:
            _warnings.warn(text, stacklevel=3)
        results = [Result(_json.loads(r)) for r in records]
        for result, sentence in zip(results, sentences):
            result._attention = sentence
        return results

    def __repr__(self):
        return "minimt.Model(%r, compute_type=%r)" % (self.directory, self.compute_type)


class Result:
    """One input's record, as `--format jsonl` writes it (.record), with its fields as
    attributes (.text, .tokens, .token_log_probs, .score, .error, ...), and with attention its
    arrays: each of the dump's keys as a float32 numpy array (.cross_attention[layer, head, T,
    S], .cross_scores, ...) and the tokens that label them (.source_tokens,
    .decoder_input_tokens, .output_tokens)."""

    def __init__(self, record, attention=None):
        self.record = record
        self._attention = attention
        self._arrays = None
        self._labels = None

    @property
    def text(self):
        return self.record.get(_TRANSLATE_ONLY, self.record.get("target"))

    @property
    def tokens(self):
        return self.record.get("tokens")

    @property
    def token_log_probs(self):
        return self.record.get("token_log_probs")

    @property
    def score(self):
        return self.record.get("score")

    @property
    def error(self):
        return self.record.get("error")

    @property
    def source(self):
        return self.record.get("source")

    @property
    def n_best(self):
        """With n_best: the hypotheses as Results, best first (each without attention)."""
        return [Result(h) for h in self.record.get("n_best", [])] or None

    @property
    def arrays(self):
        """The attention arrays by dump key; {} without attention."""
        if self._arrays is None:
            self._arrays = self._attention.arrays() if self._attention is not None else {}
        return self._arrays

    @property
    def labels(self):
        """The tokens, each key's layers and heads, masked heads, the logit lens."""
        if self._labels is None:
            self._labels = self._attention.labels() if self._attention is not None else {}
        return self._labels

    def to_dump(self):
        """The attention dump the CLI writes for this one line (--dump-attention), as text."""
        return to_dump([self])

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.arrays:
            return self.arrays[name]
        if name in self.labels:
            return self.labels[name]
        if name in self.record:
            return self.record[name]
        raise AttributeError("%s: not in this result (asked for with attention=True or the "
                             "dump option that records it?)" % name)

    def __repr__(self):
        if self.error is not None:
            return "minimt.Result(error=%r)" % self.error
        return "minimt.Result(%r, score=%r)" % (self.text, self.score)


def load_dump(path):
    """The results of a dump the CLI wrote (--dump-attention), read with the CLI's checks;
    each has the sentence's arrays and the record fields the dump holds."""
    results = []
    for sentence in _core.load_dump(_os.fspath(path)):
        record = {"source": sentence.source}
        if sentence.error:
            record["error"] = sentence.error
        else:
            record[_TRANSLATE_ONLY] = sentence.translation
            record["tokens"] = sentence.labels()["output_tokens"]
            if sentence.output_log_probs:
                record["token_log_probs"] = sentence.output_log_probs
        results.append(Result(record, sentence))
    return results


def to_dump(results):
    """The attention dump the CLI writes for these lines (--dump-attention), as text: the same
    bytes for the same lines, options and model path. Each result needs its attention."""
    if isinstance(results, Result):
        results = [results]
    sentences = [r._attention for r in results]
    if not sentences or any(s is None for s in sentences):
        raise OptionError("to_dump: every result needs its attention (attention=True)", "attention")
    return _core.dump_text(sentences)


class View:
    """minimt's attention page for some results: shown inline by Jupyter (_repr_html_: the
    page in a frame of its own, its document and script apart from the notebook's and from any
    other page's), written by .save(path) as `minimt view` writes it."""

    def __init__(self, results, title=""):
        if isinstance(results, Result):
            results = [results]
        sentences = [r._attention for r in results]
        if not sentences or any(s is None for s in sentences):
            raise OptionError("view: every result needs its attention (attention=True)", "attention")
        self.html = _core.page(sentences, title)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)

    def _repr_html_(self):
        return ('<iframe srcdoc="%s" style="width: 100%%; height: 640px; border: 0">'
                '</iframe>' % _html.escape(self.html, quote=True))


def view(results, title=""):
    """The attention page of a result or a list of results (see View)."""
    return View(results, title)


def _lines(texts, name):
    """The texts as UTF-8 bytes, and whether one str was given."""
    if isinstance(texts, str):
        return [_utf8(texts)], True
    if isinstance(texts, (list, tuple)) and all(isinstance(t, str) for t in texts):
        return [_utf8(t) for t in texts], False
    raise OptionError("%s: expected a str or a list of str" % name, name)


def _utf8(text):
    # A str from undecodable bytes (os.fsdecode, surrogateescape) goes back to those bytes, and a
    # lone surrogate to its bytes, so that the line fails as it fails from a file ("invalid
    # UTF-8 at byte N"), alone, in its result's .error; the other lines are translated.
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _results(results, single):
    return results[0] if single else results


def _module_dir():
    return _os.path.dirname(_os.path.abspath(_core.__file__))
