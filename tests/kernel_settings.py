"""The kernel settings of this machine, and minimt runs held to the default's outputs under each.

A setting is what a user's machine may choose differently from this one: the Linear kernel
(MINIMT_KERNELS: minimt's avx512, avx2 and generic kernels where this CPU runs them, and
openblas), OpenBLAS's core (OPENBLAS_CORETYPE unset, Haswell, and SkylakeX where the CPU has
AVX-512), and what else differs between machines: the locale, the time zone and the current
folder. settings(minimt) lists them, the default first; kernel_settings(minimt) only the
default and minimt's other kernels.

Everywhere(minimt).run(command) runs a minimt command under the default, then under minimt's
other kernels, and raises support.Mismatch where an output differs from the default's bytes
(the cross-CPU promise of docs/architecture.md); the PyTorch comparisons run every command so.
The other settings matter to no product of minimt's own kernels (OpenBLAS's core, the locale,
the time zone, the folder): tests/e2e/test_kernel_matrix.py holds the shipped model's outputs
and the unit tests to the default under each. There, with MINIMT_KERNELS=openblas, the outputs
agree with the default's words and every number within TOLERANCE (INT8_TOLERANCE for
--compute-type int8; --sample is not compared: a last bit can change the token drawn). The
outputs are the exit status, stdout (time_ms aside) and the files the command writes with
--dump-attention, --view and -o.
"""
import collections
import os
import re

import support

TOLERANCE = 1e-4  # OpenBLAS against minimt's kernels: |a - b| <= TOLERANCE * max(1, |a|)
# int8 quantizes each row of activations: a last-bit difference before it can move a value by a
# quantization step, and the numbers after it by more than TOLERANCE.
INT8_TOLERANCE = 1e-2
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
TIME_MS = re.compile(rb',"time_ms":[0-9.e+-]+')
OUTPUT_OPTIONS = ("--dump-attention", "--view", "-o", "--output")

# env: changes to the environment (None removes a variable); cwd: the folder to run in.
Setting = collections.namedtuple("Setting", "name env cwd", defaults=(None,))


