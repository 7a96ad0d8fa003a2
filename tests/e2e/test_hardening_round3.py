#!/usr/bin/python3
"""What round 2 of hardening left (issue 35, class 5), by class, on the shipped model:

  - text the model wrote reaches standard output made visible in every plain-text format
    (translations, --align, --n-best, tokenize, vocab, heads): a model whose target vocabulary spells
    pieces with ESC, tab, newline, DEL and a C1 control (renamed_pieces.py) prints them as
    docs/robustness.md's rule says (worked out here from the JSON Lines record's bytes), never
    raw, each line keeping its columns, into a pipe and on a terminal alike;
  - a prefix that cannot be forced as written is refused, naming --prefix (exit 2) or, from
    --prefix-column, the line (exit 1, the other lines translated as when alone): words the
    target vocabulary cannot spell, invalid UTF-8, more pieces than max_positions allows;
  - every signal that ends a run by default and can be caught (SIGQUIT, SIGHUP, SIGUSR1,
    SIGALRM, SIGXCPU ...) removes the temporary -o file and leaves the old file whole.

  test_hardening_round3.py --minimt MINIMT_BINARY

Ends with "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import re
import resource
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
import renamed_pieces  # noqa: E402
from test_batch_progress import run_on_terminal  # noqa: E402
from test_files_and_resources import check_killed  # noqa: E402

SENTENCE = "The black cat sees the small dog."
# Pieces the shipped model writes for SENTENCE, spelled with what a terminal acts on.
RENAMES = {"\u2581chat": "\u2581ch\x1b[31mat\t", "\u2581noir": "\u2581no\nir",
           "\u2581petit": "\u2581pe\u009bti\x7ft"}


def visible(text):
    """docs/robustness.md, 'What reaches a terminal': tab, newline and carriage return as \\t,
    \\n, \\r; other C0 controls and DEL as \\xHH; C1 controls as \\u0080 to \\u009F."""
    out = []
    for c in text:
        o = ord(c)
        if c in "\t\n\r":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r"}[c])
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02X" % o)
        elif 0x80 <= o <= 0x9F:
            out.append("\\u%04X" % o)
        else:
            out.append(c)
    return "".join(out)


def check_model_text(tally, minimt, model):
    check = tally.check
    t = [minimt, "translate", "-m", model, "-q"]
    status, out, err = support.run(t + ["--format", "jsonl", SENTENCE])
    record = json.loads(out)
    raw = record["translation"]
    spelled = "".join(record["tokens"][:-1]).replace("\u2581", " ").strip()
    check(status == 0 and raw == spelled and "\x1b" in raw and "\t" in raw and "\n" in raw,
          "the renamed model writes ESC, tab and newline in its translation", repr(raw))
    status, out, err = support.run(t + [SENTENCE])
    check(out == (visible(raw) + "\n").encode(), "text: the translation made visible, one line",
          "%r\nwant %r" % (out, visible(raw)))
    for name, args, columns in (("--align", ["--align"], 2),
                                ("--n-best", ["--beam-size", "2", "--n-best", "2"], 4),
                                ("--n-best --align", ["--beam-size", "2", "--n-best", "2",
                                                      "--align"], 5)):
        status, out, err = support.run(t + args + [SENTENCE, "I am a student."])
        lines = out.decode().split("\n")[:-1]
        check(status == 0 and lines and all(len(l.split("\t")) == columns for l in lines) and
              b"\x1b" not in out and visible(raw) in out.decode(),
              "%s: %d columns a line, the translation made visible" % (name, columns), repr(out))
    status, on_terminal = run_on_terminal(t + [SENTENCE])
    check(on_terminal.replace(b"\r\n", b"\n") == (visible(raw) + "\n").encode(),
          "on a terminal: the same visible line", repr(on_terminal))
    status, out, err = support.run([minimt, "tokenize", "-m", model, "--side", "target", raw])
    check(status == 0 and b"\x1b" not in out and out.count(b"\n") == 1,
          "tokenize --side target: the pieces made visible, one line", repr(out))
    status, out, err = support.run([minimt, "vocab", "-m", model, "--side", "target"])
    check(status == 0 and b"\x1b" not in out and "\u2581ch\\x1B[31mat\\t" in out.decode(),
          "vocab --side target: the pieces made visible", repr(out[:200]))


def check_heads_text(tally, minimt, model, folder):
    """heads' text report lists the translations an ablation changes: made visible too."""
    check = tally.check
    pair = os.path.join(folder, "pair.tsv")
    with open(pair, "w", encoding="utf-8") as f:  # encoder:2:0 changes this one's translation
        f.write("the small black goats do not find an old magazine\t"
                "les petites ch\u00e8vres noires ne trouvent pas de vieux magazine\n")
    status, out, err = support.run([minimt, "heads", "-m", model, "-i", pair, "--translate",
                                    "-q"])
    changed = [l for l in out.decode().split("\n") if l.startswith("  line 1: ")]
    check(status == 0 and changed and b"\x1b" not in out and
          all(l.count("\u2581") == 0 and l.count("l\\x1B[1mes\\t") == 2 for l in changed),
          "heads: the changed translations made visible", repr(out[-400:]))


