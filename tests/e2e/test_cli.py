#!/usr/bin/python3
"""The minimt command line: --help and --version, usage errors, and the hand-written model.

- `minimt --help`, `minimt --version` and the same after every subcommand exit 0 and print on
  stdout only;
- usage errors (no subcommand, an unknown subcommand or option, a bad option value) exit 2
  with a message on stderr and nothing on stdout;
- translate, tokenize and info on tests/fixtures/hand-model print what its expected.json
  (computed by the PyTorch reference) and config.json say, from arguments, stdin, --model and
  $MINIMT_MODEL.

    /usr/bin/python3 tests/e2e/test_cli.py --minimt build/minimt
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from support import HAND  # noqa: E402

SUBCOMMANDS = ("translate", "info", "tokenize", "view")


def run(minimt, *args, stdin=b"", env=None):
    """(status, stdout, stderr) of minimt ARGS, as text."""
    status, out, err = support.run([minimt, *args], input=stdin, env=env)
    return status, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def check_help_and_version(checker, minimt):
    version_line = None
    for prefix in [[]] + [[name] for name in SUBCOMMANDS]:
        label = " ".join(["minimt"] + prefix)
        for flag in ("--help", "-h"):
            status, out, err = run(minimt, *prefix, flag)
            checker.check(status == 0 and "Usage" in out and err == "",
                          "%s %s: status %d, Usage on stdout, nothing on stderr" % (label, flag,
                                                                                    status))
        status, out, err = run(minimt, *prefix, "--version")
        checker.check(status == 0 and re.fullmatch(r"minimt \d+\.\d+\.\d+\n", out) is not None
                      and err == "",
                      "%s --version: status %d, stdout %r, stderr %r" % (label, status, out, err))
        version_line = version_line or out
        checker.check(out == version_line, "%s --version prints the same version" % label)
    status, out, _ = run(minimt, "--help")
    for name in SUBCOMMANDS:
        checker.check(name in out, "minimt --help lists %s" % name)


def check_usage_errors(checker, minimt):
    # (arguments, a word stderr must contain)
    cases = [
        ([], "subcommand"),
        (["bogus"], "bogus"),
        (["transalte", "x"], "transalte"),
        (["--bogus"], "--bogus"),
        (["translate", "--bogus", "x"], "--bogus"),
        (["info", "--bogus"], "--bogus"),
        (["tokenize", "--bogus", "x"], "--bogus"),
        (["view", "--bogus", "x.json"], "--bogus"),
        (["view"], "dump"),  # its dump argument is required
        (["translate", "--model"], "--model"),  # an option without its value
        (["translate", "--max-length", "-3", "x"], "--max-length"),
        (["translate", "--max-length", "many", "x"], "--max-length"),
        (["tokenize", "--side", "middle", "x"], "--side"),
    ]
    for args, word in cases:
        status, out, err = run(minimt, *args)
        checker.check(status == 2 and out == "" and word in err,
                      "minimt %s: usage error, status %d (expected 2), stdout %r, stderr %r "
                      "(should name %r)" % (" ".join(args), status, out, err.strip()[:100], word))


def check_hand_model(checker, minimt):
    with open(os.path.join(HAND, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    with open(os.path.join(HAND, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    text = expected["source_text"]
    translation = expected["greedy"]["text"] + "\n"
    # The hand computation ends without eos after max_length tokens: the output was cut short.
    ids = expected["greedy"]["ids"]
    cut_warning = ("minimt: warning: line 1: the translation stopped at %d tokens (--max-length "
                   "256, max_positions %d) before its end (eos)\n"
                   % (len(ids), config["max_positions"])) if 3 not in ids else ""

    status, out, err = run(minimt, "translate", "--model", HAND, text)
    checker.check(status == 0 and out == translation and err == cut_warning,
                  "translate %r: status %d, %r (expected %r), stderr %r"
                  % (text, status, out, translation, err))
    status, out, err = run(minimt, "translate", "--model", HAND, stdin=(text + "\n").encode())
    checker.check(status == 0 and out == translation,
                  "translate from stdin: status %d, %r" % (status, out))
    status, out, err = run(minimt, "translate", text, env={"MINIMT_MODEL": HAND})
    checker.check(status == 0 and out == translation,
                  "translate with $MINIMT_MODEL: status %d, %r, stderr %r" % (status, out, err))
    status, out, err = run(minimt, "translate", "--model", HAND, text, "", text)
    checker.check(status == 0 and out == translation + "\n" + translation,
                  "translate three arguments, the middle one blank: %r" % out)

    pieces = expected["pieces"]
    ids = expected["source_ids"]
    status, out, err = run(minimt, "tokenize", "--model", HAND, text)
    line = " ".join(pieces[i] for i in ids) + "\t" + " ".join(map(str, ids)) + "\n"
    checker.check(status == 0 and out == line,
                  "tokenize %r: %r (expected %r)" % (text, out, line))
    status, out, err = run(minimt, "tokenize", "--side", "target", "--model", HAND, "ba")
    checker.check(status == 0 and out == "\u2581 b a\t6 5 4\n",
                  "tokenize --side target 'ba': %r" % out)

    parameters = 0
    for tensor in config["weights"].values():
        count = 1
        for dim in tensor["shape"]:
            count *= dim
        parameters += count
    status, out, err = run(minimt, "info", "--model", HAND)
    checker.check(status == 0 and re.search(r"^d_model\s+4$", out, re.M) is not None,
                  "info shows d_model 4")
    checker.check(re.search(r"^parameters\s+%d$" % parameters, out, re.M) is not None,
                  "info shows %d parameters (the sum of config.json's tensor sizes)" % parameters)
    checker.check("learned" in out and "gelu" in out and "post-norm" in out,
                  "info shows learned positions, gelu, post-norm")


def main():
    minimt = support.minimt_path(__doc__)
    checker = support.Tally(verbose=True)
    check_help_and_version(checker, minimt)
    check_usage_errors(checker, minimt)
    check_hand_model(checker, minimt)
    return checker.finish()


if __name__ == "__main__":
    sys.exit(main())
