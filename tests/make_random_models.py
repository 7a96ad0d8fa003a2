#!/usr/bin/python3
"""Makes the random models the end-to-end tests share (support.RANDOM_MODELS), afresh, in one
process: one import of PyTorch for all of them instead of one per model and test.

    make_random_models.py --minimt build/minimt      (ctest: the random_models fixture)

They go to $MINIMT_TEST_MODELS (emptied first, so that a change to tools/reference shows in
the next run). Each must load: `minimt info --model DIR` exits 0 and reports the d_model, the
heads and the head size of the config.json the reference wrote. Ends with "N passed, N failed".
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import support  # noqa: E402

support.use_tools("reference")
import reference  # noqa: E402,F401  (so that support.random_model makes them in this process)


def main():
    minimt = support.minimt_path(__doc__)
    folder = os.environ.get("MINIMT_TEST_MODELS")
    if not folder:
        sys.exit("make_random_models.py: set MINIMT_TEST_MODELS to the folder to fill")
    shutil.rmtree(folder, ignore_errors=True)
    tally = support.Tally(verbose=True)
    for name in support.RANDOM_MODELS:
        path = support.random_model(name)
        with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        info = support.run([minimt, "info", "--model", path], text=True)
        want = "d_model        %d\nheads          %d x head_dim %d\n" % (
            config["d_model"], config["num_heads"], config.get("head_dim", config["d_model"] //
                                                                config["num_heads"]))
        tally.check(info.status == 0 and want in info.out,
                    f"{name}: minimt info reads its config ({path})", info.err or info.out)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
