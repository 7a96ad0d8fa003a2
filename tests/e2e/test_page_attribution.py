#!/usr/bin/python3
"""The page's attribution maps (issue 39, item 3) in headless Chromium, against the dump's JSON.

    test_page_attribution.py --minimt build/minimt [--chromium chromium]

The shipped model translates two sentences with --attribute all (the page of translate --view
and minimt view of its dump); a random model whose heads are wider than d_model / heads (d_k 6,
d_model 8, 4 heads) translates two with --attribute saliency,occlusion; the shipped model scores
a pair with --attribute all (A) and again with --attribute saliency,integrated_gradients
--ig-steps 8 and a head ablated (B). In headless Chromium, each method picked in the values menu
as a person picks it, every sentence, each of its two maps, read back as drawn:
  - the values menu lists weights and exactly the methods the dump holds (of view A B: those
    both hold); a dump without attributions has no values menu;
  - every cell's colour (the canvas pixel at its centre) is the dump's number on the page's
    colour scale, recomputed here from colour_scales.json: saliency on the sequential scale up
    to the map's largest, the signed methods on the diverging scale up to the map's largest
    magnitude; of two runs, B - A on the diverging scale up to the map's largest |B - A|;
  - every cell's tooltip prints the dump's number as printf's %.4g writes it and as the float it
    is (of two runs: B - A, A and B), integrated gradients each output's completeness gap;
  - the cells j > t of the map to the decoder input are the causal mask: hatched in the mask's
    greys, the tooltip saying so;
  - each map's caption names the method and its largest |value|; integrated gradients' line
    above it its steps, rule and largest |completeness gap| (of each run, for two);
  - the layer and head menus are disabled with the note saying why; encoder self-attention shows
    its note and no heatmap;
  - view A C of another sentence is refused as the other difference views refuse it.
Ends with "N passed, N failed"; exit 1 on failure.
"""
import json
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import browser_test  # noqa: E402
from test_page_numbers import f32  # noqa: E402

TALLY = support.Tally()
check = TALLY.check
SENTENCES = ["The black cat sees the small dog.", "I am a student."]
PAIR = ("The black cat sees the small dog.", "Le chat noir voit le petit chien.")
METHODS = ["saliency", "input_x_gradient", "integrated_gradients", "occlusion"]
RANDOM = "arch-wide-heads-8x4x6-pre-learned-untied-f16"  # d_model 8, 4 heads of d_k 6
with open(os.path.join(support.ROOT, "src", "app", "views", "page", "colour_scales.json"),
          encoding="utf-8") as f:
    SCALES = json.load(f)

