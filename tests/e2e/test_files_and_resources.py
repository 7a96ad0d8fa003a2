#!/usr/bin/python3
"""minimt's files and resources under hostile command lines: outputs that name an input or each
other (directly, through symbolic and hard links, relative against absolute paths), outputs
written whole or not at all (a failure midway, SIGKILL, SIGTERM), threads that cannot start,
memory that runs out, and the bounds on --threads x --batch-size, view --sentences and dump size.

  test_files_and_resources.py --minimt MINIMT_BINARY

Ends with "N passed, N failed"; exits 1 on any failure.
"""

import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from support import TIMEOUT, Tally, minimt_path, random_model, scratch  # noqa: E402

SAME_INPUT = "are the same file: an output must not overwrite an input"
SAME_OUTPUT = "are the same file: two outputs cannot share a file"


def run(command, cwd, stdin=None, input_bytes=None, preexec=None):
    """support.run in the folder `cwd`."""
    return support.run(command, input=input_bytes, stdin=stdin, cwd=cwd, preexec_fn=preexec)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def read(path):
    if not os.path.lexists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def snapshot(directory):
    """Every file of a directory (not below) and its contents: what a refused run must keep."""
    def state(path):
        if not os.path.isfile(path):
            return "dir"
        size = os.path.getsize(path)
        return read(path) if size < (1 << 20) else (size, os.stat(path).st_mtime_ns)
    return {name: state(os.path.join(directory, name)) for name in sorted(os.listdir(directory))}


def expect(tally, name, result, status, message, before=None, after=None):
    """Checks exit status, the exact stderr and (optionally) that the files did not change."""
    got_status, _, err = result
    tally.check(got_status == status, f"{name}: exit status {status}", f"got {got_status}")
    tally.check(err.decode(errors="replace") == message, f"{name}: message",
                f"want {message!r}\n      got  {err.decode(errors='replace')!r}")
    if before is not None:
        tally.check(before == after, f"{name}: no file created, changed or removed",
                    f"before {before!r:.300} after {after!r:.300}")


