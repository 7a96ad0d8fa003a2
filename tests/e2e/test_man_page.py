#!/usr/bin/python3
"""The man page (generated at build time by packaging/cli-docs.sh) against the real --help.

Reads `minimt --help` for the subcommands and `minimt SUB --help` for each one's options and
arguments (its own parsing, not the generator's), renders the page with `man -l` and fails when
a subcommand or any of its options is missing from that subcommand's section, when man warns,
or when a section (exit statuses, environment, files, examples) or a variable is missing. A
copy of the page with one option removed must fail the same check (the check can fail).

    /usr/bin/python3 tests/e2e/test_man_page.py --minimt build/minimt build/cli-docs/minimt.1
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def help_text(minimt, *args):
    result = support.run([minimt, *args, "--help"], text=True)
    if result.status != 0:
        raise support.Mismatch("minimt %s --help: status %s" % (" ".join(args), result.status))
    return result.out


def subcommands(minimt):
    text = help_text(minimt)
    section = text.split("Subcommands:\n", 1)[1]
    return re.findall(r"^  ([a-z][a-z-]*)\s", section, re.M)


def options_of(minimt, sub):
    """Every option name (-m, --model) and positional of `minimt SUB --help`."""
    names = []
    text = help_text(minimt, sub)
    for block in re.split(r"^(?=\w+:$)", text, flags=re.M):
        if block.startswith("Options:"):
            for head in re.findall(r"^  (-\S+)", block, re.M):
                names += head.split(",")
        elif block.startswith("Positionals:"):
            names += re.findall(r"^  ([a-z]\w*) ", block, re.M)
    return names


def render(page):
    r = support.run(["man", "--warnings", "-l", page], env={"MANWIDTH": "100", "LC_ALL": "C.UTF-8"})
    text = support.run(["col", "-b"], input=r.out).out
    return r.status, text.decode(), r.err.decode()


def sections_of(text):
    """{subcommand: its text} from the COMMANDS section's '   minimt SUB ...' headings."""
    found = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^   minimt ([a-z-]+)\b", line)
        if m:
            current = m.group(1)
            found[current] = ""
        elif re.match(r"^\S", line):
            current = None
        elif current:
            found[current] += line + "\n"
    return found


def missing_options(minimt, text):
    """What the rendered page lacks: 'SUB' or 'SUB OPTION' for each subcommand and option (an
    entry of its own in the subcommand's section, not a mention in another's text)."""
    sections = sections_of(text)
    missing = []
    for sub in subcommands(minimt):
        if sub not in sections:
            missing.append(sub)
            continue
        heads = set()  # the names an entry starts with: "       -m, --model DIR|NAME"
        for m in re.finditer(r"^ {7}((?:-{1,2}[\w-]+|[a-z]\w*)(?:, -{1,2}[\w-]+)*)",
                             sections[sub], re.M):
            heads.update(m.group(1).split(", "))
        for name in options_of(minimt, sub):
            if name not in heads:
                missing.append("%s %s" % (sub, name))
    return missing


def main():
    parser = support.parser(__doc__)
    parser.add_argument("page", help="the man page (build/cli-docs/minimt.1)")
    args = parser.parse_args()
    minimt, page = support.minimt_from(args), args.page
    tally = support.Tally(verbose=True)
    check = tally.check

    status, text, err = render(page)
    check(status == 0 and err == "", "man -l renders the page without warnings (status %d, %r)"
          % (status, err[:200]))
    subs = subcommands(minimt)
    check(set(subs) >= {"translate", "score", "info", "tokenize", "view", "models"},
          "minimt --help lists the subcommands: %s" % subs)
    options = sum(len(options_of(minimt, s)) for s in subs)
    check(options > 80, "the subcommands' --help give %d options and arguments" % options)
    missing = missing_options(minimt, text)
    check(missing == [], "every subcommand and option of --help is in its section: missing %s"
          % missing)
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "ENVIRONMENT",
                    "FILES", "EXAMPLES", "SEE ALSO"):
        check(re.search(r"^%s$" % heading, text, re.M) is not None, "section %s" % heading)
    env = text.split("\nENVIRONMENT\n", 1)[-1].split("\nFILES\n", 1)[0]
    for variable in ("MINIMT_MODEL", "MINIMT_MODEL_PATH", "MINIMT_KERNELS", "OPENBLAS_CORETYPE",
                     "OPENBLAS_*"):
        check(re.search(r"^\s+%s$" % re.escape(variable), env, re.M) is not None
              or variable in env, "ENVIRONMENT describes %s" % variable)
    exits = text.split("\nEXIT STATUS\n", 1)[-1].split("\nENVIRONMENT\n", 1)[0]
    check(re.findall(r"^\s{7}(\d)\s", exits, re.M) == ["0", "1", "2"],
          "EXIT STATUS gives 0, 1 and 2: %s" % re.findall(r"^\s{7}(\d)\s", exits, re.M))
    version = support.run([minimt, "--version"], text=True).out.strip()
    check(re.search(r"^%s\s+MINIMT\(1\)$" % re.escape(version), text, re.M) is not None,
          "the footer names %s" % version)
    check("minimt translate --model my-model" in text.replace("\\", ""),
          "EXAMPLES show a model by name")
    # Text after a subcommand's options (heads' column legend) is in its section, line by line.
    sections = sections_of(text)
    for sub in subs:
        help_lines = help_text(minimt, sub).split("\n")
        last = max(i for i, line in enumerate(help_lines) if re.match(r"^\w+:$", line))
        after = help_lines[last:]
        words = lambda line: " ".join(line.split())  # noqa: E731 (col -b writes tabs)
        footer = [words(line) for line in after[after.index("") + 1:] if line.strip()] \
            if "" in after else []
        shown = [words(line) for line in sections.get(sub, "").splitlines()]
        lost = [line for line in footer if line not in shown]
        check(lost == [], "minimt %s --help's closing text is in its section: missing %r"
              % (sub, lost[:3]))
        if sub == "heads":
            check(any(line.startswith("d_logp/tok") for line in footer),
                  "heads --help ends with the column legend: %r" % footer[:2])

    # The check itself: the page without --beam-size's entry must be reported.
    with open(page, encoding="utf-8") as f:
        roff = f.read()
    doctored = re.sub(r"\.TP\n\\fB\\-\\-beam\\-size\\fR.*?\n(?=\.TP)", "", roff, flags=re.S)
    with tempfile.NamedTemporaryFile("w", suffix=".1", encoding="utf-8") as f:
        f.write(doctored)
        f.flush()
        missing = missing_options(minimt, render(f.name)[1])
    check(doctored != roff and missing == ["translate --beam-size"],
          "a page without translate's --beam-size fails the check: missing %s" % missing)

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
