#!/usr/bin/python3
"""The command line under hostile surroundings, by class of issue 24 (round 2): output streams
(closed descriptors, two outputs on one stream, write failures, empty paths), numbers from the
command line, what reaches a terminal, input lines without bounds, signals and file-size limits,
and the limits docs/robustness.md states.
Every refusal is checked for its exit status, its exact message, an empty standard output and a
working folder left as it was.

  test_command_line_hardening.py --minimt MINIMT_BINARY

Ends with "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from support import TIMEOUT, Tally, minimt_path, random_model, scratch  # noqa: E402
from test_batch_progress import run_on_terminal

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED = os.path.join(ROOT, "models", "en-fr")


def usage(subcommand):
    """The hint after a usage error: the subcommand's own --help."""
    return f"\nRun 'minimt {subcommand} --help' for usage.\n"
FULL = "minimt: error: cannot write standard output: No space left on device\n"


def run(command, cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, preexec=None, env=None,
        input_bytes=None):
    if input_bytes is not None:
        stdin = None
    result = subprocess.run(command, cwd=cwd, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                            input=input_bytes, timeout=TIMEOUT, preexec_fn=preexec, env=env)
    return result.returncode, result.stdout or b"", result.stderr


def snapshot(directory):
    """Every file under a directory and its contents: what a refused run must keep."""
    state = {}
    for base, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = os.path.join(base, name)
            state[os.path.relpath(path, directory)] = (
                open(path, "rb").read() if os.path.isfile(path) else "dir")
    return state


class Cases:
    """Runs cases in one folder and checks status, message, stdout and the folder."""

    def __init__(self, tally, folder):
        self.tally, self.folder = tally, folder

    def refused(self, name, command, status, message, **options):
        before = snapshot(self.folder)
        got_status, out, err = run(command, self.folder, **options)
        after = snapshot(self.folder)
        t = self.tally
        t.check(got_status == status, f"{name}: exit status {status}", f"got {got_status}")
        t.check(err.decode(errors="replace") == message, f"{name}: message",
                f"want {message!r}\n      got  {err.decode(errors='replace')!r}")
        t.check(out == b"", f"{name}: nothing on stdout", f"got {out[:200]!r}")
        t.check(before == after, f"{name}: no file created, changed or removed",
                f"new or changed: {sorted(set(after.items()) ^ set(before.items()))[:5]!r:.300}")


def closed(*descriptors):
    return lambda: [os.close(fd) for fd in descriptors]


