#!/usr/bin/python3
"""minimt view A.json B.json compares every key both dumps hold, not only the weights (issue 36,
item 5).

    test_view_difference_values.py --minimt build/minimt [--chromium chromium]

The shipped model scores "Le chat noir voit le petit chien." for "The black cat sees the small
dog." with --dump-scores --dump-norms --logit-lens 3 (A), and again with heads ablated (B); a
third dump (C) holds the scores only. In headless Chromium, compared with the dumps parsed here:
  - the values menu of view A B offers each key both hold (weights, scores, weight x norm), and
    of view A C only weights and scores; every choice draws without a script error;
  - a pinned cell, for each value drawn, prints B - A, A and B equal to the dumps' values to the
    digits shown (B - A as minimt computes it, in single floats);
  - the panel of the pinned row prints, for each key, each run's weight, score and weight x norm
    and B - A, and the head's whole contribution ||sum_j a_ij v_j W_O|| in each run;
  - the logit lens: each cell names B's most likely token and prints A's and B's probability of
    it and B - A;
  - the output probabilities: hovering a decoder row prints each run's probability of the piece
    and B - A.
Ends with "N passed, N failed"; exit 1 on failure.
"""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import HOVER_CELLS, browser_test  # noqa: E402
from test_page_numbers import f32, rounds_to  # noqa: E402

TALLY = support.Tally()
check = TALLY.check
PAIR = ("The black cat sees the small dog.", "Le chat noir voit le petit chien.")
ABLATE = "cross:0:1,decoder:1:3"
KEYS = {"encoder": "encoder_self", "decoder": "decoder_self", "cross": "cross"}
# The cells pinned: (type, layer, head, row, col); cross 0 1 is ablated in B, decoder 1 0 reads
# what the ablation upstream changed.
CELLS = [("decoder", 1, 0, 3, 2), ("cross", 2, 2, 4, 1), ("cross", 0, 1, 2, 1), ("encoder", 2, 3, 5, 6)]
VALUES = [("weights", "_attention", None), ("scores", "_scores", "scores (before the softmax)"),
          ("norms", "_weighted_norms", "weight \u00d7 norm")]

MENU = """(function () {
  var pick = document.getElementById('pick-values');
  return { values: Array.prototype.map.call(pick.options, function (o) { return o.value; }),
           shown: !document.getElementById('values-label').hidden,
           status: document.getElementById('minimt-status').textContent,
           lens: !!document.querySelector('section.sentence:not([hidden]) section.lens') };
}())"""

PINNED = """(function () {
  var panel = document.getElementById('minimt-panel'), cells = {};
  panel.querySelectorAll('td[data-quantity]').forEach(function (td) {
    var row = td.parentNode.rowIndex;
    cells[row + ' ' + td.getAttribute('data-quantity') + ' ' + td.getAttribute('data-run')] = td.textContent;
  });
  var norm = panel.querySelector('p.head-norm');
  return { info: document.getElementById('minimt-info').textContent,
           weight: (document.getElementById('minimt-pinned-weight') || {}).textContent,
           panel: panel.hidden ? null : cells, headNorm: norm ? norm.textContent : null,
           status: document.getElementById('minimt-status').textContent };
}())"""

LENS = """(function () {
  var t = document.querySelector('section.sentence:not([hidden]) section.lens table');
  return t ? Array.prototype.slice.call(t.querySelectorAll('tr'), 1).map(function (tr) {
    return Array.prototype.slice.call(tr.children, 1).map(function (td) {
      var out = { token: td.getAttribute('data-token') };
      td.querySelectorAll('span[data-run]').forEach(function (s) { out[s.getAttribute('data-run')] = s.textContent; });
      return out;
    });
  }) : null;
}())"""

RUNS = r"B \u2212 A (\S+) \(A (\S+), B (\S+)\)"


def run_ok(command, what):
    result = support.run(command, timeout=300)
    check(result.returncode == 0, "%s: exit %d %s" % (what, result.returncode, result.stderr[-300:]))


def dump(minimt, scratch, name, *options):
    path = os.path.join(scratch, name + ".json")
    run_ok([minimt, "score", "-m", support.SHIPPED, "--dump-attention", path, *options, *PAIR], "score " + name)
    with open(path, encoding="utf-8") as f:
        return path, json.load(f)["sentences"][0]


def runs_match(text, a, b, change, what):
    """Whether "B - A X (A Y, B Z)" in `text` prints the dumps' values to the digits shown."""
    found = re.search(RUNS, text or "")
    check(found is not None and rounds_to(found.group(1), change) and rounds_to(found.group(2), a) and
          rounds_to(found.group(3), b),
          "%s: %r, want B - A %r (A %r, B %r)" % (what, text, change, a, b))


def check_menu(browser, page, want, lens):
    with browser.page("file://" + page, until="#minimt-status") as p:
        got = p.evaluate(MENU)
    check(got["values"] == want and got["shown"] == (len(want) > 1),
          "%s: the values menu offers %r (shown: %r), want %r" % (os.path.basename(page), got["values"], got["shown"], want))
    check(got["lens"] == lens, "%s: a logit lens section: %r, want %r" % (os.path.basename(page), got["lens"], lens))
    for values in want:
        with browser.page("file://%s#values=%s" % (page, values), until="#minimt-status") as p:
            status = p.evaluate(MENU)["status"]
        check(status.startswith("ok:"), "%s, values=%s: drawn without a script error (%r)" % (page, values, status))


