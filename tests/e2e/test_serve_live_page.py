#!/usr/bin/python3
"""minimt serve's live page (GET /) is the full attention page, in headless Chromium.

    test_serve_live_page.py MINIMT_BINARY [CHROMIUM]

Starts `minimt serve --port 0` with the shipped model, opens / and checks:
  - before any sentence the page invites the user to type one (it does not say the dump holds
    no sentences), and its form offers scores, weight x norm and the logit lens (checked) and
    an ablate_heads field (empty);
  - a sentence typed and sent comes back as the full page: the values menu lists weights,
    scores and weight x norm; with scores chosen, the tooltip of every cell of a decoder and a
    cross-attention head prints the score of `minimt translate --dump-attention --dump-scores`
    for the same sentence (the CLI is the reference: rounded to the digits printed, and its
    float32 exactly); weight x norm likewise; the logit lens table has a row per decoder layer
    and prints the CLI's most likely token at every position; the box and the form keep what
    was sent;
  - a bad ablate_heads spec: the server's 400 error text is shown beside the box and the page
    stays; a good one comes back with that head marked ablated (and only it), the field still
    holding the spec and an unchecked box still unchecked (its values gone from the menu).
Chromium must be installed (tools/setup.sh --tests installs it); missing, the test fails.
Ends with "N passed, N failed"; exits 1 on any failure.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "models", "en-fr")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from serve_support import Server, Tally, wait_for  # noqa: E402
from browser import HOVER_CELLS, Browser  # noqa: E402

SENTENCE = "The black cat sees the small dog."
LENS = 5  # the form's logit lens: that many tokens per layer and position
BAD_SPEC = "cross:7:0"  # the shipped model has 3 decoder layers
GOOD_SPEC = "cross:1:2"

# The page's state: the note of an empty page, the form, the values menu, the lens table.
STATE = """(function () {
  function value(id, what) { var e = document.getElementById(id); return e ? e[what] : null; }
  var lens = document.querySelector('section.sentence:not([hidden]) section.lens table');
  var pick = document.getElementById('pick-values');
  return {
    status: value('minimt-status', 'textContent'),
    notes: Array.prototype.map.call(document.querySelectorAll('main > p.note'),
                                    function (p) { return p.textContent; }),
    text: value('live-text', 'value'),
    scores: value('live-scores', 'checked'), norms: value('live-norms', 'checked'),
    lens: value('live-lens', 'checked'), ablate: value('live-ablate', 'value'),
    attribute: value('live-attribute', 'checked'),
    said: value('live-status', 'textContent'), saidState: (document.getElementById('live-status') ||
        { getAttribute: function () { return null; } }).getAttribute('data-state'),
    menu: pick ? Array.prototype.map.call(pick.options, function (o) { return o.value; }) : [],
    menuHidden: value('values-label', 'hidden'),
    lensRows: lens ? Array.prototype.map.call(lens.querySelectorAll('tr'), function (tr) {
      return Array.prototype.map.call(tr.children, function (c) { return c.textContent; });
    }) : null,
    translation: (document.querySelectorAll('section.sentence dl.texts dd')[1] || {}).textContent || null
  };
}())"""


# Each cross-attention figure of the shown sentence: [layer, head, masked, caption].
FIGURES = """Array.prototype.map.call(document.querySelectorAll(
    'section.sentence:not([hidden]) figure.heatmap[data-type="cross"]:not(.average)'), function (f) {
  return [+f.getAttribute('data-layer'), +f.getAttribute('data-head'), f.classList.contains('masked'),
          f.querySelector('figcaption').textContent];
})"""


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rounds_to(text, value):
    """Whether `text` (a number as printed) is `value` rounded to the digits printed."""
    try:
        printed = float(text)
    except ValueError:
        return False
    mantissa = text.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    return abs(printed - value) <= 0.5 * 10.0 ** (exponent - decimals) * (1 + 1e-6) + 1e-12 * abs(value)


def send(browser, page, sentence=None, ablate=None, uncheck=(), tick=()):
    """Fills the form (the box, the ablate field, boxes to uncheck or tick) and presses Translate; then
    waits for the answer page, or for an error beside the box. Returns 'page' or 'error'."""
    page.evaluate("document.body.setAttribute('data-before', '1')")
    if sentence is not None:
        page.evaluate("document.getElementById('live-text').value = ''; "
                      "document.getElementById('live-text').focus()")
        browser.call("Input.insertText", page.session, text=sentence)
    if ablate is not None:
        page.evaluate("(function () { var a = document.getElementById('live-ablate');"
                      " if (a) { a.value = ''; a.focus(); } }())")
        browser.call("Input.insertText", page.session, text=ablate)
    for name in uncheck:
        page.evaluate("(function () { var c = document.getElementById('live-%s');"
                      " if (c && c.checked) c.click(); }())" % name)
    for name in tick:
        page.evaluate("(function () { var c = document.getElementById('live-%s');"
                      " if (c && !c.checked) c.click(); }())" % name)
    page.evaluate("document.getElementById('live-send').click()")
    return wait_for(page, "(function () {"
                          " if (document.body && !document.body.hasAttribute('data-before')) {"
                          "   var s = document.getElementById('minimt-status');"
                          "   return s && /^ok: [1-9]/.test(s.textContent) && 'page'; }"
                          " var l = document.getElementById('live-status');"
                          " return l && l.getAttribute('data-state') === 'error' && 'error'; }())")


def check_cells(t, page, sentence, values, suffix, name):
    for kind, key, layer, head in (("decoder", "decoder_self", 1, 2), ("cross", "cross", 2, 1)):
        tips = page.evaluate(HOVER_CELLS % (json.dumps(kind), layer, head, json.dumps(values)))
        if not t.check(tips, "%s %s: no such menu entry or figure" % (values, kind)):
            continue
        want = sentence[key + suffix][layer][head]
        bad, read = [], 0
        for i, row in enumerate(want):
            for j, value in enumerate(row):
                if value is None or (kind == "decoder" and j > i):
                    continue  # the causal mask (no score; a norm of 0)
                found = re.search(re.escape(name) + r" (\S+) \(float32 (\S+)\)", tips[i][j])
                read += 1
                if not found or not rounds_to(found.group(1), value) or \
                        f32(float(found.group(2))) != f32(value):
                    bad.append((i, j, value, tips[i][j].split("\n")[3:5]))
        t.check(read > 10 and not bad, "%s layer %d head %d, %s: %d of %d cells print other than the "
                "CLI's dump, first %r" % (kind, layer, head, values, len(bad), read, bad[:2]))


def check_lens(t, rows, sentence):
    predictions = sentence["decoder_layer_predictions"]
    if not t.check(rows and len(rows) == 1 + len(predictions),
                   "the logit lens: %r rows, want %d" % (rows and len(rows), 1 + len(predictions))):
        return
    for layer, cells in enumerate(rows[1:]):
        t.check(len(cells) == 1 + len(predictions[layer]),
                "lens layer %d: %d cells, want %d" % (layer, len(cells) - 1, len(predictions[layer])))
        for position, (text, kept) in enumerate(zip(cells[1:], predictions[layer])):
            best = kept[0]["token"] or "\u2205"
            t.check(len(kept) == LENS and text.startswith(best) and
                    rounds_to(text[len(best):], kept[0]["probability"]),
                    "lens layer %d position %d prints %r, the CLI's best is %r of %d" %
                    (layer, position, text, kept[0], len(kept)))


# The saliency map beside cross-attention after the menu chose it: its shape and the numbers its
# cells were drawn from, row by row ([T][S]).
SALIENCY = """(function () {
  var pick = document.getElementById('pick-values');
  pick.value = 'saliency';
  pick.dispatchEvent(new Event('change'));
  var f = document.querySelector('section.sentence:not([hidden]) figure.attribution[data-type="cross"]');
  if (!f || f.hidden || !f.minimt) return null;
  return { rows: f.minimt.m.rows, cols: f.minimt.m.cols, drawn: Array.from(f.minimt.drawn) };
}())"""


def check_saliency(t, page, minimt, scratch):
    dump = os.path.join(scratch, "attributed.json")
    subprocess.run([minimt, "translate", "-q", "--model", MODEL, "--dump-attention", dump,
                    "--dump-scores", "--attribute", "all", SENTENCE],
                   check=True, timeout=120, stdout=subprocess.DEVNULL)
    with open(dump) as f:
        source_map = json.load(f)["sentences"][0]["attributions"]["saliency"]["source"]
    got = page.evaluate(SALIENCY)
    want = [f32(v) for row in source_map for v in row]
    t.check(got and [got["rows"], got["cols"]] == [len(source_map), len(source_map[0])] and
            [f32(v) for v in got["drawn"]] == want,
            "saliency beside cross-attention: the drawn map %r, the CLI's %d x %d, equal as float32"
            % (got and (got["rows"], got["cols"]), len(source_map), len(source_map[0])))


def live_page(t, server, minimt, chromium):
    scratch = tempfile.mkdtemp(prefix="live-page-")
    dump = os.path.join(scratch, "dump.json")
    subprocess.run([minimt, "translate", "-q", "--model", MODEL, "--dump-attention", dump,
                    "--dump-scores", "--dump-norms", "--logit-lens", str(LENS), SENTENCE],
                   check=True, timeout=120, stdout=subprocess.DEVNULL)
    with open(dump) as f:
        sentence = json.load(f)["sentences"][0]
    status, body = server.post("/v1/attention", {"texts": [SENTENCE], "view": True,
                                                 "ablate_heads": BAD_SPEC})
    refusal = json.loads(body).get("error", "") if status == 400 else ""
    t.check(status == 400 and refusal, "the bad spec %r: %d %r" % (BAD_SPEC, status, body[:200]))
    try:
        with Browser(scratch, chromium) as browser, \
                browser.page("http://127.0.0.1:%d/" % server.port, size=(1400, 1000)) as page:
            empty = wait_for(page, "document.getElementById('live-text') && "
                                   "/^ok: 0 heatmaps$/.test(document.getElementById('minimt-status')"
                                   ".textContent)") and page.evaluate(STATE)
            t.check(empty and empty["notes"] and
                    all("holds no sentences" not in n for n in empty["notes"]) and
                    any("Type a sentence" in n for n in empty["notes"]),
                    "the page before a sentence invites one: %r" % (empty and empty["notes"],))
            t.check(empty and [empty[k] for k in ("scores", "norms", "lens", "ablate", "attribute")] ==
                    [True, True, True, "", False], "the form before a sentence: %r" % (empty,))

            t.check(send(browser, page, SENTENCE) == "page", "the sentence sent: no answer page")
            got = page.evaluate(STATE)
            t.check(got["menu"] == ["weights", "scores", "norms"] and not got["menuHidden"],
                    "the values menu: %r (hidden %r)" % (got["menu"], got["menuHidden"]))
            t.check(got["translation"] == sentence["translation"],
                    "translation %r, the CLI's %r" % (got["translation"], sentence["translation"]))
            t.check([got[k] for k in ("text", "scores", "norms", "lens", "ablate")] ==
                    [SENTENCE, True, True, True, ""], "the form after the answer: %r" % (got,))
            check_lens(t, got["lensRows"], sentence)
            check_cells(t, page, sentence, "scores", "_scores", "scores (before the softmax)")
            check_cells(t, page, sentence, "norms", "_weighted_norms", "weight \u00d7 norm")

            t.check(send(browser, page, ablate=BAD_SPEC) == "error", "the bad spec: no error shown")
            got = page.evaluate(STATE)
            t.check(got["said"] == "error: " + refusal and got["status"].startswith("ok: "),
                    "the bad spec: beside the box %r, want %r" % (got["said"], "error: " + refusal))

            t.check(send(browser, page, ablate=GOOD_SPEC, uncheck=["norms"]) == "page",
                    "the good spec: no answer page")
            got = page.evaluate(STATE)
            figures = page.evaluate(FIGURES)
            masked = [(f[0], f[1]) for f in figures if f[2]]
            t.check(masked == [(1, 2)] and any(f[:2] == [1, 2] and "(ablated)" in f[3] for f in figures),
                    "the good spec %r: heads marked ablated %r" % (GOOD_SPEC, masked))
            t.check([got[k] for k in ("text", "scores", "norms", "lens", "ablate")] ==
                    [SENTENCE, True, False, True, GOOD_SPEC], "the form after the ablation: %r" % (got,))
            t.check(got["menu"] == ["weights", "scores"], "without norms, the menu: %r" % (got["menu"],))

            # Attributions: the menu gains the four methods; a map's numbers are the CLI's.
            t.check(send(browser, page, ablate="", tick=["attribute"]) == "page",
                    "attributions asked: no answer page")
            got = page.evaluate(STATE)
            t.check(got["attribute"] and got["menu"] == ["weights", "scores", "saliency",
                                                         "input_x_gradient", "integrated_gradients",
                                                         "occlusion"],
                    "with attributions, the form %r and the menu %r" % (got["attribute"], got["menu"]))
            check_saliency(t, page, minimt, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    minimt = os.path.abspath(sys.argv[1])
    chromium = sys.argv[2] if len(sys.argv) > 2 else "chromium"
    t = Tally()
    with Server(minimt, ["--model", MODEL, "--threads", "2"]) as server:
        t.run("the live page", lambda: live_page(t, server, minimt, chromium))
    t.finish()


if __name__ == "__main__":
    main()