def check_prefix(tally, model, minimt):
    check = tally.check
    with open(os.path.join(model, "config.json"), encoding="utf-8") as f:
        max_positions = json.load(f)["max_positions"]
    t = [minimt, "translate", "-m", model, "-q"]
    hint = "\nRun 'minimt translate --help' for usage.\n"
    too_long = " ".join(["le chat"] * max_positions)
    for name, prefix, message in (
            ("a word the target vocabulary cannot spell", "Le \u2603 chat".encode(),
             "--prefix: the target vocabulary cannot spell '\u2603' (forced, it would be <unk>); "
             "see minimt vocab --side target"),
            ("invalid UTF-8", b"Le \xff chat", "--prefix: invalid UTF-8 at byte 3"),
            ("more pieces than max_positions", too_long.encode(),
             r"--prefix: it is \d+ pieces long; the model writes at most %d \(max_positions\), so a"
             r" prefix may hold %d" % (max_positions, max_positions - 1))):
        status, out, err = support.run(t + [b"--prefix", prefix, SENTENCE])
        text = err.decode(errors="replace")
        want = "minimt: error: " + message + hint
        matched = re.fullmatch(message, text[len("minimt: error: "):-len(hint)]) if "\\d" in message \
            else text == want
        check(status == 2 and out == b"" and matched, "--prefix, %s: refused" % name,
              "%r %r" % (status, text))
    lines = [b"I am a student.\tJe", ("The dog.\t" + too_long).encode(),
             "The cat.\tLe \u2603".encode(), b"The cat.\tLe \xff", b"The black cat.\tLe"]
    status, out, err = support.run(t + ["--prefix-column"], input=b"\n".join(lines) + b"\n")
    got = out.split(b"\n")
    alone = [support.run(t + ["--prefix-column"], input=lines[i] + b"\n").out for i in (0, 4)]
    text = err.decode(errors="replace")
    check(status == 1 and len(got) == 6 and got[0] + b"\n" == alone[0] and
          got[4] + b"\n" == alone[1] and got[1] == got[2] == got[3] == b"",
          "--prefix-column: the good lines translated as alone, the bad ones empty",
          "%r %r" % (out, alone))
    for line, words in ((2, "line 2: the prefix after the tab: it is"),
                        (3, "line 3: the prefix after the tab: the target vocabulary cannot "
                            "spell '\u2603'"),
                        (4, "line 4: invalid UTF-8 at byte")):
        check("minimt: error: " + words in text, "--prefix-column: line %d named" % line, text)


def check_signals(tally, minimt, model, folder):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGQUIT's core dump, in no file
    t = [minimt, "translate", "-m", model, "-q"]
    for sig in (signal.SIGQUIT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM,
                signal.SIGXCPU, signal.SIGTERM):
        own = os.path.join(folder, sig.name)  # what one run leaves is not blamed on the next
        os.mkdir(own)
        check_killed(tally, t, own, sig)


def main():
    minimt = support.minimt_path(__doc__)
    tally = support.Tally()
    with support.scratch("round3") as work:
        model = renamed_pieces.model_with_pieces(support.SHIPPED, os.path.join(work, "m"),
                                                 RENAMES)
        check_model_text(tally, minimt, model)
        check_heads_text(tally, minimt, renamed_pieces.model_with_pieces(
            support.SHIPPED, os.path.join(work, "m2"), {"\u2581les": "\u2581l\x1b[1mes\t"}),
            work)
        check_prefix(tally, support.SHIPPED, minimt)
        signals = os.path.join(work, "signals")
        os.mkdir(signals)
        check_signals(tally, minimt, support.SHIPPED, signals)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
