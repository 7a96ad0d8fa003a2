#!/usr/bin/python3
"""What minimt takes from the folder it runs in: no library, no model folder it was not given.

1. Every ELF binary the build made (minimt, the test and bench programs), and the minimt that
   `cmake --install` writes, has no RPATH or RUNPATH entry that is empty or relative (the
   loader reads an empty entry as the current folder, a relative one from it); readelf says.
2. A folder holding a booby-trapped copy of every library minimt needs or opens (OpenBLAS, on
   first use; each one's constructor leaves a mark) does not make the built or the installed
   minimt load any of them when it runs there, with the default kernels or
   MINIMT_KERNELS=openblas: no mark, exit status 0, the same translation as from another folder. A control run
   with LD_LIBRARY_PATH=. shows that a trap does fire when its library is loaded from there.
3. The model search path leaves out relative folders (MINIMT_MODEL_PATH=models, HOME=.), which
   would name the folder minimt runs in; the absolute folder finds the same model.

    tests/e2e/test_library_paths.py BUILD_DIR MINIMT
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import hostile_files

SYSTEM_CORE = re.compile(r"^(libc|libm|ld-linux[^.]*)\.so")  # a fake libc cannot even run


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def built_binaries(build):
    """Executables and shared objects under BUILD_DIR, leaving out CMake's own probes."""
    found = []
    for root, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or name.endswith((".o", ".a")):
                continue
            if (os.access(path, os.X_OK) or ".so" in name) and is_elf(path):
                found.append(path)
    return sorted(found)


def dynamic_section(path):
    return subprocess.run(["readelf", "-d", path], capture_output=True, text=True,
                          check=True).stdout


def search_paths(path):
    """[(tag, [entries])] for each RPATH and RUNPATH of the binary."""
    out = []
    for tag, value in re.findall(r"\((RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.*)\]",
                                 dynamic_section(path)):
        out.append((tag, value.split(":")))
    return out


def needed_libraries(path):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", dynamic_section(path))


def check_search_paths(c, path, label):
    entries = search_paths(path)
    bad = [(tag, e) for tag, values in entries for e in values
           if not (e.startswith("/") or e.startswith("$ORIGIN") or e.startswith("${ORIGIN}"))]
    c.check(not bad, "%s: RPATH/RUNPATH %s has no empty or relative entry%s"
            % (label, entries or "none", "" if not bad else " (bad: %r)" % bad))


def make_traps(folder, libraries, marks):
    """A fake of each library in `folder`; loading one writes MARKS/<its name>."""
    source = os.path.join(folder, "trap.c")
    with open(source, "w") as f:
        f.write('#include <fcntl.h>\n#include <unistd.h>\n'
                '__attribute__((constructor)) static void trap(void) {\n'
                '  int fd = open(MARK, O_CREAT | O_WRONLY, 0644);\n'
                '  if (fd >= 0) close(fd);\n}\n')
    for name in libraries:
        mark = os.path.join(marks, name)
        subprocess.run(["cc", "-shared", "-fPIC", "-o", os.path.join(folder, name),
                        "-Wl,-soname," + name, '-DMARK="%s"' % mark, source], check=True)
    os.remove(source)


# Not a NEEDED entry: minimt opens OpenBLAS by this name on first use (MINIMT_KERNELS=openblas).
OPENED_LATER = ["libopenblas.so.0"]


