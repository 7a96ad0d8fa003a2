#!/usr/bin/python3
"""The page's script (src/app/views/page/) in headless Chromium, against expectations written here.

    test_page_views.py --minimt build/minimt [--chromium chromium]

  - numbers.js: fixed() and general() against Python's printf formats ("%.*f", "%+.*f",
    "%.9g") on ties, signs, tiny and huge values and thousands of random ones;
  - colour_scales.js: the stops of both scales, the colours of a few weights and signed
    values worked out by hand from ColorBrewer's YlGnBu and RdBu;
  - sentences.js, from dumps written here and rendered by minimt view: one figure per type,
    layer and head plus a hidden average, their captions, the notes of a failed and a blank
    sentence and of the types a partial dump leaves out, text with markup and control
    characters shown as text (control characters as their Control Pictures), the title; the
    dump's compute type and notes (what a format-2 model's scores include) in the header; a
    dump without sentences.
Chromium must be installed (tools/test.sh installs Debian's chromium); if it is missing the
test fails, it is not skipped. One Chromium serves every page (tests/browser.py). Stdlib only.
Ends with "N passed, N failed"; exit 1 on failure.
"""
import html
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import browser_test  # noqa: E402
from test_view_browser import page_status  # noqa: E402

VIEW = os.path.join(support.ROOT, "src", "app", "views", "page")
TALLY = support.Tally()
check = TALLY.check


def module_page(path, modules, probe):
    """A page holding `modules` of src/app/views/page/ and a script writing probe()'s result into
    <pre id="out">."""
    with open(os.path.join(VIEW, "colour_scales.json"), encoding="utf-8") as f:
        scales = f.read()
    script = "".join(open(os.path.join(VIEW, m), encoding="utf-8").read() for m in modules)
    with open(path, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html><html><body><script type="application/json" '
                'id="minimt-colour-scales">%s</script><pre id="out"></pre><script>\n'
                "var page = {};\n%s\ndocument.getElementById('out').textContent = "
                "JSON.stringify((function () {%s})());\n</script></body></html>" % (scales, script, probe))


def run_probe(browser, scratch, modules, probe, name):
    path = os.path.join(scratch, name + ".html")
    module_page(path, modules, probe)
    _, _, dom = page_status(browser, path, scratch)
    found = re.search(r'<pre id="out">([^<]*)</pre>', dom)
    if not check(found and found.group(1), "%s: the probe wrote nothing" % name):
        return None
    return json.loads(html.unescape(found.group(1)))


def number_cases():
    rng = random.Random(7)
    values = [0.125, 0.375, 2.5, 3.5, -0.125, -2.5, 0.0, -0.0, 1e-5, -1e-5, 0.1, 1 / 3, 0.5, 1.5,
              0.045, 1.0005, -2.5e-5, 123456.789, 1e21, 2.0 ** 70, 5e-324, 513 / 512, 1234567895.0,
              999999999.5, 0.00012345678950000001, 1e100, -1e-300, 100.0, 1e9, 0.99995, -0.99995]
    values += [rng.uniform(-1, 1) for _ in range(600)]
    values += [rng.randint(-4000, 4000) / 2 ** rng.randint(1, 14) for _ in range(600)]  # ties
    values += [rng.choice((-1, 1)) * 10 ** rng.uniform(-12, 12) for _ in range(600)]
    return values


def numbers_check(browser, scratch):
    values = number_cases()
    probe = ("var v = %s, out = [];"
             "v.forEach(function (x) { [0, 2, 3, 4, 6].forEach(function (d) {"
             "  out.push(page.numbers.fixed(x, d), page.numbers.fixed(x, d, true)); });"
             "  out.push(page.numbers.general(x, 9)); });"
             "['inf', '-inf', 'nan', '-nan'].forEach(function (x) {"
             "  out.push(page.numbers.fixed(x, 4), page.numbers.fixed(x, 4, true), page.numbers.general(x, 9)); });"
             "return out;") % json.dumps(values)
    got = run_probe(browser, scratch, ["numbers.js"], probe, "numbers")
    if got is None:
        return
    want = []
    for x in values:
        for d in (0, 2, 3, 4, 6):
            want += ["%.*f" % (d, x), "%+.*f" % (d, x)]
        want.append("%.9g" % x)
    for x in (float("inf"), float("-inf")):
        want += ["%.4f" % x, "%+.4f" % x, "%.9g" % x]
    want += ["nan", "+nan", "nan", "-nan", "-nan", "-nan"]  # printf's NaN with and without a sign
    wrong = [(w, g) for w, g in zip(want, got) if w != g]
    check(len(got) == len(want) and not wrong,
          "numbers.js: %d of %d formats differ from printf's, e.g. (printf, page) %r" %
          (len(wrong) + abs(len(got) - len(want)), len(want), wrong[:5]))
    print("numbers.js: %d formats of %d values as printf writes them" % (len(want), len(values)))