# Picks `method` in the values menu (as a person does: the select's change event), then reads the
# map of `type` of the sentence shown: each cell's pixel at its centre, each masked cell's pixels,
# each cell's tooltip, the caption and the line above it, and the header's state.
PROBE = """(function (method, type) {
  var pick = document.getElementById('pick-values');
  var options = Array.prototype.map.call(pick.options, function (o) { return o.value; });
  if (options.indexOf(method) < 0) return { options: options };
  pick.value = method;
  pick.dispatchEvent(new Event('change'));
  var section = document.querySelector('section.sentence:not([hidden])');
  var fig = section.querySelector('figure.attribution[data-type="' + type + '"]'), g = fig && fig.minimt;
  function visible(e) { return !!e && e.offsetParent !== null; }
  var encoder = section.querySelector('section.attention[data-type="encoder"]');
  var out = { options: options, status: document.getElementById('minimt-status').textContent,
              layerOff: document.getElementById('pick-layer').disabled,
              headOff: document.getElementById('pick-head').disabled,
              note: visible(document.getElementById('values-note')) ? document.getElementById('values-note').textContent : null,
              encoderNote: visible(encoder.querySelector('.attribution-none')) ? encoder.querySelector('.attribution-none').textContent : null,
              encoderFigures: Array.prototype.filter.call(encoder.querySelectorAll('figure'), visible).length,
              otherFigures: Array.prototype.filter.call(section.querySelectorAll('figure.heatmap:not(.attribution)'), visible).length,
              drawn: visible(fig) && !!g };
  if (!out.drawn) return out;
  fig.scrollIntoView();
  var about = fig.closest('div.attribution').querySelector('.attribution-about');
  out.caption = fig.querySelector('figcaption').textContent;
  out.about = visible(about) ? about.textContent : null;
  out.rows = g.m.rows; out.cols = g.m.cols; out.cell = g.cell;
  var ctx = fig.querySelectorAll('canvas')[0].getContext('2d'), over = fig.querySelectorAll('canvas')[1];
  var box = over.getBoundingClientRect(), tip = document.getElementById('minimt-tip');
  out.pixels = []; out.tips = []; out.masked = [];
  for (var i = 0; i < g.m.rows; i++) {
    var pixels = [], tips = [];
    for (var j = 0; j < g.m.cols; j++) {
      var x = g.left + (j + 0.5) * g.cell, y = g.top + (i + 0.5) * g.cell;
      var p = ctx.getImageData(Math.floor(x * g.ratio), Math.floor(y * g.ratio), 1, 1).data;
      pixels.push([p[0], p[1], p[2]]);
      if (g.m.lower && j > i) {  // every pixel inside the cell, one pixel in from its edges
        var x0 = Math.ceil((g.left + j * g.cell) * g.ratio) + 1, y0 = Math.ceil((g.top + i * g.cell) * g.ratio) + 1;
        var size = Math.floor(g.cell * g.ratio) - 2, all = ctx.getImageData(x0, y0, size, size).data, seen = {};
        for (var k = 0; k < all.length; k += 4) seen[all[k] + ',' + all[k + 1] + ',' + all[k + 2]] = true;
        out.masked.push({ i: i, j: j, colours: Object.keys(seen) });
      }
      over.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + x, clientY: box.top + y, bubbles: true }));
      tips.push(tip.textContent);
    }
    out.pixels.push(pixels);
    out.tips.push(tips);
  }
  return out;
}(%s, %s))"""


def js_round(x):
    return math.floor(x + 0.5)  # Math.round


def between(stops, x):
    """colour_scales.js's between(): the colour at x (0 to 1) between evenly spaced stops."""
    f = x * (len(stops) - 1)
    i = min(len(stops) - 2, math.floor(f))
    t = f - i
    a, b = stops[i], stops[i + 1]
    return [js_round(a[k] + (b[k] - a[k]) * t) for k in range(3)]


def diverging(value, scale):
    if not scale > 0 or not math.isfinite(value):
        return [255, 255, 255]
    side = SCALES["diverging"]["below" if value < 0 else "above"]
    return between(side, min(1, abs(value) / scale))


def sequential(x):
    return between(SCALES["sequential"]["stops"], max(0, min(1, x)))


def colour(method, value, top, difference):
    """The colour the page should give `value` of a map whose largest |value| is `top`."""
    if difference:  # B - A up to the map's largest change (difference.js: mapPainter)
        f = min(1, abs(value) / top) if top > 0 else 0
        return diverging(-f if value < 0 else f, 1)
    if method == "saliency":
        return sequential(value / top if top > 0 else 0)
    return diverging(value, top)


def g4(x, plus=False):
    """printf's %.4g, with a + for x >= 0 when `plus` (difference.js: significant)."""
    return ("+" if plus and x >= 0 else "") + "%.4g" % x


def masked_greys(colours):
    """Whether a cell's pixels are the mask's hatching: greys between its fill and its stroke."""
    fill = int(SCALES["mask"]["fill"][1:3], 16)
    stroke = int(SCALES["mask"]["stroke"][1:3], 16)
    greys = [tuple(int(v) for v in c.split(",")) for c in colours]
    return (all(r == g == b and stroke <= r <= fill for r, g, b in greys) and
            any(r == fill for r, _, _ in greys) and any(r < fill - 20 for r, _, _ in greys))


