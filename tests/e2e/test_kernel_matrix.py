#!/usr/bin/python3
"""What the tests compare on the shipped model, and the unit tests, under every kernel setting.

    test_kernel_matrix.py --minimt build/minimt
    test_kernel_matrix.py --minimt build/minimt --unit-tests build/tests/minimt_tests

The settings are those of tests/kernel_settings.py: each Linear kernel this CPU runs
(MINIMT_KERNELS), each OpenBLAS core (OPENBLAS_CORETYPE), another locale, time zone and current
folder; here each also translates with its own batch size and thread count. The PyTorch
comparisons run each of their minimt commands under every setting themselves
(kernel_settings.Everywhere); this test does the same for the outputs the other tests check on
the shipped model:

  - COMMANDS: held-out translations with scores, log-probabilities and alternatives, beam search
    with n-best lists, sampling, score with alignments, word alignment (two rules), an attention
    dump with rollouts and its page, masked heads, the heads ranking and its page, int8; each
    against the default: with minimt's own kernels the same bytes (the cross-CPU promise), with
    MINIMT_KERNELS=openblas the same words and every number within kernel_settings.TOLERANCE
    (INT8_TOLERANCE for int8), the pages aside (their numbers are the dump's, in base64);
  - with --unit-tests: the unit tests, under each setting but the default (ctest runs them
    under the default as the test "unit").

Ends with "N passed, N failed"; exits 1 on any failure.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import kernel_settings  # noqa: E402
import support  # noqa: E402

# (batch size, threads) of each setting in turn; the default runs the first.
BATCHES = [(16, 1), (1, 1), (5, 2), (32, 2), (3, 1), (64, 2), (7, 2), (2, 1), (9, 2), (4, 1)]

# One minimt run: arguments after `minimt` ({out} is a folder of the run's own, and the files
# written there are outputs too), and its standard input.
Command = collections.namedtuple("Command", "label args stdin", defaults=(None,))


# ----------------------------------------------------------------------------- the outputs

def shipped_commands(work):
    """The Commands on the shipped model."""
    # Few lines: the generic kernel calls a library fma per product (60 lines take 6 s of CPU,
    # 60 times the AVX-512 kernel's); tests/e2e/test_kernels_heldout.py holds all 2,000
    # held-out lines across the kernels.
    m = ["--model", support.SHIPPED]
    english = [en for en, _ in support.heldout_pairs(8)]
    lines = ("\n".join(english) + "\n").encode()
    first = ("\n".join(english[:4]) + "\n").encode()
    pairs = ("\n".join("%s\t%s" % p for p in support.heldout_pairs(8)) + "\n").encode()
    short = b"The black cat sees the small dog.\n\nI like the bird.\nHe is not happy.\n"
    heads_pairs = os.path.join(work, "heads.tsv")
    with open(heads_pairs, "wb") as f:
        f.write(b"The black cat sees the small dog.\tLe chat noir voit le petit chien.\n")
    return [
        Command("held-out, jsonl, alternatives", ["translate", *m, "--format", "jsonl",
                                                  "--alternatives", "3"], lines),
        Command("held-out, beam 4, n-best 4", ["translate", *m, "--format", "jsonl",
                                               "--beam-size", "4", "--n-best", "4",
                                               "--length-penalty", "0.6"], first),
        Command("sampling", ["translate", *m, "--format", "jsonl", "--sample", "--seed", "3",
                             "--temperature", "0.8", "--top-k", "5"], lines),
        Command("score, jsonl, alignment", ["score", *m, "--format", "jsonl", "--align"], pairs),
        Command("align, grow-diag-final", ["translate", *m, "--align", "--align-rule",
                                           "grow-diag-final"], lines),
        Command("align, default rule", ["translate", *m, "--align"], lines),
        Command("dump, rollout, page", ["translate", *m, "--rollout", "--dump-attention",
                                        "{out}/dump.json", "--view", "{out}/page.html"], short),
        Command("masked heads, dump", ["translate", *m, "--mask-heads", "encoder:0:*,cross:-1:1",
                                       "--dump-attention", "{out}/masked.json"], short),
        Command("heads, jsonl and page", ["heads", *m, "-i", heads_pairs, "--format", "jsonl",
                                          "--prune-order", "--view", "{out}/heads.html"]),
        Command("int8", ["translate", *m, "--compute-type", "int8", "--format", "jsonl"], lines),
    ]


def outputs(minimt, command, setting, batch, threads, out):
    """{name: bytes} of one run of `command` under `setting`: status, stdout, the files in out."""
    os.makedirs(out)
    args = [minimt] + [a.replace("{out}", out) for a in command.args]
    if command.args[0] in ("translate", "score", "heads"):
        args += ["--batch-size", str(batch), "--threads", str(threads)]
    result = kernel_settings.run_under(setting, args, input=command.stdin, timeout=600)
    return kernel_settings.outputs(result, {name: os.path.join(out, name)
                                            for name in sorted(os.listdir(out))})


def check_outputs(tally, minimt, work):
    found = kernel_settings.settings(minimt)
    print("settings: " + "; ".join(setting.name for setting in found))
    for c, command in enumerate(shipped_commands(work)):
        tolerance = kernel_settings.tolerance_of(command.args)
        runs = {}
        for s, setting in enumerate(found):
            if s and tolerance is None and not kernel_settings.exact_under(setting):
                continue
            batch, threads = BATCHES[s % len(BATCHES)]
            out = os.path.join(work, "c%d-s%d" % (c, s))
            runs[s] = outputs(minimt, command, setting, batch, threads, out)
        default = runs.pop(0)
        tally.check(default["status"] == b"0", "%s: exit status 0 under the default"
                    % command.label, default["stdout"][:300])
        for s, got in runs.items():
            setting, (batch, threads) = found[s], BATCHES[s % len(BATCHES)]
            exact = kernel_settings.exact_under(setting)
            problems = kernel_settings.differences(default, got, exact, tolerance)
            tally.check(not problems, "%s under %s (batch %d, %d threads): %s as the default"
                        % (command.label, setting.name, batch, threads, "the same bytes" if exact
                           else "the same words, numbers within %g," % tolerance),
                        "; ".join("%s: %s" % p for p in problems[:3]))


# ----------------------------------------------------------------------------- the unit tests

def check_unit_tests(tally, minimt, unit_tests):
    listed = support.run([unit_tests, "--list-test-names-only"], text=True).out
    cases = len([line for line in listed.splitlines() if line.strip()])
    tally.check(cases > 50, "the unit tests list %d test cases" % cases)
    for setting in kernel_settings.settings(minimt)[1:]:
        result = kernel_settings.run_under(setting, [unit_tests], text=True, timeout=900)
        summary = re.search(r"All tests passed \((\d+) assertions? in (\d+) test cases?\)",
                            result.out)
        tally.check(result.status == 0 and summary and int(summary.group(2)) == cases,
                    "unit tests under %s: all %d test cases pass" % (setting.name, cases),
                    result.out[-1500:])


def main():
    parser = support.parser(__doc__)
    parser.add_argument("--unit-tests", help="the Catch2 binary (build/tests/minimt_tests)")
    args = parser.parse_args()
    minimt = support.minimt_from(args)
    tally = support.Tally(verbose=True)
    if args.unit_tests:
        check_unit_tests(tally, minimt, os.path.abspath(args.unit_tests))
    else:
        with support.scratch("kernel-matrix") as work:
            check_outputs(tally, minimt, work)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