# ColorBrewer's YlGnBu (9 classes) and RdBu (its 5 reds and 5 blues, white in the middle).
YLGNBU = ["#ffffd9", "#edf8b1", "#c7e9b4", "#7fcdbb", "#41b6c4", "#1d91c0", "#225ea8", "#253494",
          "#081d58"]
RDBU = ["#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#ffffff", "#d1e5f0", "#92c5de", "#4393c3",
        "#2166ac"]


def rgb(hex_colour):
    return [int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)]


def colours_check(browser, scratch):
    probe = ("var c = page.colours;"
             "return { stops: [0, 1, 2, 3, 4, 5, 6, 7, 8].map(function (i) { return c.sequential(i / 8); }),"
             "  half: c.sequential(1 / 16), sqrt: c.sequential(0.25, 'sqrt'), over: c.sequential(2),"
             "  diverging: c.divergingStops(), costly: c.diverging(-2, 2), helps: c.diverging(0.5, 2),"
             "  zero: c.diverging(0, 2), inf: c.diverging(Infinity, 2), css: c.css([1, 2, 3]) };")
    got = run_probe(browser, scratch, ["colour_scales.js"], probe, "colours")
    if got is None:
        return
    check(got["stops"] == [rgb(c) for c in YLGNBU], "sequential stops %r, want YlGnBu" % got["stops"])
    a, b = rgb(YLGNBU[0]), rgb(YLGNBU[1])  # 1/16 is half way between the first two stops
    check(got["half"] == [int((x + y) / 2 + 0.5) for x, y in zip(a, b)], "weight 1/16: %r" % got["half"])
    check(got["sqrt"] == rgb(YLGNBU[4]), "0.25 on the square-root scale: %r, want the middle stop" % got["sqrt"])
    check(got["over"] == rgb(YLGNBU[8]), "weight 2: %r, want the last stop" % got["over"])
    check(got["diverging"] == [rgb(c) for c in RDBU], "diverging stops %r, want RdBu" % got["diverging"])
    check(got["costly"] == rgb(RDBU[0]), "-2 of 2: %r, want the darkest red" % got["costly"])
    check(got["helps"] == rgb(RDBU[5]), "0.5 of 2: %r, want the first blue" % got["helps"])
    check(got["zero"] == [255, 255, 255] and got["inf"] == [255, 255, 255],
          "0 and infinity: %r %r, want white" % (got["zero"], got["inf"]))
    check(got["css"] == "rgb(1,2,3)", "css %r" % got["css"])


def weights(rows, cols, lower=False):
    return [[0.0 if lower and j > i else 1.0 / (i + 1 if lower else cols) for j in range(cols)]
            for i in range(rows)]


def crafted_dump(types=("encoder", "decoder", "cross"), layers=None, heads=(0, 1, 2)):
    """`types` of 2 layers (or the `layers` kept of them) and `heads`: sentence 1 translated,
    sentence 2 failed, sentence 3 blank."""
    w, kept, count = "\u2581", len(layers or [0, 1]), len(heads)
    s1 = {"source": SOURCE, "translation": "Le chat dort.",
          "source_tokens": [w + "The", w + "cat", w + "<b>sleeps</script>", "</s>"],
          "decoder_input_tokens": ["<s>", w + "Le", w + "chat", w + "dort."],
          "output_tokens": [w + "Le", w + "chat", w + "dort.", "</s>"]}
    s3 = {"source": "", "translation": "", "source_tokens": [], "decoder_input_tokens": [],
          "output_tokens": []}
    for kind in types:
        key = {"encoder": "encoder_self_attention", "decoder": "decoder_self_attention",
               "cross": "cross_attention"}[kind]
        s1[key] = [[weights(4, 4, kind == "decoder")] * count] * kept
        s3[key] = []
    return {"format": "minimt-attention", "version": 1, "model": "/models/toy",
            "selection": {"types": list(types), "layers": layers, "heads": list(heads)},
            "sentences": [s1, {"source": "bad \ufffd", "error": "invalid UTF-8 at byte 4"}, s3]}


SOURCE = "The cat <b>sleeps</b>\x01 \x7f."


def view(minimt, scratch, name, document, *options):
    dump, page = os.path.join(scratch, name + ".json"), os.path.join(scratch, name + ".html")
    with open(dump, "w", encoding="utf-8") as f:
        json.dump(document, f)
    result = support.run([minimt, "view", dump, "-o", page, *options])
    check(result.returncode == 0, "view of the %s dump: exit %d: %s" %
          (name, result.returncode, result.stderr.decode()[-300:]))
    return page


