#!/usr/bin/python3
"""The page's views of what the weights come from (issue 25) in headless Chromium.

    test_inside_page.py --minimt build/minimt [--chromium chromium]

The random model "inside" (tests/support.py; 2 encoder and 2 decoder layers, 4 heads) translates two sentences with
--dump-scores --dump-vectors --dump-norms --logit-lens 3; minimt view draws the dump. Then:
  - the page loads with "ok: N heatmaps" (every layer and head; no script error);
  - the values menu offers weights, scores and weight x norm; switching it redraws a heatmap
    (its cells' pixels change) and the numbers drawn are the dump's scores (the cells above the
    diagonal of decoder self-attention NaN: drawn as masked) and weighted norms;
  - a click on a cell opens the panel of its row: the softmax table (each key's score, its
    softmax, the dump's weight; the masked keys said so) and the neuron view (q, each k, their
    product, the score); the softmax column equals the dump's weights, the scores the dump's;
  - the logit-lens table: one row per decoder layer, one column per position, each cell the
    dump's most likely token and its probability;
  - a dump without the extras shows no values menu, panel or lens.
Chromium must be installed (tools/test.sh installs it); missing, the test fails, not skipped.
One Chromium serves every page (tests/browser.py). Ends with "N passed, N failed"; exit 1 on failure.
"""
import html
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import browser_test  # noqa: E402
from test_view_browser import page_status, run  # noqa: E402

TALLY = support.Tally()
check = TALLY.check

PROBE = """<script>
(function () {
  var result = {};
  function figure(type) {
    return document.querySelector('section.sentence:not([hidden]) figure[data-type="' + type +
                                  '"][data-layer="1"][data-head="2"]');
  }
  function pixels(fig) { return fig.querySelectorAll('canvas')[0].toDataURL(); }
  var pick = document.getElementById('pick-values');
  result.options = Array.prototype.map.call(pick.options, function (o) { return o.value; });
  result.menuHidden = document.getElementById('values-label').hidden;
  var before = {};
  ['decoder', 'cross'].forEach(function (type) { before[type] = pixels(figure(type)); });
  function choose(mode) {
    pick.value = mode;
    pick.dispatchEvent(new Event('change'));
    var out = {};
    ['decoder', 'cross'].forEach(function (type) {
      var g = figure(type).minimt;
      out[type] = { values: g.values, changed: pixels(figure(type)) !== before[type],
                    drawn: Array.prototype.map.call(g.drawn, function (x) { return isNaN(x) ? null : x; }),
                    rows: g.m.rows, cols: g.m.cols };
    });
    return out;
  }
  if (result.options.length > 1) {
    result.scores = choose('scores');
    result.norms = choose('norms');
    choose('weights');
  }
  // A click on cell (row, 0) of decoder self-attention, layer 1, head 2: its row's panel.
  var fig = figure('decoder'), over = fig.querySelectorAll('canvas')[1], g = fig.minimt;
  var box = over.getBoundingClientRect(), row = %d;
  over.dispatchEvent(new MouseEvent('click', { clientX: box.left + g.left + 0.5 * g.cell,
                                               clientY: box.top + g.top + (row + 0.5) * g.cell,
                                               bubbles: true }));
  var panel = document.getElementById('minimt-panel');
  result.panelHidden = panel.hidden;
  result.panelTitle = (panel.querySelector('h3') || {}).textContent || '';
  function table(selector) {
    var t = panel.querySelector(selector);
    return t ? Array.prototype.map.call(t.querySelectorAll('tr'), function (tr) {
      return Array.prototype.map.call(tr.children, function (c) { return c.textContent; });
    }) : null;
  }
  result.softmax = table('table.softmax');
  result.neuron = table('table.neuron');
  var lens = document.querySelector('section.sentence:not([hidden]) section.lens table');
  result.lens = lens ? Array.prototype.map.call(lens.querySelectorAll('tr'), function (tr) {
    return Array.prototype.map.call(tr.children, function (c) { return c.textContent; });
  }) : null;
  var out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
})();
</script>
</body>"""


def probe(browser, page, scratch, row):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    probed = os.path.join(scratch, "probed-" + os.path.basename(page))
    with open(probed, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE % row))
    status, _, dom = page_status(browser, probed, scratch)
    found = re.search(r'<pre id="probe">([^<]*)</pre>', dom)
    return status, json.loads(html.unescape(found.group(1))) if found else None


def close(a, b):
    return abs(a - b) <= 1e-3 * abs(b) + 6e-4  # 4 significant digits, or 3 decimals


def flat(matrix):
    return [x for row in matrix for x in row]