def integration(entry):
    return "%d steps, %s rule, largest |completeness gap| %s" % (
        entry["steps"], entry["rule"], g4(max(abs(f32(x)) for x in entry["completeness_gap"])))


def check_map(got, where, method, kind, a, b=None):
    """The map `got` (PROBE's answer) of method `method` beside `kind` against the dumps' entries
    `a` (and `b`: the page shows B - A)."""
    part = "source" if kind == "cross" else "target"
    if not check(got.get("drawn"), "%s: no map drawn (%r)" % (where, got)):
        return
    rows = len(a[part])
    cols = len(a[part][0])
    if not check((got["rows"], got["cols"]) == (rows, cols),
                 "%s: the map is %dx%d, the dump's %dx%d" % (where, got["rows"], got["cols"], rows, cols)):
        return

    def value(entry, i, j):
        x = entry[part][i][j]
        return None if x is None else f32(x)

    values = [[value(a, i, j) if b is None else
               (None if value(a, i, j) is None else f32(value(b, i, j) - value(a, i, j)))
               for j in range(cols)] for i in range(rows)]
    top = max(abs(x) for row in values for x in row if x is not None)
    difference = b is not None
    what = "B \u2212 A" if difference else "value"
    want = "Attribution%s \u00b7 %s of each output to the %s \u00b7 largest |%s| %s" % (
        ", B \u2212 A" if difference else "", method, "source" if kind == "cross" else "decoder input",
        what, g4(top))
    check(got["caption"] == want, "%s: caption %r, want %r" % (where, got["caption"], want))
    if method == "integrated_gradients":
        each = " (each output\u2019s gap: hover over its row)"
        want = ("Integrated gradients: A %s; B %s%s" % (integration(a), integration(b), each) if difference
                else "Integrated gradients: %s%s" % (integration(a), each))
        check(got["about"] == want, "%s: the line above the map %r, want %r" % (where, got["about"], want))
    else:
        check(got["about"] is None, "%s: a line above the map: %r" % (where, got["about"]))

    bad_colour, bad_tip, bad_mask = [], [], []
    for i in range(rows):
        for j in range(cols):
            tip = got["tips"][i][j].split("\n")
            x = values[i][j]
            if x is None:  # the causal mask
                if not (kind == "decoder" and j > i and len(tip) > 3 and tip[3].startswith("masked: ")):
                    bad_tip.append((i, j, tip))
                continue
            if kind == "decoder" and j > i:
                bad_tip.append((i, j, "the dump has a number under the causal mask"))
            if got["pixels"][i][j] != colour(method, x, top, difference):
                bad_colour.append((i, j, x, got["pixels"][i][j], colour(method, x, top, difference)))
            if difference:
                xa, xb = value(a, i, j), value(b, i, j)
                line = "%s B \u2212 A %s (A %s, B %s)" % (method, g4(x, True), g4(xa), g4(xb))
            else:
                # the float as printed must read back as the dump's float
                printed = re.fullmatch(r"%s \S+ \(float32 (\S+)\)" % method, tip[3] if len(tip) > 3 else "")
                line = ("%s %s (float32 %s)" % (method, g4(x), printed.group(1))
                        if printed and f32(float(printed.group(1))) == x else "float32 %r" % x)
            if len(tip) < 4 or tip[3] != line:
                bad_tip.append((i, j, tip[3:4], line))
            if method == "integrated_gradients":
                if difference:
                    ga, gb = f32(a["completeness_gap"][i]), f32(b["completeness_gap"][i])
                    gap = "completeness gap of output %d: B \u2212 A %s (A %s, B %s)" % (
                        i, g4(f32(gb - ga), True), g4(ga), g4(gb))
                    ok = len(tip) > 4 and tip[4] == gap
                else:
                    ga = f32(a["completeness_gap"][i])
                    found = re.fullmatch(r"completeness gap of output %d: (\S+) \(float32 (\S+)\)" % i,
                                         tip[4] if len(tip) > 4 else "")
                    ok = found and found.group(1) == g4(ga) and f32(float(found.group(2))) == ga
                if not ok:
                    bad_tip.append((i, j, tip[4:5], "the completeness gap %r" % ga))
    for cell in got["masked"]:
        if not masked_greys(cell["colours"]):
            bad_mask.append(cell)
    masked = sum(1 for row in values for x in row if x is None)
    check(not bad_colour, "%s: %d cells' colours are not the dump's on the scale, e.g. (row, col, value, "
          "drawn, want) %r" % (where, len(bad_colour), bad_colour[:3]))
    check(not bad_tip, "%s: %d tooltips wrong, e.g. %r" % (where, len(bad_tip), bad_tip[:3]))
    check(not bad_mask and len(got["masked"]) == masked and (kind == "cross") == (masked == 0),
          "%s: the cells j > t are not all hatched as masked (%d of %d probed, %d masked in the dump; "
          "wrong: %r)" % (where, len(got["masked"]), masked, masked, bad_mask[:2]))