def check_pinned(browser, page, sa, sb):
    for kind, layer, head, i, j in CELLS:
        prefix = KEYS[kind]
        for values, suffix, name in VALUES:
            x, y = sa[prefix + suffix][layer][head][i][j], sb[prefix + suffix][layer][head][i][j]
            where = "%s %d %d, cell %d %d, %s" % (kind, layer, head, i, j, values)
            pin = "#show=%s&values=%s&pin=%s.%d.%d.%d.%d" % (kind, values, kind, layer, head, i, j)
            with browser.page("file://" + page + pin, until="#minimt-status[data-state]") as p:
                got = p.evaluate(PINNED)
            change = f32(f32(y) - f32(x))
            if values == "weights":
                runs_match(got["weight"], f32(x), f32(y), change, where + ": the pinned weight")
                check_panel(got, sa, sb, kind, layer, head, i, where)
            else:
                line = got["info"].split(" \u00b7 ")[-1]
                check(line.startswith(name + " B \u2212 A"), "%s: the pinned cell names %r: %r" % (where, name, line))
                runs_match(line, f32(x), f32(y), change, where + ": the pinned value")


def check_panel(got, sa, sb, kind, layer, head, i, where):
    cells, prefix = got["panel"], KEYS[kind]
    if not check(cells, "%s: the panel of the pinned row is open" % where):
        return
    for quantity, suffix in (("weight", "_attention"), ("score", "_scores"), ("norm", "_weighted_norms")):
        row_a, row_b = sa[prefix + suffix][layer][head][i], sb[prefix + suffix][layer][head][i]
        bad = []
        for j, (x, y) in enumerate(zip(row_a, row_b)):
            printed = [cells.get("%d %s %s" % (j + 1, quantity, run)) for run in ("a", "b", "change")]
            if kind == "decoder" and j > i:
                if printed[:2] != ["masked", "masked"]:
                    bad.append((j, printed))
                continue
            want = (f32(x), f32(y), f32(f32(y) - f32(x)))
            if None in printed or not all(rounds_to(t, v) for t, v in zip(printed, want)):
                bad.append((j, printed, want))
        check(not bad, "%s: the panel's %s A, B and B - A of every key are the dumps' (%r)" % (where, quantity, bad[:2]))
    x, y = sa[prefix + "_head_norms"][layer][head][i], sb[prefix + "_head_norms"][layer][head][i]
    runs_match(got["headNorm"], f32(x), f32(y), f32(f32(y) - f32(x)), where + ": the head's contribution")


def check_lens(browser, page, sa, sb):
    with browser.page("file://" + page, until="#minimt-status") as p:
        table = p.evaluate(LENS)
    la, lb = sa["decoder_layer_predictions"], sb["decoder_layer_predictions"]
    if not check(table and len(table) == len(lb), "lens: a row per decoder layer (%r)" % (table and len(table))):
        return
    bad, compared = [], 0
    for layer, cells in enumerate(table):
        for t, got in enumerate(cells):
            best = lb[layer][t][0]
            in_a = [x["probability"] for x in la[layer][t] if x["token"] == best["token"]]
            ok = got.get("token") == best["token"] and rounds_to(got.get("b", "")[2:], f32(best["probability"]))
            if in_a:
                compared += 1
                change = f32(best["probability"]) - f32(in_a[0])
                ok = ok and rounds_to(got.get("a", "")[2:], f32(in_a[0])) and \
                    rounds_to(got.get("change", "")[len("B \u2212 A "):], change)
            else:
                ok = ok and got.get("a", "").startswith("A not in its top") and "change" not in got
            if not ok:
                bad.append((layer, t, got, best, in_a))
    check(not bad and compared > 0, "lens: every cell prints B's token, A's and B's probability and B - A "
          "(%d compared) %r" % (compared, bad[:2]))


def check_outputs(browser, page, sa, sb):
    with browser.page("file://" + page, until="#minimt-status") as p:
        tips = p.evaluate(HOVER_CELLS % ('"cross"', 0, 0, "null"))
    bad = []
    for t, token in enumerate(sb["output_tokens"]):
        line = tips[t][0].split("\n")[-1]
        pa, pb = math.exp(f32(sa["output_log_probs"][t])), math.exp(f32(sb["output_log_probs"][t]))
        found = re.match(r"p\((.*)\): A (\S+), B (\S+), B \u2212 A (\S+)$", line)
        if not (found and found.group(1) == token and rounds_to(found.group(2), pa) and
                rounds_to(found.group(3), pb) and rounds_to(found.group(4), pb - pa)):
            bad.append((t, line, pa, pb))
    check(not bad, "output probabilities: each row's A, B and B - A are the dumps' %r" % bad[:2])


def check_pages(minimt, browser, scratch):
    full = ["--dump-scores", "--dump-norms", "--logit-lens", "3"]
    a_path, sa = dump(minimt, scratch, "a", *full)
    b_path, sb = dump(minimt, scratch, "b", *full, "--ablate-heads", ABLATE)
    c_path, _ = dump(minimt, scratch, "c", "--dump-scores")
    page, partial = os.path.join(scratch, "a-vs-b.html"), os.path.join(scratch, "a-vs-c.html")
    run_ok([minimt, "view", a_path, b_path, "-o", page], "view A B")
    run_ok([minimt, "view", a_path, c_path, "-o", partial], "view A C")
    check_menu(browser, page, ["weights", "scores", "norms"], True)
    check_menu(browser, partial, ["weights", "scores"], False)
    check_pinned(browser, page, sa, sb)
    check_lens(browser, page, sa, sb)
    check_outputs(browser, page, sa, sb)


def main():
    return browser_test(__doc__, "view-difference-values", TALLY, check_pages)


if __name__ == "__main__":
    sys.exit(main())
