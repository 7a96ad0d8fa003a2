"""The Markdown report of a bench run: the machine, then each section that ran, then the
targets."""
import compute
from base_model import report_base
from beam import report_beam
from kernels import report_kernels
from limits import report_limits
from oneshot import report_oneshot
from targets import report_targets
from throughput import report_throughput


def report(results, args):
    """The Markdown report: the machine, then each section that ran, then the targets.

    Each section adds its lines through `add` and its comparisons to `targets` as
    (what, measured, target, ok) with ok None for a figure given for comparison only;
    results["targets"] receives the targets too (for --json)."""
    lines = []
    add = lines.append
    targets = []
    report_machine(results, args, add)
    if "oneshot" in results:
        report_oneshot(results["oneshot"], add, targets)
    if "throughput" in results:
        report_throughput(results["throughput"], add, targets)
    if "beam" in results:
        report_beam(results["beam"], add, targets)
    if "limits" in results:
        report_limits(results["limits"], add)
    if "base" in results:
        report_base(results["base"], results.get("limits"), add, targets)
    if "kernels" in results:
        report_kernels(results["kernels"], results.get("kernels_core"), add)
    if "compute" in results:
        compute.report_compute(results["compute"], add, targets)
    report_targets(targets, add)
    results["targets"] = [{"what": w, "measured": m_, "target": t_, "holds": ok}
                          for w, m_, t_, ok in targets]
    return "\n".join(lines) + "\n"


def report_machine(results, args, add):
    m = results["machine"]
    add("Measured %s on %s (%s cores%s, %s GB), %s; minimt %s (%s), PyTorch %s; "
        "load average %.1f at the start, %.1f at the end%s."
        % (m["date"], m["cpu"], m["cores"], ", L3 " + m["l3"] if "l3" in m else "",
           m.get("memory_gb", "?"), "Linux " + m["kernel"], m.get("commit", "?"),
           m.get("worktree", "?"), m.get("torch", "?"), results["load_start"],
           results["load_end"], " (--quick)" if args.quick else ""))
    if "blas_core" in m:
        add("")
        add("`minimt info`: blas core %s; linear layers: %s." % (m["blas_core"],
                                                                m.get("linear_layers", "?")))