def check_page(browser, page, sentences, methods, name, runs=None, menu=None):
    """Every map of `methods` of every sentence of `page` against the dump's `sentences` (with
    `runs`, (A's, B's) sentences: B - A); the values menu offers weights and `menu` (default:
    `methods`)."""
    menu = ["weights"] + (menu or methods)
    for n in range(len(sentences)):
        for method in methods:
            for kind in ("cross", "decoder"):
                where = "%s, sentence %d, %s beside %s" % (name, n + 1, method, kind)
                url = "file://%s#sentence=%d" % (page, n + 1)
                with browser.page(url, size=(1400, 1000), until="#minimt-status[data-state=ok]") as p:
                    got = p.evaluate(PROBE % (json.dumps(method), json.dumps(kind)))
                check(got["options"] == menu, "%s: the values menu %r, want %r" % (where, got["options"], menu))
                if got["options"] != menu:
                    return
                check(got["status"] == "ok: 2 heatmaps", "%s: status %r" % (where, got["status"]))
                check(got["layerOff"] and got["headOff"] and got["note"] and "not per layer or head" in got["note"],
                      "%s: the layer and head menus are not disabled with the note (%r)" % (where, got["note"]))
                check(got["encoderNote"] and got["encoderNote"].startswith("Encoder self-attention has no "
                                                                           "attribution map") and
                      got["encoderFigures"] == 0 and got["otherFigures"] == 0,
                      "%s: encoder's note %r, %d encoder figures and %d head figures shown" %
                      (where, got["encoderNote"], got["encoderFigures"], got["otherFigures"]))
                if runs:
                    a, b = (r[n]["attributions"][method] for r in runs)
                    check_map(got, where, method, kind, a, b)
                else:
                    check_map(got, where, method, kind, sentences[n]["attributions"][method])


def run_ok(command, what):
    return support.run_ok(check, command, what)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["sentences"]


