#!/usr/bin/python3
"""Every number the page prints is the dump's, and the page says what was given (issue 36).

    test_page_numbers.py --minimt build/minimt [--chromium chromium]

The shipped model translates "The black cat sees the small dog." with --dump-scores
--dump-norms --logit-lens 3, and scores "Je suis une étudiante." for "I am a student." (the
model would say "étudiant" where it is given "une"). minimt view draws each dump; in headless
Chromium, compared with the dump JSON parsed here:
  - the panel of the cell decoder.0.0.3.3 (the issue's example): each key's score, softmax
    computed by the page, the dump's weight and ||a v W_O|| print as the dump's value rounded
    to the digits printed; the softmax and the dump's weight print the same; the hover of a
    weight reads its exact float32 value;
  - the tooltip of every cell of a decoder and a cross-attention head, with the values menu on
    weights, scores and weight x norm: the number printed is the dump's rounded to the digits
    printed and never 0 for a value that is not (some weights are under 1e-4), and "float32 X"
    reads back as the dump's float;
  - the logit lens: each cell's probability, and the hover's K tokens;
  - the score dump: the right-hand column says "target (given)" (the translate dump's:
    "predicted"), a given row's tooltip names the model's own most likely token and its
    probability where it differs from the given one, and the probability of the given token
    is not printed as 0; the SVG (--svg) says the same.
Ends with "N passed, N failed"; exit 1 on failure.
"""
import html
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import HOVER_CELLS, browser_test  # noqa: E402

TALLY = support.Tally()
check = TALLY.check
SENTENCE = "The black cat sees the small dog."


def f32(x):
    """x rounded to a single float, as the dump's reader and the page hold it."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rounds_to(text, value):
    """Whether `text` (a number as printed: 0.9997, 3.200e-10, 2.1e-08, -1.234) is `value`
    rounded to the digits printed (a half unit of the last digit, with a little float slack)."""
    try:
        printed = float(text)
    except ValueError:
        return False
    mantissa = text.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    unit = 10.0 ** (exponent - decimals)
    if value != 0 and printed == 0:
        return False  # a value that is not 0 never prints as 0
    return abs(printed - value) <= 0.5 * unit * (1 + 1e-6) + 1e-12 * abs(value)


def run_ok(command, what):
    return support.run_ok(check, command, what)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)



PANEL = """(function () {
  var panel = document.getElementById('minimt-panel');
  var t = panel.querySelector('table.softmax');
  return { hidden: panel.hidden, rows: t ? Array.prototype.map.call(t.querySelectorAll('tr'), function (tr) {
    return Array.prototype.map.call(tr.children, function (c) { return [c.textContent, c.title || '']; });
  }) : null };
}())"""

LENS = """(function () {
  var t = document.querySelector('section.sentence:not([hidden]) section.lens table');
  return t ? Array.prototype.map.call(t.querySelectorAll('tr'), function (tr) {
    return Array.prototype.map.call(tr.children, function (c) { return [c.textContent, c.title || '']; });
  }) : null;
}())"""

TEXTS = """(function () {
  var s = document.querySelector('section.sentence:not([hidden])');
  return { dt: Array.prototype.map.call(s.querySelectorAll('dl.texts dt'), function (d) { return d.textContent; }),
           columns: Array.prototype.map.call(s.querySelectorAll('p.output-column'), function (p) { return p.textContent; }),
           status: document.getElementById('minimt-status').textContent };
}())"""


def check_panel(browser, page, sentence):
    """The issue's example: pin decoder.0.0.3.3 and read the softmax table of its row."""
    with browser.page("file://" + page + "#pin=decoder.0.0.3.3", until="#minimt-panel:not([hidden])") as p:
        got = p.evaluate(PANEL)
    rows = (got or {}).get("rows") or []
    weights = sentence["decoder_self_attention"][0][0][3]
    scores = sentence["decoder_self_scores"][0][0][3]
    norms = sentence["decoder_self_weighted_norms"][0][0][3]
    if not check(len(rows) == 1 + len(weights), "panel of decoder.0.0.3.3: %d rows, want %d" %
                 (len(rows), 1 + len(weights))):
        return
    small = 0
    for j, cells in enumerate(rows[1:]):
        text = [c[0] for c in cells]
        if scores[j] is None:
            check("masked" in text, "key %d above the diagonal: %r" % (j, text))
            continue
        softmax, weight = text[4].strip(), text[5].strip()
        check(rounds_to(text[1], scores[j]), "key %d: score %r, the dump's %r" % (j, text[1], scores[j]))
        check(rounds_to(weight, weights[j]), "key %d: weight (dump) %r, the dump's %r" % (j, weight, weights[j]))
        check(softmax == weight, "key %d: the softmax prints %r beside the dump's weight %r" % (j, softmax, weight))
        check(rounds_to(text[6], norms[j]), "key %d: ||a v W_O|| %r, the dump's %r" % (j, text[6], norms[j]))
        exact = cells[5][1]
        check(f32(float(exact or "nan")) == f32(weights[j]),
              "key %d: the weight's hover %r is not the dump's float %r" % (j, exact, weights[j]))
        small += 0 < weights[j] < 1e-4
    check(small > 0, "the example row has no weight under 1e-4 (the test would not see one)")