def check_streams(tally, minimt, model, folder):
    """Class 1: descriptors held, one output per stream, write failures, empty paths."""
    cases = Cases(tally, folder)
    t = [minimt, "translate", "-m", model]
    lines = b"the cat sat\nhello there\nthe house is big\n"
    with open(os.path.join(folder, "s.txt"), "wb") as f:
        f.write(lines)
    # The reference: the same run with every descriptor open.
    status, _, err = run(t + ["-i", "s.txt", "-o", "ref.txt"], folder)
    reference = open(os.path.join(folder, "ref.txt"), "rb").read()
    tally.check(status == 0 and b"minimt: warning" in err,
                "the reference run warns (a random model stops at the length limit)", repr(err))
    # Lines from stdin, so that -o is the first file opened: it would take descriptor 2.
    with open(os.path.join(folder, "s.txt"), "rb") as lines_in:
        status, _, _ = run(t + ["-o", "closed.txt"], folder, stdin=lines_in, preexec=closed(2))
    written = open(os.path.join(folder, "closed.txt"), "rb").read()
    tally.check(status == 0, "2>&-: exit status 0", f"got {status}")
    tally.check(written == reference, "2>&-: -o holds the translations and no warning",
                f"{written[:300]!r}")
    for name in ("ref.txt", "closed.txt"):
        os.unlink(os.path.join(folder, name))

    # Standard output is one output: a second one on it is refused before anything is written.
    err = lambda text: f"minimt: error: {text}\n"
    refused = lambda text: f"minimt: error: {text}{usage('translate')}"
    same = "are the same stream: two outputs cannot share one"
    cases.refused("--dump-attention /dev/stdout beside the translations",
                  t + ["-i", "s.txt", "--dump-attention", "/dev/stdout"], 2,
                  refused(f"--dump-attention /dev/stdout and standard output {same}"))
    cases.refused("--dump-attention - beside the translations",
                  t + ["-i", "s.txt", "--dump-attention", "-"], 2,
                  refused(f"--dump-attention - and standard output {same}"))
    cases.refused("--dump-attention - beside -o -",
                  t + ["-i", "s.txt", "-o", "-", "--dump-attention", "-"], 2,
                  refused(f"--dump-attention - and -o - {same}"))
    cases.refused("--view - beside the translations", t + ["-i", "s.txt", "--view", "-"], 2,
                  refused(f"--view - and standard output {same}"))
    cases.refused("--view /proc/self/fd/1 beside the translations",
                  t + ["-i", "s.txt", "--view", "/proc/self/fd/1"], 2,
                  refused(f"--view /proc/self/fd/1 and standard output {same}"))
    # --dump-attention - with -o FILE: the dump on stdout, exactly as written to a file.
    run(t + ["-q", "-i", "s.txt", "-o", "a.txt", "--dump-attention", "d.json"], folder)
    dump = open(os.path.join(folder, "d.json"), "rb").read()
    status, out, _ = run(t + ["-q", "-i", "s.txt", "-o", "b.txt", "--dump-attention", "-"], folder)
    tally.check(status == 0 and out == dump, "--dump-attention - -o FILE: the dump on stdout",
                f"status {status}, {len(out)} bytes against {len(dump)}")
    tally.check(not os.path.lexists(os.path.join(folder, "-")),
                "--dump-attention -: no file named -")
    tally.check(open(os.path.join(folder, "b.txt"), "rb").read() ==
                open(os.path.join(folder, "a.txt"), "rb").read(),
                "--dump-attention - -o FILE: -o holds the translations")
    try:
        parsed = json.loads(out)
    except ValueError:
        parsed = None
    tally.check(isinstance(parsed, dict), "--dump-attention -: stdout is one JSON document")
    for name in ("a.txt", "b.txt", "d.json"):
        os.unlink(os.path.join(folder, name))

    # Every write failure is an error.
    # A search path holding the one model (the shared random models' folder holds many).
    search = os.path.join(folder, "search")
    os.mkdir(search)
    os.symlink(model, os.path.join(search, "batch"))
    with open("/dev/full", "wb") as full:
        for name, command in (("tokenize", [minimt, "tokenize", "-m", model, "the cat"]),
                              ("info", [minimt, "info", "-m", model]),
                              ("vocab", [minimt, "vocab", "-m", model]),
                              ("models", [minimt, "models"])):
            env = dict(os.environ, MINIMT_MODEL_PATH=search)
            cases.refused(f"{name} >/dev/full", command, 1, FULL, stdout=full, env=env)
        cases.refused("translate >/dev/full", t + ["-q", "the cat"], 1,
                      err("cannot write stdout: No space left on device"), stdout=full)
    # A closed stdout stays closed: writing to it fails, no file takes its place.
    cases.refused("info >&-", [minimt, "info", "-m", model], 1,
                  err("cannot write standard output: Bad file descriptor"), preexec=closed(1))
    cases.refused("translate >&-", t + ["-q", "the cat"], 1,
                  err("cannot write stdout: Bad file descriptor"), preexec=closed(1))
    cases.refused("tokenize <&-", [minimt, "tokenize", "-m", model], 1,
                  err("cannot read stdin: Bad file descriptor"), preexec=closed(0))

    # An empty path names no file.
    empty = "an empty path names no file"
    for name, command in (
            ("--model", [minimt, "translate", "--model", "", "x"]),
            ("--output", t + ["-o", "", "x"]),
            ("--input", t + ["-i", ""]),
            ("--view", t + ["--view", "", "x"]),
            ("--dump-attention", t + ["--dump-attention", "", "x"]),
            ("--model", [minimt, "info", "--model", ""]),
            ("--output", [minimt, "heads", "-m", model, "-o", ""]),
            ("dumps", [minimt, "view", ""]),
            ("--svg", [minimt, "view", "d.json", "--svg", ""]),
            ("out", [minimt, "convert", model, ""])):
        cases.refused(f"{' '.join(command[1:2] + [name])} \"\"", command, 2,
                      f"minimt: {name}: {empty}{usage(command[1])}")