def settings(minimt):
    """[Setting], the default first."""
    info = support.run([minimt, "info", "--model", support.SHIPPED], text=True).out
    here = next((line for line in info.splitlines() if line.startswith("kernels here")), "")
    own = [k for k in ("avx512", "avx2", "generic") if k in here]
    cores = [None, "Haswell"]
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        if " avx512f" in f.read():
            cores.append("SkylakeX")
    unset = {"MINIMT_KERNELS": None, "OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None}
    found = [Setting("default", unset)]
    found += [Setting(f"MINIMT_KERNELS={k}", dict(unset, MINIMT_KERNELS=k)) for k in own[1:]]
    found.append(Setting("LC_ALL=C, TZ=+12:45, run from /",
                         dict(unset, LC_ALL="C", LANG="C", TZ="XST-12:45"), "/"))
    for core in cores:
        name = f"OPENBLAS_CORETYPE={core}" if core else "OPENBLAS_CORETYPE unset"
        if core:
            found.append(Setting(name, dict(unset, OPENBLAS_CORETYPE=core)))
        if "openblas" in here:
            found.append(Setting(name + ", MINIMT_KERNELS=openblas",
                                 dict(unset, OPENBLAS_CORETYPE=core, MINIMT_KERNELS="openblas")))
    return found


def kernel_settings(minimt):
    """The default and minimt's other kernels: the settings that change what computes."""
    return [s for s in settings(minimt)
            if s.name == "default" or (s.env.get("MINIMT_KERNELS") not in (None, "openblas")
                                       and not s.env.get("OPENBLAS_CORETYPE"))]


def exact_under(setting):
    """Whether the outputs under `setting` must be the default's bytes (the cross-CPU promise)."""
    return setting.env.get("MINIMT_KERNELS") != "openblas"


def tolerance_of(command):
    """The tolerance of the command's numbers under OpenBLAS; None: not compared there."""
    if "--sample" in command:
        return None
    return INT8_TOLERANCE if "int8" in command else TOLERANCE


def difference(a, b, exact, tolerance):
    """None when a and b agree (the same bytes, or with `exact` False the same text and numbers
    within `tolerance`), else where they first differ."""
    if a == b:
        return None
    if exact:
        at = next(i for i, (x, y) in enumerate(zip(a + b"\0", b + b"\1")) if x != y)
        return "byte %d: %r vs %r" % (at, a[max(0, at - 60):at + 60], b[max(0, at - 60):at + 60])
    words_a, words_b = NUMBER.split(a), NUMBER.split(b)
    if words_a != words_b:
        at = next(i for i, (x, y) in enumerate(zip(words_a + [None], words_b + [0])) if x != y)
        return "text differs: %r vs %r" % (words_a[at][:120] if at < len(words_a) else None,
                                           words_b[at][:120] if at < len(words_b) else None)
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
        if x == y:
            continue
        if not (b"." in x + y or b"e" in x + y or b"E" in x + y):
            return "integers differ: %s vs %s" % (x.decode(), y.decode())
        if abs(float(x) - float(y)) > tolerance * max(1.0, abs(float(x))):
            return "numbers differ: %s vs %s" % (x.decode(), y.decode())
    return None


def differences(default, got, exact, tolerance):
    """[(output name, where it differs)] between two {name: bytes}; pages (.html) are compared
    only to the byte: their numbers are the dump's, in base64."""
    names = sorted(n for n in set(default) | set(got) if exact or not n.endswith(".html"))
    found = [(n, difference(default.get(n, b""), got.get(n, b""), exact, tolerance))
             for n in names]
    return [(n, d) for n, d in found if d]


def outputs(result, files):
    """{name: bytes} of a finished run: its status, stdout (time_ms aside), the files."""
    status = "killed" if result.status is None else str(result.status)
    found = {"status": status.encode(), "stdout": TIME_MS.sub(b"", result.out or b"")}
    for name, path in files.items():
        if os.path.isfile(path):
            with open(path, "rb") as f:
                found[name] = f.read()
    return found


def run_under(setting, command, **keywords):
    """support.run of `command` in `setting`'s environment and folder."""
    keywords.setdefault("cwd", setting.cwd)
    return support.run(command, env=setting.env, **keywords)


class Everywhere:
    """Runs minimt commands under each of kernel_settings (see the top of this file)."""

    def __init__(self, minimt):
        self.settings = kernel_settings(minimt)
        self.runs = 0

    def run(self, command, **keywords):
        """The default's Result; raises support.Mismatch where another setting's outputs differ
        from it. Output files of the other settings go beside the default's, then away."""
        files = {os.path.basename(command[i + 1]): command[i + 1]
                 for i, word in enumerate(command[:-1]) if word in OUTPUT_OPTIONS}
        first = run_under(self.settings[0], command, **keywords)
        default = outputs(first, files)
        tolerance = tolerance_of(command)
        for n, setting in enumerate(self.settings[1:], 1):
            exact = exact_under(setting)
            if not exact and tolerance is None:
                continue
            moved = {name: path + ".setting-%d" % n for name, path in files.items()}
            renamed = [moved.get(os.path.basename(word), word) if i and command[i - 1] in
                       OUTPUT_OPTIONS else word for i, word in enumerate(command)]
            got = outputs(run_under(setting, renamed, **keywords), moved)
            for path in moved.values():
                if os.path.exists(path):
                    os.remove(path)
            self.runs += 1
            problems = differences(default, got, exact, tolerance)
            if problems:
                raise support.Mismatch("%s: under %s, not %s: %s" % (
                    " ".join(command[1:2] + command[4:12]), setting.name,
                    "the default's bytes" if exact else "within %g of the default" % tolerance,
                    "; ".join("%s: %s" % p for p in problems[:3])))
        return first


def runner(args):
    """The minimt runner of a test with --default-only on its command line: support.run when
    given, else Everywhere(args.minimt).run."""
    return support.run if args.default_only else Everywhere(args.minimt).run


def add_default_only(parser):
    parser.add_argument("--default-only", action="store_true",
                        help="run minimt under this environment only, not under every kernel "
                             "setting (tests/kernel_settings.py)")