def check_values(got, sentence, mode, key_of):
    for type_name, prefix in (("decoder", "decoder_self"), ("cross", "cross")):
        part = got[type_name]
        want = flat(sentence[prefix + key_of][1][2])
        check(part["values"] == mode, "%s %s: the heatmap draws %r" % (mode, type_name, part["values"]))
        check(part["changed"], "%s %s: switching the values did not redraw the cells" % (mode, type_name))
        drawn = part["drawn"]
        same = len(drawn) == len(want) and all(
            (a is None and b is None) or (a is not None and b is not None and close(a, b))
            for a, b in zip(drawn, want))
        check(same, "%s %s: the page draws %s, the dump has %s" % (mode, type_name, drawn[:8], want[:8]))


def check_panel(result, sentence, row):
    check(not result["panelHidden"], "the click did not open the panel")
    check("layer 1, head 2: query %d" % row in result["panelTitle"],
          "panel title %r" % result["panelTitle"])
    softmax = result["softmax"] or []
    weights = sentence["decoder_self_attention"][1][2][row]
    scores = sentence["decoder_self_scores"][1][2][row]
    check(len(softmax) == 1 + len(weights), "softmax table has %d rows, want %d" %
          (len(softmax), 1 + len(weights)))
    for j, cells in enumerate(softmax[1:]):
        if scores[j] is None:
            check("masked" in cells, "key %d above the diagonal is not shown masked: %r" % (j, cells))
            continue
        check(close(float(cells[1]), scores[j]), "key %d: score %r, dump %r" % (j, cells[1], scores[j]))
        # The softmax computed by the page from the scores, then the dump's weight.
        check(close(float(cells[4]), weights[j]) and close(float(cells[5]), weights[j]),
              "key %d: softmax %r and weight %r, the dump's weight %r" % (j, cells[4], cells[5], weights[j]))
    neuron = result["neuron"] or []
    check(len(neuron) == 2 + len(weights), "neuron view has %d rows, want %d" % (len(neuron), 2 + len(weights)))
    if len(neuron) > 2 and scores[0] is not None:
        check(close(float(neuron[2][3]), scores[0]), "neuron view: key 0 score %r, dump %r" %
              (neuron[2][3], scores[0]))


def check_lens(result, sentence):
    lens = result["lens"] or []
    predictions = sentence["decoder_layer_predictions"]
    check(len(lens) == 1 + len(predictions), "lens table has %d rows, want %d" %
          (len(lens), 1 + len(predictions)))
    for layer, cells in enumerate(lens[1:]):
        for t, text in enumerate(cells[1:]):
            best = predictions[layer][t][0]
            check(text.endswith("%.3f" % best["probability"]) and
                  best["token"].strip("\u2581") in text,
                  "lens layer %d position %d reads %r, the dump's best is %r" % (layer, t, text, best))


def check_pages(minimt, browser, scratch):
    model = support.random_model("inside")
    dump, page = os.path.join(scratch, "dump.json"), os.path.join(scratch, "page.html")
    result = run([minimt, "translate", "--model", model, "--max-length", "10", "--dump-attention",
                  dump, "--dump-scores", "--dump-vectors", "--dump-norms", "--logit-lens", "3"],
                 stdin=b"The small girl reads a red book.\nA dog.\n")
    check(result.returncode == 0, "translate: exit %d %s" % (result.returncode, result.stderr[-300:]))
    with open(dump, encoding="utf-8") as f:
        sentence = json.load(f)["sentences"][0]
    result = run([minimt, "view", dump, "-o", page])
    check(result.returncode == 0, "view: exit %d %s" % (result.returncode, result.stderr[-300:]))
    T = len(sentence["decoder_input_tokens"])
    row = min(2, T - 1)
    status, got = probe(browser, page, scratch, row)
    check(status == "ok: %d heatmaps" % (4 * 2 * 3), "status %r" % status)
    if check(got is not None, "the probe wrote nothing (status %r)" % status):
        check(got["options"] == ["weights", "scores", "norms"] and not got["menuHidden"],
              "values menu %r (hidden %r)" % (got["options"], got["menuHidden"]))
        check_values(got["scores"], sentence, "scores", "_scores")
        check_values(got["norms"], sentence, "norms", "_weighted_norms")
        check_panel(got, sentence, row)
        check_lens(got, sentence)

    plain_dump, plain_page = os.path.join(scratch, "plain.json"), os.path.join(scratch, "plain.html")
    run([minimt, "translate", "--model", model, "--max-length", "10", "--dump-attention",
         plain_dump, "A dog."])
    run([minimt, "view", plain_dump, "-o", plain_page])
    status, got = probe(browser, plain_page, scratch, 0)
    check(status == "ok: 24 heatmaps", "plain dump: status %r" % status)
    if check(got is not None, "plain dump: the probe wrote nothing"):
        check(got["menuHidden"] and got["panelHidden"] and got["lens"] is None,
              "plain dump: menu hidden %r, panel hidden %r, lens %r" %
              (got["menuHidden"], got["panelHidden"], got["lens"]))


def main():
    return browser_test(__doc__, "inside-page", TALLY, check_pages)


if __name__ == "__main__":
    sys.exit(main())