def check_numbers(tally, minimt, model, folder):
    """Class 2: every numeric option refuses NaN, infinities, overflow and trailing text."""
    cases = Cases(tally, folder)
    t = [minimt, "translate", "-m", model, "-q"]
    not_number = lambda v: f"'{v}' is not a number"
    not_whole = lambda v: f"'{v}' is not a whole number"
    too_far = lambda v: f"{v} is past the range of numbers minimt reads"
    floats = {"nan": not_number, "NaN": not_number, "inf": not_number, "-inf": not_number,
              "infinity": not_number, "-nan": not_number, "1e999": too_far, "-1e999": too_far,
              "1e39": too_far, "0.5x": not_number,
              " 0.5": not_number, "0x1p-1": not_number, "": not_number, "0.5 ": not_number}
    ints = {"nan": not_whole, "inf": not_whole, "99999999999999999999": too_far, "5x": not_whole,
            " 5": not_whole, "1.5": not_whole, "1e3": not_whole, "0x10": not_whole, "": not_whole}
    options = [("--length-penalty", [], floats), ("--temperature", ["--sample"], floats),
               ("--top-p", ["--sample"], floats), ("--beam-size", [], ints),
               ("--n-best", [], ints), ("--max-length", [], ints), ("--alternatives", [], ints),
               ("--threads", [], ints), ("--batch-size", [], ints), ("--top-k", ["--sample"], ints),
               ("--align-layer", ["--align"], ints)]
    for option, needs, values in options:
        for value, problem in values.items():
            cases.refused(f"{option} {value!r}", t + needs + [option, value, "x"], 2,
                          f"minimt: {option}: {problem(value)}{usage('translate')}")
    for option, low, high, value in (("--length-penalty", "-10", "10", "10.5"),
                                     ("--beam-size", "1", "256", "3000000000"),
                                     ("--top-p", "1e-06", "1", "-0")):
        needs = ["--sample"] if option == "--top-p" else []
        cases.refused(f"{option} {value} out of range", t + needs + [option, value, "x"], 2,
                      f"minimt: {option}: {value} is not in [{low}, {high}]{usage('translate')}")
    heads = [minimt, "heads", "-m", model, "-q"]
    for option, value, problem in (("--threads", "nan", not_whole),
                                   ("--batch-size", "4x", not_whole)):
        cases.refused(f"heads {option} {value}", heads + [option, value], 2,
                      f"minimt: {option}: {problem(value)}{usage('heads')}")
    seed = t + ["--sample"]
    for value, problem in (("18446744073709551616", too_far("18446744073709551616")),
                           ("-1", "'-1' is not a whole number from 0"),
                           ("+1", "'+1' is not a whole number from 0"),
                           ("1e3", not_whole("1e3"))):
        cases.refused(f"--seed {value}", seed + ["--seed", value, "x"], 2,
                      f"minimt: --seed: {problem}{usage('translate')}")
    # The largest seed is a seed; so are the range ends.
    for args in (["--sample", "--seed", "18446744073709551615"], ["--length-penalty", "-10"],
                 ["--sample", "--top-p", "1", "--temperature", "1e-3"]):
        status, out, err = run(t + args + ["the cat"], folder)
        tally.check(status == 0 and out.count(b"\n") == 1, f"{' '.join(args)}: accepted",
                    f"status {status}: {err!r}")