def tooltip_number(line, name):
    """(printed, exact) of `name` X (float32 Y) in a tooltip line."""
    found = re.search(re.escape(name) + r" (\S+) \(float32 (\S+)\)", line)
    return found.groups() if found else (None, None)


def check_tooltips(browser, page, sentence):
    small = 0
    for kind, key, layer, head in (("decoder", "decoder_self", 0, 0), ("cross", "cross", 2, 1)):
        for values, suffix, name in (("weights", "_attention", "weight"), ("scores", "_scores", "scores (before the softmax)"),
                                     ("norms", "_weighted_norms", "weight \u00d7 norm")):
            with browser.page("file://" + page, until="#minimt-status") as p:
                tips = p.evaluate(HOVER_CELLS % (json.dumps(kind), layer, head, json.dumps(values)))
            want = sentence[key + suffix][layer][head]
            bad = []
            for i, row in enumerate(want):
                for j, value in enumerate(row):
                    if kind == "decoder" and j > i:
                        continue  # the causal mask
                    printed, exact = tooltip_number(tips[i][j], name)
                    if printed is None or not rounds_to(printed, value) or f32(float(exact)) != f32(value):
                        bad.append((i, j, value, tips[i][j].split("\n")[3:5]))
                    if values == "weights":
                        small += 0 < value < 1e-4
            check(not bad, "%s layer %d head %d, %s: %d cells print other than the dump's, first %r" %
                  (kind, layer, head, values, len(bad), bad[:2]))
    check(small > 0, "no weight under 1e-4 among the cells read")


def check_lens(browser, page, sentence):
    with browser.page("file://" + page, until="#minimt-status") as p:
        table = p.evaluate(LENS) or []
    predictions = sentence["decoder_layer_predictions"]
    if not check(len(table) == 1 + len(predictions), "lens: %d rows, want %d" % (len(table), 1 + len(predictions))):
        return
    for layer, cells in enumerate(table[1:]):
        for t, (text, title) in enumerate(cells[1:]):
            kept = predictions[layer][t]
            printed = text[len(kept[0]["token"]):]  # the token, a line break, the probability
            check(rounds_to(printed, kept[0]["probability"]),
                  "lens layer %d position %d prints %r, the dump's %r" % (layer, t, text, kept[0]["probability"]))
            for line, entry in zip(title.split("\n"), kept):
                found = re.search(r" (\S+) \(float32 (\S+)\)$", line)
                check(found is not None and rounds_to(found.group(1), entry["probability"]) and
                      f32(float(found.group(2))) == f32(entry["probability"]),
                      "lens layer %d position %d: hover %r, the dump's %r" % (layer, t, line, entry))