def run_in(folder, minimt, extra_env=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LD_") and k != "MINIMT_KERNELS"}
    env.update(extra_env or {})
    return subprocess.run([minimt, "translate", "I am a student."], cwd=folder, env=env,
                          capture_output=True, timeout=120)


def check_trap(c, minimt, label, work):
    trap = os.path.join(work, "trap-" + label.replace(" ", "-"))
    marks = os.path.join(work, "marks-" + label.replace(" ", "-"))
    os.makedirs(trap)
    os.makedirs(marks)
    libraries = [n for n in needed_libraries(minimt) if not SYSTEM_CORE.match(n)]
    c.check("libsentencepiece.so.0" in libraries,
            "%s needs libsentencepiece.so.0 (the library the issue names): %s" % (label, libraries))
    make_traps(trap, libraries + OPENED_LATER, marks)
    for kernels in ({}, {"MINIMT_KERNELS": "openblas"}):
        named = label + "".join(" with %s=%s" % kv for kv in kernels.items())
        elsewhere = run_in(work, minimt, kernels)
        before = hostile_files.snapshot(trap)
        here = run_in(trap, minimt, kernels)
        c.check(hostile_files.snapshot(trap) == before,
                "%s run in a folder of booby-trapped libraries changes nothing there" % named)
        c.check(os.listdir(marks) == [],
                "%s run in a folder of booby-trapped libraries loads none of them (marks: %s)"
                % (named, os.listdir(marks)))
        c.check(here.returncode == 0 and here.stdout == elsewhere.stdout and here.stdout != b""
                and here.stderr == b"",
                "%s there: status %d, %r (from another folder: %r), stderr %r"
                % (named, here.returncode, here.stdout, elsewhere.stdout, here.stderr))
    # The control: a folder with only the sentencepiece trap (a fake libstdc++ would fail the
    # loader's version checks before any constructor ran), which the loader is told to use.
    control = os.path.join(work, "control-" + label.replace(" ", "-"))
    os.makedirs(control)
    make_traps(control, ["libsentencepiece.so.0"], marks)
    got = run_in(control, minimt, {"LD_LIBRARY_PATH": "."})
    c.check(os.listdir(marks) == ["libsentencepiece.so.0"],
            "%s control: with LD_LIBRARY_PATH=. the trap fires (marks: %s, status %d)"
            % (label, os.listdir(marks), got.returncode))
    # And OpenBLAS, opened only when a kernel needs it: the trap fires once it is.
    os.remove(os.path.join(marks, "libsentencepiece.so.0"))
    control = os.path.join(work, "control-openblas-" + label.replace(" ", "-"))
    os.makedirs(control)
    make_traps(control, OPENED_LATER, marks)
    got = run_in(control, minimt, {"LD_LIBRARY_PATH": ".", "MINIMT_KERNELS": "openblas"})
    c.check(os.listdir(marks) == OPENED_LATER,
            "%s control: with LD_LIBRARY_PATH=. and MINIMT_KERNELS=openblas the OpenBLAS trap "
            "fires (marks: %s, status %d)" % (label, os.listdir(marks), got.returncode))


def check_relative_model_folders(c, minimt, work):
    """The model search path leaves out relative folders: MINIMT_MODEL_PATH=models and HOME=.
    would otherwise find a model in the folder minimt runs in. With the absolute folder, the
    same model is found (the control)."""
    here = os.path.join(work, "relative")
    hand = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                        "hand-model")
    shutil.copytree(hand, os.path.join(here, "models", "m1"))
    shutil.copytree(hand, os.path.join(here, ".local", "share", "minimt", "models", "m2"))
    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    for name, env, model in (("MINIMT_MODEL_PATH=models", {"MINIMT_MODEL_PATH": "models",
                                                           "HOME": home}, "m1"),
                             ("HOME=.", {"HOME": "."}, "m2")):
        env = dict({k: v for k, v in os.environ.items()
                    if k not in ("MINIMT_MODEL", "MINIMT_MODEL_PATH", "XDG_DATA_HOME")}, **env)
        got = subprocess.run([minimt, "translate", "--model", model, "a"], cwd=here, env=env,
                             capture_output=True)
        c.check(got.returncode == 1 and got.stdout == b"" and
                b"no model named '%s'" % model.encode() in got.stderr,
                "%s, --model %s from the folder holding it: not found (status %d, %r)"
                % (name, model, got.returncode, got.stderr[-200:]))
    env = dict(os.environ, MINIMT_MODEL_PATH=os.path.join(here, "models"))
    got = subprocess.run([minimt, "translate", "--model", "m1", "a"], cwd=work, env=env,
                         capture_output=True)
    c.check(got.returncode == 0 and got.stdout != b"",
            "control: MINIMT_MODEL_PATH=<absolute>/models finds m1 (status %d)" % got.returncode)


def main():
    build, minimt = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    c = hostile_files.Results(verbose=True)
    binaries = built_binaries(build)
    names = {os.path.basename(b) for b in binaries}
    c.check({"minimt", "minimt_tests"} <= names,
            "the build's binaries include minimt and minimt_tests: %s" % sorted(names))
    for path in binaries:
        check_search_paths(c, path, os.path.relpath(path, build))

    work = tempfile.mkdtemp(prefix="minimt-library-paths-")
    try:
        prefix = os.path.join(work, "prefix")
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                       capture_output=True)
        installed = os.path.join(prefix, "bin", "minimt")
        check_search_paths(c, installed, "installed bin/minimt")
        check_trap(c, minimt, "built minimt", work)
        check_trap(c, installed, "installed minimt", work)
        check_relative_model_folders(c, minimt, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
