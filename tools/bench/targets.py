"""What the bench holds minimt to, and the table of the comparisons against it. A section adds
its comparisons as (what, measured, target, ok), ok None for a figure given for comparison
only."""
from report_format import verdict

TARGETS = {
    "oneshot_speedup": 20.0,      # PyTorch one-shot time / minimt's
    "throughput_speedup": 3.0,    # minimt sentences/s / PyTorch's, 1 thread
    "batch1_bandwidth": 1.5,      # step time / (decoder weight bytes / bandwidth), at most
    "batch32_sgemm": 0.5,         # GFLOP/s / sgemm GFLOP/s, at least
    "thread_scaling": 1.7,        # 2-thread sentences/s / 1-thread
    "oneshot_rss_extra_mb": 50.0,  # peak RSS - model files, at most
}


def report_targets(targets, add):
    if not targets:
        return
    add("")
    add("### Targets (ratios of runs made side by side above)")
    add("")
    add("| comparison | measured | target | |")
    add("|---|---|---|---|")
    for what, measured, target, ok in targets:
        add("| %s | %s | %s | %s |" % (what, measured, target,
                                       "" if ok is None else verdict(ok)))
