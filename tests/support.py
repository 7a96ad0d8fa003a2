"""What the Python tests share: where things are, running a command, counting checks, scratch
folders and the random models several tests use.

Every test imports it the same way (its folder is tests/, one above the tests):

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import support

and ends with the line "N passed, N failed" and exit status 1 when anything failed (Tally).
Stdlib only: PyTorch is imported only where a test asks for the reference (use_tools).
"""

import argparse
import collections
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import traceback

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
SHIPPED = os.path.join(ROOT, "models", "en-fr")
HAND = os.path.join(ROOT, "tests", "fixtures", "hand-model")
HELDOUT = os.path.join(ROOT, "tools", "model", "data", "heldout.tsv")
TIMEOUT = 120  # seconds for one command; a run that hangs fails instead of stalling ctest

# Variables that name a model or add folders to look for one in: a run that relies on one says
# so (environment(changes)), so that a value left on a development machine cannot choose the
# model a test meant to name.
MODEL_VARIABLES = ("MINIMT_MODEL", "MINIMT_MODEL_PATH", "XDG_DATA_HOME")


def use_tools(*folders):
    """Puts tools/FOLDER on the import path, for the reference (tools/reference) and the
    corpus generator (tools/model)."""
    for folder in folders:
        path = os.path.join(ROOT, "tools", folder)
        if path not in sys.path:
            sys.path.insert(0, path)


def heldout_pairs(count=None):
    """(English, French) of tools/model/data/heldout.tsv, the generator's held-out set."""
    with open(HELDOUT, encoding="utf-8") as f:
        pairs = [tuple(line.rstrip("\n").split("\t")) for line in f if line.strip()]
    return pairs[:count] if count else pairs


# ----------------------------------------------------------------------------- counting

class Mismatch(Exception):
    """A check that failed, with what was expected and what came (no traceback needed)."""


class Tally:
    """Counts checks; finish() prints "N passed, N failed" and gives the exit status. With
    verbose, passing checks are listed too ("ok   ..."); failures always are ("FAIL ...")."""

    def __init__(self, verbose=False):
        self.passed = self.failed = 0
        self.verbose = verbose

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
            if self.verbose:
                print("ok   " + what, flush=True)
        else:
            self.failed += 1
            print("FAIL " + what + (f"\n      {detail}" if detail else ""), flush=True)
        return bool(condition)

    def equal(self, what, got, want):
        return self.check(got == want, what, f"got {got!r}, want {want!r}")

    def case(self, label, function, *args):
        """Runs one named case: PASS with the note it returns, FAIL with its Mismatch's message
        or the traceback of anything else (a crash in one case must not hide the others)."""
        try:
            note = function(*args)
        except Mismatch as e:
            self.check(False, "%-52s %s" % (label, e))
            return False
        except Exception:
            self.check(False, "%-52s %s" % (label, traceback.format_exc().rstrip()))
            return False
        self.passed += 1
        print("PASS %-52s %s" % (label, note or ""), flush=True)
        return True

    def finish(self):
        """Prints the count and the CPU time the test took (its own and its commands', which
        a loaded machine's wall time hides); returns the exit status (0 only when something was
        checked and nothing failed)."""
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        print("CPU time: %.1f s" % cpu_seconds(), flush=True)
        return 1 if self.failed or not self.passed else 0

    def exit(self):
        sys.exit(self.finish())