def figures(dom):
    """(class, type, layer, head, hidden, caption) of every heatmap figure but the rollouts."""
    return re.findall(r'<figure class="heatmap( average)?" data-type="(\w+)" data-layer="(\d)" '
                      r'data-head="(\w+)"( hidden="")?><figcaption title="show only this heatmap">'
                      r'([^<]*)</figcaption>', dom)


def sentences_check(browser, minimt, scratch):
    page = view(minimt, scratch, "crafted", crafted_dump(), "--title", "My <title>")
    status, _, dom = page_status(browser, page, scratch)
    check(status == "ok: 18 heatmaps", "crafted page: status %r, want 'ok: 18 heatmaps'" % status)
    want = []
    for kind in ("encoder", "decoder", "cross"):
        for layer in range(2):
            for head in ("0", "1", "2", "avg"):
                caption = "layer %d \u00b7 %s" % (layer, "average of heads 0, 1, 2" if head == "avg" else "head " + head)
                want.append((" average" if head == "avg" else "", kind, str(layer), head,
                             ' hidden=""' if head == "avg" else "", caption))
    found = figures(dom)
    check(found == want, "figures %r..., want %r..." % (found[:5], want[:5]))
    shown = "The cat &lt;b&gt;sleeps&lt;/b&gt;\u2401 \u2421."
    check("<dd>%s</dd>" % shown in dom and "<b>" not in dom,
          "the source is not shown as text with Control Pictures (%r)" % shown)
    check("<title>My &lt;title&gt;</title>" in dom and "<h1>My &lt;title&gt;</h1>" in dom and
          '<span class="subtitle">model /models/toy</span>' in dom, "the title or subtitle is wrong")
    check('<p class="note error">This sentence was not translated: invalid UTF-8 at byte 4</p>' in dom,
          "no note for the failed sentence")
    check('<p class="note">A blank line: no tokens, no attention to show.</p>' in dom,
          "no note for the blank sentence")
    check(dom.count('<section class="sentence"') == 3 and 'id="sentence-3" data-index="2" hidden=""' in dom,
          "want 3 sentence sections, all but the first hidden")

    check('<ul id="minimt-notes" class="note" hidden=""></ul>' in dom,
          "a dump without notes: the notes list is empty and hidden")

    # A dump that says what produced it and what its scores include (a format-2 model's notes,
    # as T5's dump has them): both in words in the header, markup shown as text.
    notes = ["the bias is part of the <b>score</b> (T5)", "the first output token is forced"]
    page = view(minimt, scratch, "notes", dict(crafted_dump(), compute_type="int8", notes=notes))
    status, _, dom = page_status(browser, page, scratch)
    check(status == "ok: 18 heatmaps", "notes page: status %r" % status)
    check('<span class="subtitle">model /models/toy \u00b7 computed in int8</span>' in dom,
          "notes page: the subtitle names the model and the compute type")
    want = "".join("<li>Note: %s</li>" % html.escape(n, quote=False) for n in notes)
    check('<ul id="minimt-notes" class="note">%s</ul>' % want in dom,
          "notes page: each note shown in words", re.findall(r'<ul id="minimt-notes"[^>]*>.*?</ul>', dom))

    # A dump of cross-attention only, its last layer, head 1.
    page = view(minimt, scratch, "partial", crafted_dump(["cross"], [-1], [1]))
    status, _, dom = page_status(browser, page, scratch)
    check(status == "ok: 1 heatmap", "partial page: status %r, want 'ok: 1 heatmap'" % status)
    check(figures(dom) == [("", "cross", "0", "0", "", "layer -1 \u00b7 head 1"),
                           (" average", "cross", "0", "avg", ' hidden=""', "layer -1 \u00b7 average of head 1")],
          "partial page: figures %r" % figures(dom))
    check(dom.count("Not in the dump (it was written with a selection that leaves this out).") == 2,
          "partial page: want a note for each of the 2 types left out")

    page = view(minimt, scratch, "empty", dict(crafted_dump(), sentences=[]))
    status, _, dom = page_status(browser, page, scratch)
    check(status == "ok: 0 heatmaps" and '<p class="note">The dump holds no sentences.</p>' in dom,
          "a dump without sentences: status %r" % status)


def check_pages(minimt, browser, scratch):
    numbers_check(browser, scratch)
    colours_check(browser, scratch)
    sentences_check(browser, minimt, scratch)


def main():
    return browser_test(__doc__, "page", TALLY, check_pages)

if __name__ == "__main__":
    sys.exit(main())
