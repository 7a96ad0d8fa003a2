#!/usr/bin/python3
"""docs/lesson.md stays true: its commands run again and print what it shows.

    test_lesson_doc.py --minimt build/minimt

In a scratch folder: each `$ build/minimt ...` line of the page's first console block runs
(build/minimt being the minimt under test) and prints the lines the page shows under it (the
page's size in KB aside); the page's Python snippets (check.py, lens.py) run on that dump with
this Python (it needs numpy) and print what the page shows under `$ python3 NAME` (the largest
|softmax - weight| only needs to stay under 1e-6). Ends with "N passed, N failed"; exit 1 on
failure.
"""
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

TALLY = support.Tally()
check = TALLY.check
PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "lesson.md")


def blocks(text, kind):
    return re.findall(r"```%s\n(.*?)```" % kind, text, re.S)


def commands(block):
    """[(command, [output lines])] of a console block."""
    out = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def without_size(lines):
    return [re.sub(r"\d+ KB$", "N KB", line) for line in lines]


def main():
    args = support.parser(__doc__).parse_args()
    minimt = support.minimt_from(args)
    with open(PAGE, encoding="utf-8") as f:
        text = f.read()
    consoles, snippets = blocks(text, "console"), blocks(text, "python")
    with support.scratch("lesson") as scratch:
        for command, shown in commands(consoles[0]):
            argv = shlex.split(command)
            argv[0] = minimt if argv[0] == "build/minimt" else argv[0]
            result = subprocess.run(argv, cwd=scratch, capture_output=True, text=True, timeout=300)
            got = (result.stdout + result.stderr).splitlines()
            check(result.returncode == 0 and without_size(got) == without_size(shown),
                  "%s prints what the page shows" % command, "%r, want %r" % (got, shown))
        names = re.findall(r"`(\w+\.py)`", text)
        for name, snippet in zip([n for n in names if n in ("check.py", "lens.py")], snippets):
            with open(os.path.join(scratch, name), "w", encoding="utf-8") as f:
                f.write(snippet)
        for block in consoles[1:]:
            for command, shown in commands(block):
                result = subprocess.run([sys.executable, command.split()[1]], cwd=scratch,
                                        capture_output=True, text=True, timeout=120)
                got = result.stdout.splitlines()
                largest = [float(m) for m in re.findall(r"= ([0-9.e+-]+)$", result.stdout, re.M)]
                strip = lambda lines: [re.sub(r"= [0-9.e+-]+$", "= X", x) for x in lines]  # noqa: E731
                check(result.returncode == 0 and strip(got) == strip(shown) and all(x <= 1e-6 for x in largest),
                      "%s prints what the page shows" % command, "%s%r, want %r" % (result.stderr[-300:], got, shown))
    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
