#!/usr/bin/python3
"""minimt view's cost is linear in the dump (issue 24, class 5): the CPU time and peak memory of
`minimt view` on dumps of 10,000, 50,000 and 200,000 blank sentences (`{}` each). Reading one
used to scan the whole sentence list at the end of every sentence (nlohmann's parser with a
callback does): 200,000 took over a minute. Here each step of 4x or 5x the sentences may cost at
most 1.6 times that factor, and 200,000 at most 20 s of CPU and 400 MB, and each sentence past
the first 10,000 at most 1.25 KB of peak memory (issue 35: the page was built whole as a JSON
tree first, 2.5 KB a sentence, 512 MB for 200,000; it is now written a sentence at a time,
measured 0.9 KB a sentence, 193 MB). The other readers' bounds are checked
where their hostile files are: test_bad_models.py (config.json, safetensors header, tokenizer
file sizes), test_tokenizer_files.py (pieces, charsmap, self-test), test_files_and_resources.py
(a dump over 1 GiB), fuzz/regressions (a dump nested past 64 levels).

    /usr/bin/python3 tests/e2e/test_reader_bounds.py MINIMT
"""
import json
import os
import shutil
import tempfile

import hostile_files

SIZES = (10000, 50000, 200000)
GROWTH_SLACK = 1.6
MAX_CPU_SECONDS, MAX_RSS_MB = 20.0, 400
MAX_KB_PER_SENTENCE = 1.25  # peak memory each sentence adds, past the smallest run


def main():
    minimt = hostile_files.minimt_argument()
    results = hostile_files.Results()
    work = tempfile.mkdtemp(prefix="minimt-reader-bounds-")
    try:
        costs = []
        for count in SIZES:
            dump = os.path.join(work, "blank-%d.json" % count)
            with open(dump, "w") as f:
                json.dump({"format": "minimt-attention", "version": 1, "sentences": [{}] * count},
                          f)
            got = hostile_files.run([minimt, "view", dump, "-o", dump + ".html"], work,
                                    limit_address_space=False)
            err = got.stderr.decode()
            results.check(got.status == 0 and "%d sentences, 0 heatmaps" % count in err,
                          "view of %d blank sentences: status %d, %r" % (count, got.status, err))
            print("view of %6d blank sentences: %5.2f s CPU, %5.0f MB peak" %
                  (count, got.cpu_seconds, got.max_rss_mb))
            costs.append((count, max(got.cpu_seconds, 0.05), got.max_rss_mb))
            os.remove(dump + ".html")
        if not hostile_files.SANITIZED:
            for (n0, cpu0, rss0), (n1, cpu1, rss1) in zip(costs, costs[1:]):
                factor = n1 / n0
                results.check(cpu1 / cpu0 <= factor * GROWTH_SLACK,
                              "CPU time %d -> %d sentences grew %.1fx (linear: %.0fx)"
                              % (n0, n1, cpu1 / cpu0, factor))
                results.check(rss1 / rss0 <= factor * GROWTH_SLACK,
                              "peak memory %d -> %d sentences grew %.1fx (linear: %.0fx)"
                              % (n0, n1, rss1 / rss0, factor))
            (n0, _, rss0), (n1, _, rss1) = costs[0], costs[-1]
            per_sentence = (rss1 - rss0) * 1024 / (n1 - n0)
            results.check(per_sentence <= MAX_KB_PER_SENTENCE,
                          "peak memory per sentence %d -> %d: %.2f KB (limit %.2f KB)"
                          % (n0, n1, per_sentence, MAX_KB_PER_SENTENCE))
            count, cpu, rss = costs[-1]
            results.check(cpu < MAX_CPU_SECONDS and rss < MAX_RSS_MB,
                          "%d sentences: %.1f s CPU, %.0f MB (limits %.0f s, %d MB)"
                          % (count, cpu, rss, MAX_CPU_SECONDS, MAX_RSS_MB))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results.finish()


if __name__ == "__main__":
    raise SystemExit(main())
