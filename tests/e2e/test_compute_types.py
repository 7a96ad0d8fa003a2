#!/usr/bin/python3
"""The compute types on the shipped model's 2,000 held-out sentences, and where a CPU lacks them.

  test_compute_types.py MINIMT_BINARY REPO_ROOT [--emulate | --no-emulate]

Checks:
  - float32 is the default and gives the same output as --compute-type float32; an unknown
    type (fp16, "", INT8, int4) is a usage error (exit 2) naming the option;
  - int8 and bf16 (where this CPU has AVX512_BF16) translate at least 99.5% of the held-out
    sentences exactly as float32 does, and match the generator's French (heldout.tsv, an
    independent reference) at least 99.5% of the time;
  - their JSON scores stay near float32's: the mean |difference| per token under 0.02 nats;
  - every int8 kernel this CPU runs (MINIMT_KERNELS=avx512 -> VNNI, avx2, generic) gives the same
    bytes of JSON output, scores included (their int32 sums are exact);
  - on an emulated CPU without FMA (qemu-x86_64 -cpu Nehalem) the generic kernels, in their
    library-fma copy, give this CPU's bytes;
  - on an emulated CPU without AVX-512 (qemu-x86_64 -cpu Haswell), bf16 is refused with exit 1
    and a message naming AVX512_BF16, and int8 runs the AVX2 kernel; int8 and float32 output and
    an attention dump are byte-identical to this CPU's, OPENBLAS_CORETYPE unset in both (the
    cross-CPU promise of docs/architecture.md, "What is bit-identical") (--no-emulate, for the sanitized build, leaves these out and says so: an ASan binary cannot
    run under qemu-user; the plain build runs them).
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402


def run(cmd, sources, env_extra=None):
    return support.run(cmd, input="\n".join(sources) + "\n", text=True, env=env_extra,
                       timeout=600)


def translate(minimt, model, sources, extra=(), env_extra=None, prefix=()):
    result = run(list(prefix) + [minimt, "translate", "--model", model, "-q", "--format", "jsonl",
                                 "--threads", "2"] + list(extra), sources, env_extra)
    if result.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(extra), result.returncode, result.stderr))
    return without_times(result.stdout)


def without_times(jsonl):
    """The records with time_ms (which differs from run to run) removed, as text."""
    out = []
    for line in jsonl.splitlines():
        record = json.loads(line)
        record.pop("time_ms", None)
        out.append(json.dumps(record, ensure_ascii=False))
    return "\n".join(out)


def records(jsonl):
    return [json.loads(line) for line in jsonl.splitlines()]


def bf16_here(minimt, model):
    info = support.run([minimt, "info", "--model", model], text=True).out
    return "bf16 (AVX512_BF16)" in info


# Long on purpose: one scenario after another, each check named where it is made.
def main():
    minimt, root = sys.argv[1], sys.argv[2]
    model = os.path.join(root, "models", "en-fr")
    with open(os.path.join(root, "tools", "model", "data", "heldout.tsv"), encoding="utf-8") as f:
        pairs = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    sources, references = [p[0] for p in pairs], [p[1] for p in pairs]
    tally = support.Tally(verbose=True)
    check = tally.check

    default = translate(minimt, model, sources)
    float32 = records(default)
    check(translate(minimt, model, sources, ["--compute-type", "float32"]) == default,
          "float32 is the default")
    for word in ("fp16", "", "INT8", "int4"):
        bad = run([minimt, "translate", "--model", model, "--compute-type", word, "x"], [])
        check(bad.returncode == 2 and "--compute-type" in bad.stderr and bad.stdout == "",
              "--compute-type %r: usage error, exit %d" % (word, bad.returncode))
    types = ["int8"] + (["bf16"] if bf16_here(minimt, model) else [])
    print("compute types here:", ", ".join(["float32"] + types))
    outputs = {}
    for compute_type in types:
        outputs[compute_type] = translate(minimt, model, sources, ["--compute-type", compute_type])
        got = records(outputs[compute_type])
        check(len(got) == len(sources), "%s: one record per line" % compute_type)
        same = sum(a["translation"] == b["translation"] for a, b in zip(got, float32))
        right = sum(a["translation"] == r for a, r in zip(got, references))
        check(same >= 0.995 * len(sources),
              "%s: %d of %d translations equal float32's" % (compute_type, same, len(sources)))
        check(right >= 0.995 * len(sources),
              "%s: %d of %d equal the generator's French" % (compute_type, right, len(sources)))
        deltas = [abs(x - y) for a, b in zip(got, float32) if a["translation"] == b["translation"]
                  for x, y in zip(a["token_log_probs"], b["token_log_probs"])]
        mean = sum(deltas) / max(1, len(deltas))
        check(0 < mean < 0.02, "%s: mean |log-prob difference| per token %.5f nats (float32 "
              "differs, but by little)" % (compute_type, mean))
        for a, b in zip(got, float32):
            if a["translation"] != b["translation"]:
                print("  differs: %r -> %r (float32 %r)" % (a["source"], a["translation"],
                                                             b["translation"]))

    info = support.run([minimt, "info", "--model", model], text=True).out
    kernels = [k for k in ("avx512", "avx2", "generic")
               if k in next(l for l in info.splitlines() if l.startswith("kernels here"))]
    first = sources[:300]
    base = translate(minimt, model, first, ["--compute-type", "int8"],
                     {"MINIMT_KERNELS": kernels[0]})
    for kernel in kernels[1:]:
        check(translate(minimt, model, first, ["--compute-type", "int8"],
                        {"MINIMT_KERNELS": kernel}) == base,
              "int8 under MINIMT_KERNELS=%s: the same bytes as under %s (300 lines)"
              % (kernel, kernels[0]))

    if sys.argv[3:] == ["--no-emulate"]:
        print("emulated-CPU checks not run here (a sanitized binary cannot run under qemu-user)")
        return tally.finish()
    qemu = shutil.which("qemu-x86_64")
    check(qemu is not None, "qemu-x86_64 is installed (tools/setup.sh --tests installs qemu-user)")
    if qemu:
        haswell = [qemu, "-cpu", "Haswell"]
        refused = run(haswell + [minimt, "translate", "--model", model, "--compute-type", "bf16",
                                 "I am a student."], [])
        check(refused.returncode == 1 and "AVX512_BF16" in refused.stderr
              and refused.stdout == "",
              "emulated Haswell: bf16 refused, exit %d: %s" % (
                  refused.returncode, refused.stderr.strip().splitlines()[-1:]))
        info = support.run(haswell + [minimt, "info", "--model", model, "--compute-type",
                                      "int8"], text=True).out
        check("int8, minimt's avx2 kernel" in info, "emulated Haswell: int8 runs the avx2 kernel")
        # The cross-CPU promise (docs/architecture.md, "What is bit-identical"): the emulated CPU
        # runs the AVX2 kernels for everything, this one its fastest; OpenBLAS left to pick its
        # own core in both, as on a user's machine.
        scrubbed = {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None}
        for compute_type, count in (("int8", 60), ("float32", 30)):
            emulated = translate(minimt, model, first[:count], ["--compute-type", compute_type],
                                 scrubbed, prefix=haswell)
            check(emulated == translate(minimt, model, first[:count],
                                        ["--compute-type", compute_type], scrubbed),
                  "emulated Haswell: %s output equals this CPU's (%d lines, scores included: "
                  "the cross-CPU promise)" % (compute_type, count))
        dumps = []
        for prefix in (haswell, []):
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "dump.json")
                translate(minimt, model, first[:10], ["--dump-attention", path], scrubbed,
                          prefix=prefix)
                with open(path, "rb") as f:
                    dumps.append(f.read())
        check(dumps[0] == dumps[1], "emulated Haswell: the attention dump of 10 sentences is "
              "byte-identical to this CPU's (the cross-CPU promise)")
        # A CPU without FMA (Nehalem): the portable kernels run the copy that calls the C
        # library's fma (src/engine/kernels/fma_clones.h), which this CPU never picks.
        nehalem = [qemu, "-cpu", "Nehalem"]
        generic = dict(scrubbed, MINIMT_KERNELS="generic")
        info = support.run(nehalem + [minimt, "info", "--model", model], text=True).out
        check("kernels here   openblas (default), generic" in info,
              "emulated Nehalem: only the generic kernel and OpenBLAS are offered")
        check(translate(minimt, model, first[:2], [], generic, prefix=nehalem) ==
              translate(minimt, model, first[:2], [], scrubbed),
              "emulated Nehalem, MINIMT_KERNELS=generic (the library-fma copy): the same bytes "
              "as this CPU's fastest kernel (2 lines, scores included)")

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