def check_given(browser, page, svg, document):
    sentence = document["sentences"][0]
    outputs, alternatives = sentence["output_tokens"], sentence["alternatives"]
    differ = [t for t in range(len(outputs)) if alternatives[t][0]["token"] != outputs[t]]
    check(differ, "the score dump: the model agrees with every given token (the test needs one it does not)")
    with browser.page("file://" + page, until="#minimt-status") as p:
        texts = p.evaluate(TEXTS)
        tips = p.evaluate(HOVER_CELLS % ('"cross"', 0, 0, "null"))
    check("target (given)" in texts["dt"], "score page: the texts say %r, want 'target (given)'" % texts["dt"])
    check(texts["columns"] and all("target (given)" in c for c in texts["columns"]),
          "score page: the right-hand column is described as %r" % texts["columns"])
    for t in range(len(outputs)):
        lines = tips[t][0].split("\n")
        p_given = 2.718281828459045 ** sentence["output_log_probs"][t]
        line = lines[-1]
        check(("given " + outputs[t]) in lines[1] and line.startswith("given " + outputs[t]),
              "score page row %d: the tooltip does not say %r was given: %r" % (t, outputs[t], lines))
        found = re.search(r"\) = (\S+?)[;]?(?: |$)", line)
        check(found is not None and rounds_to(found.group(1).rstrip(";"), p_given),
              "score page row %d: p(%s) printed %r, the dump's %r" % (t, outputs[t], line, p_given))
        best = alternatives[t][0]
        own = re.search(r"the model\u2019s own choice: (\S+) (\S+?);", line)
        if t in differ:
            check(own is not None and own.group(1) == best["token"] and rounds_to(own.group(2), best["probability"]),
                  "score page row %d: want the model's own %r %r in %r" % (t, best["token"], best["probability"], line))
        else:
            check(own is None, "score page row %d: the model's own choice is the given one, yet %r" % (t, line))
    with open(svg, encoding="utf-8") as f:
        text = html.unescape(f.read())
    check('class="output-column">target (given)<' in text, "score SVG: no 'target (given)' column heading")
    for t in differ:
        best = alternatives[t][0]
        label = re.search(r">\u2192 %s (\S+) \u00b7 model: %s (\S+)<" % (re.escape(outputs[t]), re.escape(best["token"])), text)
        p_given = 2.718281828459045 ** sentence["output_log_probs"][t]
        check(label is not None and rounds_to(label.group(1), p_given) and rounds_to(label.group(2), best["probability"]),
              "score SVG row %d: want '\u2192 %s p \u00b7 model: %s %.2f'" % (t, outputs[t], best["token"], best["probability"]))


def check_pages(minimt, browser, scratch):
    model = support.SHIPPED
    dump, page = os.path.join(scratch, "t.json"), os.path.join(scratch, "t.html")
    run_ok([minimt, "translate", "--model", model, "--dump-attention", dump, "--dump-scores", "--dump-norms",
            "--logit-lens", "3", SENTENCE], "translate")
    run_ok([minimt, "view", dump, "-o", page], "view")
    sentence = load(dump)["sentences"][0]
    check_panel(browser, page, sentence)
    check_tooltips(browser, page, sentence)
    check_lens(browser, page, sentence)
    with browser.page("file://" + page, until="#minimt-status") as p:
        texts = p.evaluate(TEXTS)
    check(texts["columns"] and all("predicted" in c and "given" not in c for c in texts["columns"]),
          "translate page: the right-hand column is described as %r, want 'predicted'" % texts["columns"])

    scored, scored_page = os.path.join(scratch, "s.json"), os.path.join(scratch, "s.html")
    run_ok([minimt, "score", "--model", model, "--dump-attention", scored, "I am a student.",
            "Je suis une \u00e9tudiante."], "score")
    run_ok([minimt, "view", scored, "-o", scored_page, "--svg", os.path.join(scratch, "s")], "view of the score dump")
    check_given(browser, scored_page, os.path.join(scratch, "s-cross.svg"), load(scored))


def main():
    return browser_test(__doc__, "page-numbers", TALLY, check_pages)


if __name__ == "__main__":
    sys.exit(main())
