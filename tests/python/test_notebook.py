#!/usr/bin/env python3
"""docs/notebooks/attention.ipynb runs: Debian's jupyter-nbconvert executes every cell with the
module of this build (its asserts hold softmax(scores) == weights, exact zeros under the causal
mask and on an ablated head), no cell fails, the first cell prints the shipped model's
translation, and the last two give a PNG (matplotlib) and the page as HTML. Then two pages'
_repr_html_ in one document, as a notebook shows them, in headless Chromium: each frame's
script draws its own page ("ok: N heatmaps" in its status line, N the page's own count) with no
script error and no clash between the two.

    test_notebook.py --minimt build/minimt [--python-dir build/python]
"""

import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import support  # noqa: E402
from browser import Browser, BrowserError  # noqa: E402

NOTEBOOK = os.path.join(support.ROOT, "docs", "notebooks", "attention.ipynb")

# Each frame's status line, once both pages have drawn (null until then).
STATUSES = """(function () {
  var frames = document.querySelectorAll('iframe'), out = [];
  for (var i = 0; i < frames.length; i++) {
    var d = frames[i].contentDocument, s = d && d.getElementById('minimt-status');
    if (!s || !/^(ok|error)/.test(s.textContent)) return null;
    out.push(s.textContent);
  }
  return out;
}())"""


def check_notebook(tally, python_dir, scratch):
    out = os.path.join(scratch, "executed.ipynb")
    env = {"PYTHONPATH": python_dir, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    done = support.run(["jupyter-nbconvert", "--to", "notebook", "--execute", "--output", out,
                        NOTEBOOK], env=env, text=True, cwd=scratch, timeout=600)
    if not tally.check(done.status == 0, "jupyter-nbconvert --execute: every cell ran",
                       done.err[-2000:]):
        return
    with open(out, encoding="utf-8") as f:
        cells = [c for c in json.load(f)["cells"] if c["cell_type"] == "code"]
    outputs = [o for c in cells for o in c.get("outputs", [])]
    tally.check(not [o for o in outputs if o["output_type"] == "error"], "no cell has an error")
    first = "".join("".join(o["text"]) for o in cells[0]["outputs"] if o["output_type"] == "stream")
    tally.equal("the first cell's translation", first.splitlines()[0], "Je suis étudiant.")
    kinds = [set(o.get("data", {})) for o in cells[-2]["outputs"]]
    tally.check(any("image/png" in k for k in kinds), "the picture cell shows a PNG", kinds)
    page = [o["data"]["text/html"] for o in cells[-1]["outputs"] if "text/html" in o.get("data", {})]
    tally.check(page and "".join(page[0]).startswith("<iframe srcdoc="),
                "the last cell shows the page in a frame")


def check_two_pages(tally, python_dir, scratch):
    sys.path.insert(0, python_dir)
    import minimt
    model = minimt.Model(support.SHIPPED)
    one = model.translate("I am a student.", attention=True)
    two = model.translate(["The black cat sees the small dog.", "the wolves are not sad"],
                          attention=True, dump_scores=True)
    views = [minimt.view(one), minimt.view(two, title="two sentences")]
    heatmaps = [sum(r.arrays[k].shape[0] * r.arrays[k].shape[1] for k in
                    ("encoder_self_attention", "decoder_self_attention", "cross_attention"))
                for r in (one, two[0])]
    document = os.path.join(scratch, "notebook.html")
    with open(document, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><body>%s<p>between</p>%s</body></html>"
                % (views[0]._repr_html_(), views[1]._repr_html_()))
    try:
        with Browser(scratch) as browser, browser.page("file://" + document, size=(1200, 1600)) as page:
            statuses = None
            for _ in range(500):
                statuses = page.evaluate(STATUSES)
                if statuses:
                    break
                time.sleep(0.02)
    except BrowserError as e:
        tally.check(False, "the browser: %s" % e)
        return
    tally.check(statuses is not None and len(statuses) == 2, "both frames drew", statuses)
    if statuses:
        for i, (status, count) in enumerate(zip(statuses, heatmaps)):
            tally.equal("frame %d's status line" % (i + 1), status.split(",")[0].split(" (")[0],
                        "ok: %d heatmaps" % count)


def main():
    parser = support.parser(__doc__)
    parser.add_argument("--python-dir", help="where the module is (default: python/ beside --minimt)")
    args = parser.parse_args()
    minimt = support.minimt_from(args)
    python_dir = os.path.abspath(args.python_dir or os.path.join(os.path.dirname(minimt), "python"))
    tally = support.Tally()
    if not tally.check(shutil.which("jupyter-nbconvert"), "jupyter-nbconvert is installed "
                       "(tools/setup.sh --tests installs Debian's jupyter-nbconvert)"):
        return tally.finish()
    with support.scratch("notebook") as scratch:
        check_notebook(tally, python_dir, scratch)
        check_two_pages(tally, python_dir, scratch)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