def check_terminal(tally, minimt, model, folder):
    """Class 4: names minimt did not write are printed with their controls made visible."""
    cases = Cases(tally, folder)
    # A folder name with an OSC title, a screen clear, a C1 CSI and a byte that is not UTF-8.
    evil_bytes = b"m\x1b]0;owned\x07\x1b[2J\xc2\x9b\xff"
    shown = "m\\x1B]0;owned\\x07\\x1B[2J\\u009B\\xFF"
    models = os.path.join(folder, "models")
    os.makedirs(models)
    evil_dir = os.path.join(models.encode(), evil_bytes)
    subprocess.run(["cp", "-r", model, evil_dir], check=True)
    cases.refused("-o in a missing folder with controls in its name",
                  [minimt, "translate", "-m", model, "-q", "-o", b"nodir\x1b[2J/x.txt", "x"], 1,
                  "minimt: error: cannot write nodir\\x1B[2J/x.txt: No such file or directory\n")
    cases.refused("-i with controls in its name",
                  [minimt, "translate", "-m", model, "-q", "-i", b"in\x1b[31m\r.txt"], 1,
                  "minimt: error: cannot read in\\x1B[31m\\r.txt: No such file or directory\n")
    status, out, err = run([minimt, "info", "-m", evil_dir], folder)
    first = out.split(b"\n")[0].decode(errors="replace")
    tally.check(status == 0 and first == f"model          {models}/{shown}",
                "info: the model folder's name made visible", repr(first))
    tally.check(b"\x1b" not in out and b"\x07" not in out, "info: no ESC or BEL on stdout")
    env = dict(os.environ, MINIMT_MODEL_PATH=models)
    status, out, err = run([minimt, "models", "--names"], folder, env=env)
    tally.check(status == 0 and out.decode(errors="replace").split("\n")[0] == shown,
                "models --names: made visible", repr(out))
    status, out, err = run([minimt, "models"], folder, env=env)
    listed = out.decode(errors="replace")
    tally.check(status == 0 and f"{models}/{shown}" in listed and b"\x1b" not in out,
                "models: the folder made visible", repr(out[:300]))
    # Translations keep their bytes into files and pipes, and are made visible on a terminal.
    text = "the cat\x1b[2J"
    status, piped, _ = run([minimt, "translate", "-m", SHIPPED, "-q", text], folder)
    status_terminal, on_terminal = run_on_terminal(
        [minimt, "translate", "-m", SHIPPED, "-q", text])
    on_terminal = on_terminal.replace(b"\r\n", b"\n")  # the terminal's own line ends
    tally.check(status == 0 and status_terminal == 0 and on_terminal == piped,
                "translate: ordinary text on a terminal is byte for byte what a pipe gets",
                f"{on_terminal!r} against {piped!r}")


