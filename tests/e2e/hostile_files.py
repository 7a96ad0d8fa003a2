"""Running minimt on one hostile file at a time (tests/e2e/test_tokenizer_files.py,
test_said_twice.py, test_reader_bounds.py): each run is limited in address space and time, and
a refusal must have the exit status, one stderr line with the message, nothing on stdout, and
the folder it ran in exactly as it was (nothing written, changed or removed)."""
import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import threading

# Under AddressSanitizer (tools/test.sh --sanitize sets ASAN_OPTIONS) the process reserves
# terabytes of shadow memory and runs several times slower: limits and costs are the plain run's.
SANITIZED = "ASAN_OPTIONS" in os.environ
ADDRESS_SPACE = 1 << 30
TIMEOUT = 120


class Results:
    def __init__(self, verbose=False):
        self.passed, self.failed, self.verbose = 0, 0, verbose

    def check(self, ok, what):
        """Counts one check; prints it when it fails (every one when verbose)."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        if self.verbose or not ok:
            print(("ok   " if ok else "FAIL ") + what)
        return ok

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0


class Run:
    def __init__(self, status, stdout, stderr, cpu_seconds, max_rss_mb):
        self.status, self.stdout, self.stderr = status, stdout, stderr
        self.cpu_seconds, self.max_rss_mb = cpu_seconds, max_rss_mb


def _limits(address_space):
    if address_space and not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(command, cwd, stdin=b"", limit_address_space=True):
    """Runs one command in `cwd` under the limits; CPU time and peak RSS of that child alone."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as inp:
        inp.write(stdin)
        inp.seek(0)
        proc = subprocess.Popen(command, cwd=cwd, stdin=inp, stdout=out, stderr=err,
                                preexec_fn=lambda: _limits(limit_address_space))
        timer = threading.Timer(TIMEOUT, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        out.seek(0)
        err.seek(0)
        return Run(os.waitstatus_to_exitcode(status), out.read(), err.read(),
                   usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0)


def snapshot(folder):
    """{path: (mode, size, mtime, sha256)} of everything under `folder`, links as links."""
    state = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            digest = None
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            state[os.path.relpath(path, folder)] = (info.st_mode, info.st_size,
                                                    info.st_mtime_ns, digest)
    return state


def check_refused(results, name, command, folder, status, words, stdin=b"", cpu=2.0, rss=150):
    """Runs `command` in `folder` and checks a refusal: the exit status, exactly one stderr line
    holding every one of `words`, no stdout, no internal error or sanitizer report, the folder
    unchanged, and (plain builds) under `cpu` seconds and `rss` MB."""
    before = snapshot(folder)
    got = run(command, folder, stdin)
    after = snapshot(folder)
    err = got.stderr.decode("utf-8", "replace")
    label = name + ": "
    ok = results.check(got.status == status,
                       label + "exit status %d, expected %d; stderr %r" % (got.status, status, err))
    ok &= results.check(got.stdout == b"", label + "stdout %r" % got.stdout[:200])
    ok &= results.check(err.count("\n") == 1 and err.endswith("\n") and len(err) < 1000,
                        label + "not one short stderr line: %r" % err[:2000])
    ok &= results.check("internal error" not in err and "Sanitizer" not in err,
                        label + "internal error or sanitizer report: %r" % err[:2000])
    for word in words:
        ok &= results.check(word in err, label + "stderr %r lacks %r" % (err, word))
    ok &= results.check(before == after, label + "the folder changed: %s" % sorted(
        set(before.items()) ^ set(after.items()))[:6])
    if not SANITIZED:
        ok &= results.check(got.cpu_seconds < cpu and got.max_rss_mb < rss,
                            label + "took %.2f s of CPU and %.0f MB (limits %.1f s, %d MB)"
                            % (got.cpu_seconds, got.max_rss_mb, cpu, rss))
    if ok:
        print("ok   %-58s %.2f s %4.0f MB  %s" % (name, got.cpu_seconds, got.max_rss_mb,
                                                 err.strip()[:160]))
    return got


def minimt_argument():
    if len(sys.argv) < 2:
        raise SystemExit("usage: %s MINIMT" % sys.argv[0])
    return os.path.abspath(sys.argv[1])