def check_pages(minimt, browser, scratch):
    def at(name):
        return os.path.join(scratch, name)

    # The shipped model: the page translate --view writes, and minimt view of its dump.
    run_ok([minimt, "translate", "-m", support.SHIPPED, "--attribute", "all", "--dump-attention",
            at("shipped.json"), "--view", at("shipped.html"), *SENTENCES], "translate --attribute all")
    shipped = load(at("shipped.json"))
    check_page(browser, at("shipped.html"), shipped, METHODS, "translate --view")
    run_ok([minimt, "view", at("shipped.json"), "-o", at("shipped-view.html")], "view")
    check_page(browser, at("shipped-view.html"), shipped, ["integrated_gradients"], "minimt view",
               menu=METHODS)

    # A random model with d_k != d_model / heads, two methods of four.
    model = support.random_model(RANDOM)
    run_ok([minimt, "translate", "-m", model, "--attribute", "saliency,occlusion", "--max-length", "8",
            "--dump-attention", at("random.json"), *SENTENCES], "translate the random model")
    run_ok([minimt, "view", at("random.json"), "-o", at("random.html")], "view the random model")
    check_page(browser, at("random.html"), load(at("random.json")), ["saliency", "occlusion"], RANDOM)

    # A blank line among them: its empty translation is not attributed; its sections say so, the
    # other sentences draw their maps, and a pin on a map goes when the menu goes back to weights.
    run_ok([minimt, "translate", "-m", support.SHIPPED, "--attribute", "saliency", "--view",
            at("blank.html"), SENTENCES[0], "", SENTENCES[1]], "translate with a blank line")
    with browser.page("file://" + at("blank.html") + "#sentence=2&values=saliency",
                      until="#minimt-status[data-state=ok]") as p:
        notes = p.evaluate("Array.prototype.map.call(document.querySelectorAll("
                           "'section.sentence:not([hidden]) .attribution-missing:not([hidden])'), "
                           "function (e) { return e.textContent; })")
        check(notes == ["Sentence 2 is a blank line: its empty translation is not attributed."] * 2,
              "a blank line: each map's section says it is not attributed, %r" % notes)
        p.evaluate("location.hash = '#sentence=3&values=saliency&pin=cross.attribution.0.1.2'")
        time.sleep(0.5)  # the hashchange event
        pinned = p.evaluate("!!document.getElementById('minimt-pinned-weight') &&"
                            " location.hash.indexOf('pin=cross.attribution') >= 0")
        p.evaluate("(function () { var v = document.getElementById('pick-values'); v.value = 'weights';"
                   " v.dispatchEvent(new Event('change')); }())")
        address = p.evaluate("location.hash")
    check(pinned and "pin=" not in address,
          "a pinned saliency cell, then weights: the pin goes (address %r)" % address)

    # No attributions: no values menu at all.
    run_ok([minimt, "translate", "-m", support.SHIPPED, "--view", at("plain.html"), SENTENCES[0]], "translate")
    with browser.page("file://" + at("plain.html"), until="#minimt-status[data-state=ok]") as p:
        got = p.evaluate("[Array.prototype.map.call(document.getElementById('pick-values').options, "
                         "function (o) { return o.value; }), document.getElementById('values-label').hidden, "
                         "document.querySelectorAll('.attribution').length]")
    check(got == [["weights"], True, 0], "a page without attributions: menu, hidden, attribution parts %r" % got)

    # Two runs: B - A of the methods both hold.
    score = [minimt, "score", "-m", support.SHIPPED, "--dump-attention"]
    run_ok(score + [at("a.json"), "--attribute", "all", *PAIR], "score A")
    run_ok(score + [at("b.json"), "--attribute", "saliency,integrated_gradients", "--ig-steps", "8",
                    "--ablate-heads", "cross:0:1", *PAIR], "score B")
    run_ok([minimt, "view", at("a.json"), at("b.json"), "-o", at("difference.html")], "view A B")
    a, b = load(at("a.json")), load(at("b.json"))
    check(a[0]["attributions"]["saliency"] != b[0]["attributions"]["saliency"],
          "the ablated head changes no saliency: B - A would test nothing")
    check_page(browser, at("difference.html"), b, ["saliency", "integrated_gradients"], "view A B", (a, b))

    # Dumps of other tokens: refused, as the other difference views refuse them.
    run_ok([minimt, "translate", "-m", support.SHIPPED, "--attribute", "all", "--dump-attention",
            at("c.json"), SENTENCES[1]], "translate C")
    result = support.run([minimt, "view", at("a.json"), at("c.json"), "-o", at("refused.html")])
    stderr = result.stderr.decode()
    check(result.returncode == 1 and "cannot compare" in stderr and "source token 0" in stderr and
          not os.path.exists(at("refused.html")),
          "view A C of other sentences: exit %d, %r" % (result.returncode, stderr))


def main():
    return browser_test(__doc__, "page-attribution", TALLY, check_pages)


if __name__ == "__main__":
    sys.exit(main())