def check_line_bounds(tally, minimt, folder):
    """Class 5: tokenize reads lines as translate does: 64 KiB kept of a longer line, said."""
    line = ("the cat sat on the mat " * 10000).encode()  # 230,000 bytes
    status, out, err = run([minimt, "tokenize", "-m", SHIPPED], folder,
                           input_bytes=b"hello\n" + line + b"\nthe end\n")
    kept = line[:65536].decode()
    _, alone, _ = run([minimt, "tokenize", "-m", SHIPPED, "hello", kept, "the end"], folder)
    tally.check(status == 0, "tokenize a 230,000-byte line: exit status 0", f"got {status}")
    tally.check(err == b"minimt: warning: line 2 is longer than 65536 bytes: its first 65536 "
                       b"bytes were tokenized\n", "tokenize a long line: the warning names it",
                repr(err))
    tally.check(out == alone, "tokenize a long line: its first 64 KiB, the other lines as alone")
    status, out, err = run([minimt, "tokenize", "-m", SHIPPED, "--side", "target", "x" * 70000],
                           folder)
    tally.check(err == b"minimt: warning: text 1 is longer than 65536 bytes: its first 65536 "
                       b"bytes were tokenized\n", "tokenize --side target: a long text is cut",
                repr(err))
    # Memory: 100 MB of NUL bytes without a newline cost what a short line costs.
    def nul_bytes_peak_kb(megabytes):
        process = subprocess.Popen([minimt, "tokenize", "-m", SHIPPED], cwd=folder,
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        block = b"\0" * (1 << 20)
        for _ in range(megabytes):
            process.stdin.write(block)
        process.stdin.close()
        _, status, usage = os.wait4(process.pid, 0)
        return os.waitstatus_to_exitcode(status), usage.ru_maxrss
    status_small, small = nul_bytes_peak_kb(1)
    status_big, big = nul_bytes_peak_kb(100)
    tally.check(status_small == 0 and status_big == 0 and big - small < 30 * 1024,
                "tokenize < 100 MB of NUL bytes: memory as for 1 MB",
                f"status {status_big}, {big} KB against {small} KB")


def check_signals(tally, minimt, model, folder):
    """Class 6: ulimit -f and interrupts leave no temporary file and the old output whole."""
    cases = Cases(tally, folder)
    with open(os.path.join(folder, "many.txt"), "wb") as f:
        f.write(b"the cat sat on the mat\n" * 200)
    with open(os.path.join(folder, "out.txt"), "wb") as f:
        f.write(b"the old output\n")
    limit = lambda size: lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    # SIGXFSZ left at its default, as a shell's ulimit -f leaves it.
    cases.refused("ulimit -f: -o past the limit",
                  [minimt, "translate", "-m", model, "-q", "-i", "many.txt", "-o", "out.txt"], 1,
                  "minimt: error: cannot write out.txt: File too large\n", preexec=limit(4096))
    cases.refused("ulimit -f: --dump-attention past the limit",
                  [minimt, "translate", "-m", model, "-q", "-i", "many.txt", "-o", "out.txt",
                   "--dump-attention", "d.json"], 1,
                  "minimt: error: cannot write d.json\n", preexec=limit(65536))
    # An interrupt during convert: no .partial folder is left. Converting the shipped model
    # takes a fraction of a second: SIGINT goes as soon as the folder appears (tried until one
    # lands before the end).
    landed = False
    for attempt in range(20):
        before = snapshot(folder)
        process = subprocess.Popen([minimt, "convert", SHIPPED, "conv", "--compute-type", "int8"],
                                   cwd=folder, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.time() + TIMEOUT
        while process.poll() is None and time.time() < deadline:
            if any(name.startswith(".conv.partial-") for name in os.listdir(folder)):
                time.sleep(0.002 * attempt)
                process.send_signal(signal.SIGINT)
                break
        status = process.wait(timeout=TIMEOUT)
        if status == -signal.SIGINT:
            landed = True
            tally.check(snapshot(folder) == before,
                        "convert interrupted: no .partial folder, no OUT", repr(os.listdir(folder)))
            break
        subprocess.run(["rm", "-rf", os.path.join(folder, "conv")], check=True)
    tally.check(landed, "convert interrupted: an interrupt landed during the conversion")


def peak_kb(command, folder):
    """The peak resident memory of one run, in KB, and its exit status."""
    process = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss


def check_limits(tally, minimt, folder):
    """Class 8: the limits docs/robustness.md states, each checked here or where it names."""
    cases = Cases(tally, folder)
    cases.refused("--batch-size 4096 --beam-size 64",
                  [minimt, "translate", "-m", SHIPPED, "--batch-size", "4096", "--beam-size", "64",
                   "x"], 2,
                  "minimt: error: --batch-size 4096 times --beam-size 64 is more than 65536 "
                  f"hypotheses at once{usage('translate')}")
    # The memory formula: per thread, batch x beam x (layers x 4 x max_positions x H*dk +
    # max_positions x vocabulary) x 4 bytes at worst; the shipped model: 3 decoder layers,
    # H*dk 192, max_positions 128, a target vocabulary of 1200.
    per_hypothesis = (3 * 4 * 128 * 192 + 128 * 1200) * 4 / 1024  # KB
    line = " ".join(["the cat sat on the mat and the dog ate the bread"] * 12)
    with open(os.path.join(folder, "long.txt"), "w") as f:
        f.write((line + "\n") * 32)
    if "ASAN_OPTIONS" in os.environ:
        return  # AddressSanitizer's own memory hides what minimt's is: the plain run checks it
    base = [minimt, "translate", "-m", SHIPPED, "-q", "--threads", "1", "-i", "long.txt"]
    # The least of two runs each: a run's peak also holds what the system lent it.
    single = min(peak_kb(base + ["--batch-size", "1"], folder)[1] for _ in range(2))
    for batch, beam in ((16, 1), (16, 8)):
        runs = [peak_kb(base + ["--batch-size", str(batch), "--beam-size", str(beam)], folder)
                for _ in range(2)]
        grown = min(kb for _, kb in runs) - single
        bound = batch * beam * per_hypothesis
        tally.check(all(status == 0 for status, _ in runs) and grown <= bound,
                    f"memory at --batch-size {batch} --beam-size {beam}: within the formula",
                    f"grew {grown} KB, the formula gives {bound:.0f} KB")


def main():
    minimt = minimt_path(__doc__)
    tally = Tally()
    with scratch("command-line") as work:
        model = random_model("batch")
        for name, check in (("streams", lambda f: check_streams(tally, minimt, model, f)),
                            ("numbers", lambda f: check_numbers(tally, minimt, model, f)),
                            ("terminal", lambda f: check_terminal(tally, minimt, model, f)),
                            ("lines", lambda f: check_line_bounds(tally, minimt, f)),
                            ("signals", lambda f: check_signals(tally, minimt, model, f)),
                            ("limits", lambda f: check_limits(tally, minimt, f))):
            folder = os.path.join(work, name)
            os.mkdir(folder)
            check(folder)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