def collision_cases(model, cdir):
    """(name, arguments after `minimt`, stdin file or None, exact stderr)."""
    t = ["translate", "-m", model, "-q"]
    s_abs, new_abs = os.path.join(cdir, "s.txt"), os.path.join(cdir, "new.txt")
    err = lambda text, command="translate": (f"minimt: error: {text}\n"
                                             f"Run 'minimt {command} --help' for usage.\n")
    return [
        ("-i vs --dump-attention", t + ["-i", "s.txt", "--dump-attention", "s.txt"], None,
         err(f"--dump-attention s.txt and -i s.txt {SAME_INPUT}")),
        ("-i vs --view", t + ["-i", "s.txt", "--view", "s.txt"], None,
         err(f"--view s.txt and -i s.txt {SAME_INPUT}")),
        ("-i vs -o", t + ["-i", "s.txt", "-o", "s.txt"], None,
         err(f"-o s.txt and -i s.txt {SAME_INPUT}")),
        ("-o vs --dump-attention", t + ["-i", "s.txt", "-o", "o.txt", "--dump-attention", "o.txt"],
         None, err(f"--dump-attention o.txt and -o o.txt {SAME_OUTPUT}")),
        ("-o vs --view", t + ["-i", "s.txt", "-o", "o.txt", "--view", "o.txt"], None,
         err(f"--view o.txt and -o o.txt {SAME_OUTPUT}")),
        ("--dump-attention vs --view",
         t + ["-i", "s.txt", "--dump-attention", "d.json", "--view", "d.json"], None,
         err(f"--view d.json and --dump-attention d.json {SAME_OUTPUT}")),
        ("new file, relative vs absolute", t + ["-i", "s.txt", "-o", "new.txt", "--view", new_abs],
         None, err(f"--view {new_abs} and -o new.txt {SAME_OUTPUT}")),
        ("input, absolute -o vs relative -i", t + ["-i", "s.txt", "-o", s_abs], None,
         err(f"-o {s_abs} and -i s.txt {SAME_INPUT}")),
        ("input, dir/.. path", t + ["-i", s_abs, "--dump-attention", "sub/../s.txt"], None,
         err(f"--dump-attention sub/../s.txt and -i {s_abs} {SAME_INPUT}")),
        ("-o through a symlink to -i", t + ["-i", "s.txt", "-o", "link.txt"], None,
         err(f"-o link.txt and -i s.txt {SAME_INPUT}")),
        ("-i through a symlink, --view the file", t + ["-i", "link.txt", "--view", "s.txt"], None,
         err(f"--view s.txt and -i link.txt {SAME_INPUT}")),
        ("dangling symlink vs its target",
         t + ["-i", "s.txt", "-o", "dangling.txt", "--dump-attention", "future.txt"], None,
         err(f"--dump-attention future.txt and -o dangling.txt {SAME_OUTPUT}")),
        ("symlinked directory", t + ["-i", "s.txt", "-o", "sub/x.txt", "--view", "linkdir/x.txt"],
         None, err(f"--view linkdir/x.txt and -o sub/x.txt {SAME_OUTPUT}")),
        ("hard link to -i", t + ["-i", "s.txt", "--dump-attention", "hard.txt"], None,
         err(f"--dump-attention hard.txt and -i s.txt {SAME_INPUT}")),
        ("hard link between outputs", t + ["-i", "s.txt", "-o", "o.txt", "--view", "o_hard.txt"],
         None, err(f"--view o_hard.txt and -o o.txt {SAME_OUTPUT}")),
        ("standard input redirected from -o", t + ["-o", "s.txt"], "s.txt",
         err(f"-o s.txt and standard input {SAME_INPUT}")),
        ("standard input vs a symlinked dump", t + ["--dump-attention", "link.txt"], "s.txt",
         err(f"--dump-attention link.txt and standard input {SAME_INPUT}")),
        ("model config.json", t + ["-i", "s.txt", "-o", f"{model}/config.json"], None,
         err(f"-o {model}/config.json and the model file {model}/config.json {SAME_INPUT}")),
        ("model weights", t + ["-i", "s.txt", "--dump-attention", f"{model}/model.safetensors"],
         None, err(f"--dump-attention {model}/model.safetensors and the model file "
                   f"{model}/model.safetensors {SAME_INPUT}")),
        ("model tokenizer", t + ["-i", "s.txt", "--view", f"{model}/source.spm"], None,
         err(f"--view {model}/source.spm and the model file {model}/source.spm {SAME_INPUT}")),
        ("model tokenizer through a symlink", t + ["-i", "s.txt", "-o", "tlink"], None,
         err(f"-o tlink and the model file {model}/target.spm {SAME_INPUT}")),
        ("sentences as arguments", t + ["-o", "o.txt", "--dump-attention", "o.txt", "the cat"],
         None, err(f"--dump-attention o.txt and -o o.txt {SAME_OUTPUT}")),
        ("view: -o the dump", ["view", "d.json", "-o", "d.json"], None,
         err(f"-o d.json and the dump d.json {SAME_INPUT}", "view")),
        ("view: -o a symlink to the dump", ["view", "d.json", "-o", "dlink.json"], None,
         err(f"-o dlink.json and the dump d.json {SAME_INPUT}", "view")),
        ("view: default page a hard link to the dump", ["view", "e.json"], None,
         err(f"the page (default -o) e.html and the dump e.json {SAME_INPUT}", "view")),
        ("view: --svg file is the dump",
         ["view", "q-cross.svg", "--sentences", "1", "--svg", "q", "-o", "q.html"], None,
         err(f"--svg q-cross.svg and the dump q-cross.svg {SAME_INPUT}", "view")),
        ("view: --svg file is -o",
         ["view", "d.json", "--sentences", "1", "--svg", "r", "-o", "r-encoder.svg"], None,
         err(f"--svg r-encoder.svg and -o r-encoder.svg {SAME_OUTPUT}", "view")),
    ]


def setup_collision_dir(cdir, model, dump):
    write(os.path.join(cdir, "s.txt"), b"the cat\nthe dog\nhello\n")
    write(os.path.join(cdir, "o.txt"), b"OLD OUTPUT\n")
    write(os.path.join(cdir, "d.json"), dump)
    write(os.path.join(cdir, "e.json"), dump)
    write(os.path.join(cdir, "q-cross.svg"), dump)
    os.mkdir(os.path.join(cdir, "sub"))
    os.symlink("s.txt", os.path.join(cdir, "link.txt"))
    os.symlink("future.txt", os.path.join(cdir, "dangling.txt"))
    os.symlink("sub", os.path.join(cdir, "linkdir"))
    os.symlink("d.json", os.path.join(cdir, "dlink.json"))
    os.symlink(os.path.join(model, "target.spm"), os.path.join(cdir, "tlink"))
    os.link(os.path.join(cdir, "s.txt"), os.path.join(cdir, "hard.txt"))
    os.link(os.path.join(cdir, "o.txt"), os.path.join(cdir, "o_hard.txt"))
    os.link(os.path.join(cdir, "e.json"), os.path.join(cdir, "e.html"))