def cpu_seconds():
    """User and system CPU time of this process and of the commands it waited for (and theirs;
    not of processes nobody waits for, such as Chromium's renderers)."""
    own, children = (resource.getrusage(who)
                     for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


# ----------------------------------------------------------------------------- running

class Result(collections.namedtuple("Result", "status out err")):
    """A finished command: exit status (None when killed at its timeout), stdout, stderr.
    Unpacks as (status, out, err); returncode, stdout and stderr name the same."""

    returncode = property(lambda self: self.status)
    stdout = property(lambda self: self.out)
    stderr = property(lambda self: self.err)


def environment(changes=None):
    """This process's environment without MODEL_VARIABLES, then `changes` (None removes)."""
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES}
    for key, value in (changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run(command, input=None, env=None, timeout=TIMEOUT, text=False, **popen):
    """Runs `command` (stdin from `input`, bytes or with text str, else empty) in
    environment(env); returns a Result. Text is UTF-8 whatever the locale. Other keywords go to
    subprocess.run (cwd, stdout, ...)."""
    if input is None and popen.get("stdin") is None:
        input = "" if text else b""
    if text:
        popen.setdefault("encoding", "utf-8")
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    try:
        done = subprocess.run(command, input=input, env=environment(env), timeout=timeout,
                              text=text, **popen)
    except subprocess.TimeoutExpired:
        killed = f"killed after {timeout} s"
        return Result(None, "" if text else b"", killed if text else killed.encode())
    return Result(done.returncode, done.stdout, done.stderr)


def run_ok(check, command, what, timeout=300):
    """run(command), and check(it exited 0, `what`) with the end of its stderr; the Result."""
    result = run(command, timeout=timeout)
    check(result.returncode == 0, "%s: exit %s %s" % (what, result.returncode, result.stderr[-300:]))
    return result


def scratch(name):
    """A temporary folder for one test, removed at the end of the `with`."""
    return tempfile.TemporaryDirectory(prefix=f"minimt-{name}-")


def parser(doc, workdir=False):
    """The command line of a test: --minimt PATH (required), and with `workdir` also --workdir
    and --keep, for tests whose models and outputs are worth keeping when they fail (Workdir)."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--minimt", required=True, type=os.path.abspath, help="the minimt executable")
    if workdir:
        p.add_argument("--workdir", help="scratch folder, kept (default: a temporary one)")
        p.add_argument("--keep", action="store_true", help="keep the scratch folder")
    return p


def minimt_from(args):
    """args.minimt, or exit 2 with a usage line when it is not an executable file."""
    if not (os.path.isfile(args.minimt) and os.access(args.minimt, os.X_OK)):
        sys.exit(f"{sys.argv[0]}: {args.minimt}: not an executable minimt")
    return args.minimt


def minimt_path(doc):
    """The minimt of a test whose only option is --minimt PATH."""
    return minimt_from(parser(doc).parse_args())


class Workdir:
    """The scratch folder of a test made with parser(doc, workdir=True): --workdir's (kept),
    or a temporary one removed at the end unless --keep."""

    def __init__(self, args, name):
        self.kept = bool(args.workdir or args.keep)
        self.path = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix=f"minimt-{name}-"))
        os.makedirs(self.path, exist_ok=True)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if self.kept:
            print("kept " + self.path)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


# ----------------------------------------------------------------------------- random models

# The random models (tools/reference/reference.py random-model) the end-to-end tests share, by
# name. Seeds are fixed, so a model is the same whoever makes it; ctest makes them all once
# (tests/make_random_models.py, the random_models fixture) with one import of PyTorch.
_BATCH = ["--seed", "7", "--d-model", "32", "--heads", "4", "--max-positions", "24",
          "--eos-boost", "4"]
RANDOM_MODELS = {
    # the batch tests: small and fast; max_positions 24 so that long lines get cut (later
    # arguments win)
    "batch": _BATCH,
    "batch-128": _BATCH + ["--max-positions", "128"],
    "batch-dump": _BATCH + ["--encoder-layers", "3", "--decoder-layers", "2", "--heads", "4"],
    # the attention page: stacks of different depths, 8 heads, and 40 tokens of 6x8 heads
    "view": ["--d-model", "32", "--heads", "4", "--encoder-layers", "3", "--decoder-layers", "2",
             "--max-positions", "40", "--eos-boost", "3"],
    "view-eight": ["--d-model", "64", "--heads", "8", "--encoder-layers", "2",
                   "--decoder-layers", "3", "--max-positions", "64", "--eos-boost", "3"],
    "view-big": ["--d-model", "64", "--heads", "8", "--encoder-layers", "6",
                 "--decoder-layers", "6", "--max-positions", "64", "--eos-boost", "-20"],
    # the page's views of the dump's extras (tests/e2e/test_inside_page.py): 2 + 2 layers
    "inside": ["--d-model", "32", "--heads", "4", "--encoder-layers", "2", "--decoder-layers", "2",
               "--max-positions", "40", "--eos-boost", "2"],
    # bad models: each a copy of this one, broken one way; the tokenizers' sizes differ
    "bad-models": ["--seed", "5", "--target-vocab", "60"],
    # convert: untied, with a final logits bias, pre-norm, F32
    "convert-untied": ["--seed", "7", "--d-model", "32", "--heads", "4", "--d-ff", "64",
                       "--no-tie", "--final-logits-bias", "--eos-boost", "2.0", "--norm", "pre"],
}


# Architectures, as (name, random-model arguments): post/pre norm, head_dim != d_model/num_heads,
# learned and sinusoidal positions, tied and untied output, final_logits_bias, relu/gelu/silu,
# F32/F16/BF16 safetensors and inline weights. The engine is held against PyTorch on each
# (tests/pytorch/compare_with_reference.py) and against itself under every kernel
# (tests/e2e/test_kernel_matrix.py). Eos boosts were chosen so that some sentences stop early
# and others run to the limit.
ARCHITECTURES = [
    ("post-sinusoidal-relu-tied-f32",
     ["--seed", "11", "--norm", "post", "--positions", "sinusoidal", "--activation", "relu",
      "--dtype", "F32"]),
    ("pre-learned-gelu-untied-bias-f32",
     ["--seed", "12", "--norm", "pre", "--positions", "learned", "--activation", "gelu",
      "--no-tie", "--final-logits-bias", "--eos-boost", "2", "--dtype", "F32"]),
    ("post-headdim5-3heads-silu-f16",
     ["--seed", "13", "--d-model", "16", "--heads", "3", "--head-dim", "5", "--norm", "post",
      "--activation", "silu", "--dtype", "F16"]),
    ("pre-4heads-gelu-bias-bf16",
     ["--seed", "14", "--d-model", "16", "--heads", "4", "--norm", "pre", "--activation", "gelu",
      "--final-logits-bias", "--eos-boost", "2", "--dtype", "BF16"]),
    ("inline-noscale-1enc-3dec-silu",
     ["--seed", "15", "--dtype", "inline", "--encoder-layers", "1", "--decoder-layers", "3",
      "--no-scale-embeddings", "--activation", "silu", "--vocab", "64"]),
    ("odd-dmodel15-sinusoidal-eps1e-6",
     ["--seed", "16", "--d-model", "15", "--heads", "3", "--norm", "post", "--eps", "1e-6",
      "--d-ff", "20", "--final-logits-bias", "--eos-boost", "4"]),
    ("wide-heads-8x4x6-pre-learned-untied-f16",
     ["--seed", "17", "--d-model", "8", "--heads", "4", "--head-dim", "6", "--norm", "pre",
      "--positions", "learned", "--no-tie", "--dtype", "F16", "--vocab", "80"]),
    ("start-token-pad-bias-bf16",
     ["--seed", "18", "--decoder-start", "0", "--final-logits-bias", "--eos-boost", "2",
      "--norm", "post", "--activation", "gelu", "--dtype", "BF16"]),
    ("pre-3enc-1dec-untied-bias-eps1e-3",
     ["--seed", "19", "--norm", "pre", "--encoder-layers", "3", "--decoder-layers", "1",
      "--no-tie", "--final-logits-bias", "--eos-boost", "2.5", "--eps", "1e-3",
      "--positions", "learned",
      "--vocab", "150"]),
    ("larger-64x4-3+3-pre-vocab64to200",
     ["--seed", "21", "--d-model", "64", "--heads", "4", "--d-ff", "128", "--encoder-layers", "3",
      "--decoder-layers", "3", "--norm", "pre", "--activation", "gelu", "--vocab", "64",
      "--target-vocab", "200", "--max-positions", "64", "--no-tie", "--final-logits-bias",
      "--eos-boost", "8"]),
    ("max-positions-10-inline",
     ["--seed", "20", "--max-positions", "10", "--dtype", "inline", "--norm", "pre",
      "--activation", "relu", "--d-model", "12", "--heads", "2"]),
]
RANDOM_MODELS.update({"arch-" + name: args for name, args in ARCHITECTURES})


def random_models_folder():
    """Where the shared random models are: $MINIMT_TEST_MODELS (ctest sets it to a folder of
    the build tree), else a folder of this process's own, removed when it ends."""
    folder = os.environ.get("MINIMT_TEST_MODELS")
    if not folder:
        global _own_models
        if _own_models is None:
            _own_models = tempfile.TemporaryDirectory(prefix="minimt-random-models-")
        folder = _own_models.name
    os.makedirs(folder, exist_ok=True)
    return folder


_own_models = None


def random_model(name):
    """The folder of RANDOM_MODELS[name], made if it is not there yet. Made in this process when
    the reference is already imported, else by reference.py in a child; written beside the
    final folder and renamed into place, so two tests asking at once both get a whole model."""
    args = RANDOM_MODELS[name]
    key = hashlib.sha1("\0".join(args).encode()).hexdigest()[:12]
    path = os.path.join(random_models_folder(), f"{name}-{key}")
    if os.path.isfile(os.path.join(path, "config.json")):
        return path
    partial = tempfile.mkdtemp(prefix=f".{name}-", dir=os.path.dirname(path))
    made = os.path.join(partial, "model")
    if "reference" in sys.modules:
        sys.modules["reference"].main(["random-model", made] + args)
    else:
        script = os.path.join(ROOT, "tools", "reference", "reference.py")
        subprocess.run([sys.executable, script, "random-model", made] + args, check=True,
                       stdout=subprocess.DEVNULL, timeout=600)
    try:
        os.rename(made, path)
    except OSError:  # made meanwhile by another test: keep that one
        if not os.path.isfile(os.path.join(path, "config.json")):
            raise
    shutil.rmtree(partial, ignore_errors=True)
    return path


# The warnings about outputs that stopped at the length limit and words the model does not know:
# random models rarely say eos, and their vocabulary misses characters. Checks about other
# noise on stderr leave these out.
SEARCH_WARNINGS = re.compile(
    rb"minimt: warning: (line \d+: the (translation stopped at|model does not know)|"
    rb"\d+ more (lines have words|translations stopped))[^\n]*\n")


def without_search_warnings(err):
    return SEARCH_WARNINGS.sub(b"", err)