def check_collisions(tally, minimt, model, work, dump):
    cdir = os.path.join(work, "collide")
    os.mkdir(cdir)
    setup_collision_dir(cdir, model, dump)
    for name, args, stdin_file, message in collision_cases(model, cdir):
        before = (snapshot(cdir), snapshot(model))
        if stdin_file:
            with open(os.path.join(cdir, stdin_file), "rb") as f:
                result = run([minimt] + args, cdir, stdin=f)
        else:
            result = run([minimt] + args, cdir, input_bytes=b"")
        expect(tally, "collision " + name, result, 2, message, before,
               (snapshot(cdir), snapshot(model)))

    # Not collisions: devices take several outputs, "-" is standard input/output.
    t = [minimt, "translate", "-m", model, "-q"]
    status, out, err = run(t + ["-i", "s.txt", "-o", "/dev/null", "--dump-attention", "/dev/null",
                                "--view", "/dev/null"], cdir)
    tally.check(status == 0 and err == b"" and out == b"", "/dev/null for every output: exit 0",
                f"{status} {err!r}")
    tally.check(stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is still a device")
    status, out, err = run(t + ["-i", "-", "-o", "-"], cdir, input_bytes=b"the cat\n")
    tally.check(status == 0 and out.count(b"\n") == 1, "-i - -o -: no collision", repr(err))


def temporaries(directory):
    return [n for n in os.listdir(directory) if ".minimt-" in n]


def limit_file_size(size):
    def preexec():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead
    return preexec


def check_atomic_success(tally, t, adir):
    """A run that ends normally replaces the file, keeping its permissions."""
    _, expected, _ = run(t + ["-i", "s.txt"], adir)
    out = write(os.path.join(adir, "out.txt"), b"OLD\n")
    os.chmod(out, 0o640)
    status, stdout, err = run(t + ["-i", "s.txt", "-o", "out.txt"], adir)
    tally.check(status == 0 and stdout == b"" and err == b"", "success: exit 0, quiet", repr(err))
    tally.check(read(out) == expected and expected.count(b"\n") == 3,
                "success: -o replaced by the translations", repr(read(out)))
    tally.check(stat.S_IMODE(os.stat(out).st_mode) == 0o640, "success: the file keeps mode 0640",
                oct(os.stat(out).st_mode))
    for mask, mode in ((0o022, 0o644), (0o027, 0o640), (0o077, 0o600)):
        new = os.path.join(adir, f"new{mask:o}.txt")
        run(t + ["-i", "s.txt", "-o", new], adir, preexec=lambda m=mask: os.umask(m))
        got = stat.S_IMODE(os.stat(new).st_mode) if os.path.exists(new) else None
        tally.check(got == mode, f"a new file under umask {mask:03o} has mode {mode:o}",
                    oct(got) if got is not None else "missing")
    # Through a symlink: the file it points to is replaced, the link stays a link.
    real = write(os.path.join(adir, "real_out.txt"), b"OLD\n")
    os.symlink("real_out.txt", os.path.join(adir, "out_link"))
    status, _, _ = run(t + ["-i", "s.txt", "-o", "out_link"], adir)
    tally.check(status == 0 and read(real) == expected and
                os.path.islink(os.path.join(adir, "out_link")),
                "-o a symlink: its target replaced, the link kept")
    # A failed line (exit 1) is a normal end: the file is replaced with every line.
    write(os.path.join(adir, "mixed.txt"), b"the cat\nbad \xc3\x28 utf8\nthe dog\n")
    write(out, b"OLD\n")
    status, _, _ = run(t + ["-i", "mixed.txt", "-o", "out.txt"], adir)
    lines = read(out).split(b"\n")
    tally.check(status == 1 and len(lines) == 4 and lines[1] == b"" and lines[0] != b"OLD",
                "a failed line: exit 1, -o still replaced with all lines", repr(read(out)))
    tally.check(temporaries(adir) == [], "no temporary file left after normal runs",
                repr(temporaries(adir)))


def check_atomic_failure(tally, t, minimt, adir):
    """A run that fails midway leaves every output as it was."""
    with open(os.path.join(adir, "many.txt"), "w", encoding="utf-8") as f:
        for i in range(3000):
            f.write(f"the cat number {i} is on the house\n")
    out = write(os.path.join(adir, "out.txt"), b"OLD\n")
    result = run(t + ["-i", "many.txt", "-o", "out.txt"], adir, preexec=limit_file_size(8192))
    expect(tally, "-o fails midway (file size limit)", result, 1,
           "minimt: error: cannot write out.txt: File too large\n")
    tally.check(read(out) == b"OLD\n", "-o fails midway: the old file intact", repr(read(out)[:80]))

    dump = write(os.path.join(adir, "dd.json"), b"OLD DUMP\n")
    write(out, b"OLD\n")
    result = run(t + ["-i", "s.txt", "-o", "out.txt", "--dump-attention", "dd.json"], adir,
                 preexec=limit_file_size(8192))
    expect(tally, "--dump-attention fails at its end", result, 1,
           "minimt: error: cannot write dd.json\n")
    tally.check(read(out) == b"OLD\n" and read(dump) == b"OLD DUMP\n",
                "--dump-attention fails: -o and the dump both left as they were")

    page = write(os.path.join(adir, "page.html"), b"OLD PAGE\n")
    write(os.path.join(adir, "v.json"), read(os.path.join(adir, "..", "setup", "d.json")))
    result = run([minimt, "view", "v.json", "-o", "page.html"], adir, preexec=limit_file_size(8192))
    expect(tally, "view: the page fails midway", result, 1,
           "minimt: error: cannot write page.html: File too large\n")
    tally.check(read(page) == b"OLD PAGE\n", "view fails midway: the old page intact")
    tally.check(temporaries(adir) == [], "no temporary file left after failed runs",
                repr(temporaries(adir)))


def check_killed(tally, t, adir, sig):
    """SIGKILL or SIGTERM during a long run: the old file stays whole."""
    name = signal.Signals(sig).name
    big = os.path.join(adir, "big.txt")
    if not os.path.exists(big):
        with open(big, "w", encoding="utf-8") as f:
            for i in range(200000):
                f.write(f"the cat number {i} is on the house\n")
    out = write(os.path.join(adir, "long.txt"), b"OLD\n")
    p = subprocess.Popen(t + ["-i", "big.txt", "-o", "long.txt"], cwd=adir,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    written = False
    while time.monotonic() < deadline and not written:  # until the run has written something
        time.sleep(0.05)
        written = any(os.path.getsize(os.path.join(adir, n)) > 0 for n in temporaries(adir)
                      if n.startswith(".long.txt.minimt-"))
    p.send_signal(sig)
    status = p.wait(timeout=TIMEOUT)
    p.stderr.close()
    tally.check(written, f"{name}: the run was writing its temporary file when killed")
    tally.check(status == -sig, f"{name}: the run died of it", f"status {status}")
    tally.check(read(out) == b"OLD\n", f"{name}: the old -o file is intact", repr(read(out)[:80]))
    left = temporaries(adir)
    if sig == signal.SIGKILL:  # cannot be caught: a hidden file beside the original remains
        tally.check(len(left) == 1 and left[0].startswith(".long.txt.minimt-"),
                    "SIGKILL: only a hidden .long.txt.minimt-* file is left", repr(left))
        for n in left:
            os.unlink(os.path.join(adir, n))
    else:
        tally.check(left == [], f"{name}: the temporary file removed", repr(left))


def check_unwritable(tally, t, adir):
    os.makedirs(os.path.join(adir, "adir"), exist_ok=True)
    expect(tally, "-o in a missing directory", run(t + ["-i", "s.txt", "-o", "nodir/x.txt"], adir),
           1, "minimt: error: cannot write nodir/x.txt: No such file or directory\n")
    expect(tally, "-o a directory", run(t + ["-i", "s.txt", "-o", "adir"], adir), 1,
           "minimt: error: cannot write adir: Is a directory\n")


def limit_memory(address_space, stack=None):
    def preexec():
        if stack:  # glibc gives each new thread a stack of RLIMIT_STACK bytes
            resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
        # AddressSanitizer's shadow memory cannot live under an address-space limit (see main).
        if "ASAN_OPTIONS" not in os.environ:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return preexec


def check_threads(tally, t, adir):
    out = write(os.path.join(adir, "out.txt"), b"OLD\n")
    status, _, err = run(t + ["-i", "s.txt", "-o", "out.txt", "--threads", "64"], adir,
                         preexec=limit_memory(3 << 30, stack=256 << 20))
    text = err.decode(errors="replace")
    tally.check(status == 1, "threads that cannot start: exit 1", f"got {status}: {text!r}")
    tally.check(re.fullmatch(r"minimt: error: cannot start thread \d+ of 65: Resource temporarily "
                             r"unavailable \(try fewer --threads\)\n", text) is not None,
                "threads that cannot start: one clear line", repr(text))
    tally.check("terminate" not in text, "threads that cannot start: no abort", repr(text))
    tally.check(read(out) == b"OLD\n", "threads that cannot start: -o left as it was")


def check_batch_bounds(tally, t, adir):
    for threads, batch in (("1024", "65536"), ("3", "32768")):
        expect(tally, f"--threads {threads} --batch-size {batch}",
               run(t + ["-i", "s.txt", "--threads", threads, "--batch-size", batch], adir), 2,
               f"minimt: error: --threads {threads} times --batch-size {batch} is more than 65536 "
               "lines at once\nRun 'minimt translate --help' for usage.\n")
    status, out, err = run(t + ["-i", "s.txt", "--threads", "2", "--batch-size", "32768"], adir)
    tally.check(status == 0 and out.count(b"\n") == 3, "--threads 2 --batch-size 32768: runs",
                f"{status} {err!r}")


def check_view_bounds(tally, minimt, adir):
    v = [minimt, "view", "v.json", "-o", "bounds.html"]
    page = os.path.join(adir, "bounds.html")
    expect(tally, "--sentences 1-999999999999", run(v + ["--sentences", "1-999999999999"], adir),
           2, "minimt: --sentences: not a sentence number or range: 1-999999999999\n"
           "Run 'minimt view --help' for usage.\n")
    for item in ("2-999999999", "4", "1,3-4"):
        last = item.split("-")[-1].split(",")[-1]
        result = run(v + ["--sentences", item], adir, preexec=limit_memory(1 << 30))
        expect(tally, f"--sentences {item} past the dump", result, 1,
               f"minimt: error: --sentences {item.split(',')[-1]}: sentence {last} is not in the "
               "dump (it holds 3 sentences, numbered from 1)\n")
        tally.check(not os.path.exists(page), f"--sentences {item}: no page written")
    many = ",".join(["1-3"] * 3000)
    status, _, err = run(v + ["--sentences", many], adir, preexec=limit_memory(1 << 30))
    tally.check(status == 0 and b"bounds.html: 3 sentences," in err,
                "--sentences 1-3 given 3000 times: each sentence once", f"{status} {err[:200]!r}")

    big = os.path.join(adir, "big.json")
    with open(big, "wb") as f:  # sparse: 1 GiB + 1 byte, nothing written
        f.truncate((1 << 30) + 1)
    too_large = ": larger than 1 GiB, the most minimt view reads (dump fewer sentences, or select " \
                "with --dump-types, --dump-layers, --dump-heads)\n"
    before = snapshot(adir)
    expect(tally, "a dump file over 1 GiB", run([minimt, "view", "big.json"], adir), 1,
           "minimt: error: big.json" + too_large, before, snapshot(adir))
    os.unlink(big)
    # A dump on a pipe goes through the same bound while it is read (over 1 GiB takes a minute
    # to send, so only a dump within it is sent here).
    p = subprocess.Popen([minimt, "view", "-", "-o", "stdin.html"], cwd=adir,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = p.communicate(read(os.path.join(adir, "v.json")), timeout=TIMEOUT)
    tally.check(p.returncode == 0 and b"wrote stdin.html: 3 sentences" in err,
                "a dump on a pipe under 1 GiB: read", repr(err))


def main():
    minimt = minimt_path(__doc__)
    tally = Tally()
    with scratch("files-and-resources") as work:
        # A copy: the collision cases aim outputs at the model's files.
        model = shutil.copytree(random_model("batch"), os.path.join(work, "model"))
        t = [minimt, "translate", "-m", model, "-q"]
        setup = os.path.join(work, "setup")
        os.mkdir(setup)
        write(os.path.join(setup, "s.txt"), b"the cat\nthe dog\nhello\n")
        status, _, err = run(t + ["-i", "s.txt", "--dump-attention", "d.json"], setup)
        if status != 0:
            raise SystemExit(f"cannot make the test dump: {err!r}")
        dump = read(os.path.join(setup, "d.json"))
        check_collisions(tally, minimt, model, work, dump)

        adir = os.path.join(work, "atomic")
        os.mkdir(adir)
        write(os.path.join(adir, "s.txt"), b"the cat\nthe dog\nhello\n")
        check_atomic_success(tally, t, adir)
        check_atomic_failure(tally, t, minimt, adir)
        check_killed(tally, t, adir, signal.SIGKILL)
        check_killed(tally, t, adir, signal.SIGTERM)
        check_unwritable(tally, t, adir)
        # Forcing a thread-start failure needs an address-space limit, which AddressSanitizer's
        # shadow memory cannot live under: the plain run checks it, the sanitized one cannot.
        if "ASAN_OPTIONS" not in os.environ:
            check_threads(tally, t, adir)
        check_batch_bounds(tally, t, adir)
        check_view_bounds(tally, minimt, adir)
    tally.exit()


if __name__ == "__main__":
    main()
