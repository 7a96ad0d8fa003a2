#!/usr/bin/python3
"""minimt view A.json B.json: the page and SVGs of two runs' difference, against B - A computed
here from the two dumps.

    test_view_difference.py --minimt build/minimt [--chromium chromium]

On the shipped model, dumps of the same sentences written by minimt score: without and with
--mask-heads, and float32 and int8 (--compute-type int8). For each pair:
  - the page's data (parsed here from the page): every cell's B - A and each run's weight equal
    the dumps' numbers and their difference computed here in Python;
  - the table of each head's largest change: every head's largest |B - A|, its cell, A and B and
    where it was masked, as computed here; the heads that did not change counted;
  - headless Chromium draws the page without a script error ("ok: N heatmaps"), the table is
    in the DOM with a row per changed head and the values printf writes, the legend says which
    colour means "A higher" and "B higher" and its ends are the largest change, a pinned
    cell reads B - A and both weights (one head, and the average over each run's heads not
    masked), masked heads' captions say in which run they were masked, and each decoder row
    ends with its predicted piece and each run's probability of it;
  - the SVGs (--svg): B - A on the diverging scale, its legend's words and ends, the captions of
    masked heads, each row's piece and both runs' probabilities;
  - dumps whose tokens differ are refused with exit status 1 and the first sentence and token
    that differ named, as minimt show A B refuses them.
Chromium must be installed (tools/test.sh installs Debian's chromium); if it is missing the
test fails, it is not skipped. Stdlib only. Ends with "N passed, N failed"; exit 1 on failure.
"""
import base64
import html
import json
import math
import os
import re
import struct
import sys
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import browser_test  # noqa: E402
from head_patterns import KEYS  # noqa: E402
from test_view_browser import PROBE, page_status  # noqa: E402

TALLY = support.Tally()
check = TALLY.check
SVG = "{http://www.w3.org/2000/svg}"
SENTENCES = [("The black cat sees the small dog.", "Le chat noir voit le petit chien."),
             ("I am a student.", "Je suis étudiant.")]
MASK = "cross:0:1,cross:2:1,decoder:1:3"


def f32(x):
    """x rounded to a single float, as minimt holds the dump's numbers."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def score(minimt, scratch, name, *options, pairs=SENTENCES):
    dump = os.path.join(scratch, name + ".json")
    result = support.run([minimt, "score", "-m", support.SHIPPED, "--dump-attention", dump,
                          *options, *[x for pair in pairs for x in pair]])
    check(result.returncode == 0, "score %s: exit %d: %s" %
          (name, result.returncode, result.stderr.decode()[-300:]))
    with open(dump, encoding="utf-8") as f:
        document = json.load(f)
    for n, s in enumerate(document["sentences"], 1):
        s["number"] = n  # as the page numbers them
    return dump, document


def masked_set(document):
    """{(type, layer, head)} of the dump's masked_heads ("cross:0:1,...", numbers as given)."""
    out = set()
    for item in filter(None, document.get("masked_heads", "").split(",")):
        kind, layer, head = item.split(":")
        out.add((kind, int(layer), int(head)))
    return out


def expected_changes(a, b):
    """Per (type, layer, head): (|largest| signed change, A, B, sentence, row, col), the first
    cell in reading order where |B - A| is largest, as minimt's table picks it."""
    best = {}
    for sa, sb in zip(a["sentences"], b["sentences"]):
        n = sa["number"]
        for kind, key in KEYS.items():
            for layer, (la, lb) in enumerate(zip(sa[key], sb[key])):
                for head, (ha, hb) in enumerate(zip(la, lb)):
                    for i, (ra, rb) in enumerate(zip(ha, hb)):
                        for j, (x, y) in enumerate(zip(ra, rb)):
                            if kind == "decoder" and j > i:
                                continue
                            change = f32(f32(y) - f32(x))
                            old = best.get((kind, layer, head))
                            if old is None or abs(change) > abs(old[0]):
                                best[(kind, layer, head)] = (change, f32(x), f32(y), n, i, j)
    return best


def four(x, plus=False):
    """x as the page prints a weight: printf's %.4f, or %.2g where that would read 0 for a value
    that is not 0; with `plus`, a sign."""
    text = "%.4f" % x
    if x != 0 and float(text) == 0:
        text = "%.2g" % x
    return ("+" + text) if plus and x >= 0 else text


def page_data(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = re.search(r'<script type="application/json" id="minimt-data">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


def floats(b64):
    raw = base64.b64decode(b64)
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))


def packed(matrices, lower):
    """[layer][head][row][col] as the page packs it: a causal type's lower triangle only."""
    return [x for layer in matrices for head in layer for i, row in enumerate(head)
            for j, x in enumerate(row) if not lower or j <= i]


def data_check(what, data, a, b):
    """Every cell of the page's data against the dumps."""
    cells, wrong = 0, []
    for k, (s, sa, sb) in enumerate(zip(data["sentences"], a["sentences"], b["sentences"])):
        for kind, key in KEYS.items():
            m = s["attention"].get(kind)
            if not check(m is not None and m.get("difference"),
                         "%s: sentence %d has the difference of %s" % (what, k + 1, kind)):
                continue
            lower = kind == "decoder"
            want_a = [f32(x) for x in packed(sa[key], lower)]
            want_b = [f32(x) for x in packed(sb[key], lower)]
            want = [f32(y - x) for x, y in zip(want_a, want_b)]
            for name, got, expected in (("B - A", floats(m["f"]), want),
                                        ("A", floats(m["a"]), want_a),
                                        ("B", floats(m["b"]), want_b)):
                cells += len(expected)
                if len(got) != len(expected) or any(abs(x - y) > 1e-7 for x, y in zip(got, expected)):
                    wrong.append((k + 1, kind, name))
    check(not wrong and cells > 0, "%s: the page's B - A, A and B equal the dumps' in all %d "
          "cells" % (what, cells), repr(wrong[:5]))
    # Each run's log-probability of each predicted piece.
    for k, (s, sa, sb) in enumerate(zip(data["sentences"], a["sentences"], b["sentences"])):
        runs = s.get("run_log_probs", {})
        check([f32(x) for x in runs.get("a", [])] == [f32(x) for x in sa["output_log_probs"]] and
              [f32(x) for x in runs.get("b", [])] == [f32(x) for x in sb["output_log_probs"]] and
              len(sa["output_log_probs"]) == len(sa["output_tokens"]) > 0,
              "%s: sentence %d: each run's log-probabilities of the pieces, from its dump" % (what, k + 1))


def prediction_labels(sa, sb):
    """(label, hover text) right of each decoder row of a difference: the piece, then each run's
    probability of it to 2 decimals; to 4 on hover, as printf writes them."""
    return [("%s A %.2f B %.2f" % (token, math.exp(x), math.exp(y)),
             "p(%s): A %.4f, B %.4f" % (token, math.exp(x), math.exp(y))) for token, x, y in
            zip(sb["output_tokens"], sa["output_log_probs"], sb["output_log_probs"])]


def table_check(what, data, a, b):
    """The page's table of changes against the largest changes computed here."""
    best = expected_changes(a, b)
    masked_a, masked_b = masked_set(a), masked_set(b)
    listed = {(c["type"], int(c["layer"]), c["head"]): c for c in data["difference"]["changes"]}
    unchanged = 0
    for (kind, layer, head), (change, x, y, n, i, j) in best.items():
        in_a, in_b = (kind, layer, head) in masked_a, (kind, layer, head) in masked_b
        if change == 0 and in_a == in_b:
            unchanged += 1
            check((kind, layer, head) not in listed,
                  "%s: unchanged %s %d %d is not listed" % (what, kind, layer, head))
            continue
        c = listed.get((kind, layer, head))
        if not check(c is not None, "%s: %s layer %d head %d is in the table" % (what, kind, layer, head)):
            continue
        s = [x for x in a["sentences"] if x["number"] == n][0]
        rows = s["source_tokens"] if kind == "encoder" else s["decoder_input_tokens"]
        cols = s["decoder_input_tokens"] if kind == "decoder" else s["source_tokens"]
        got = (c["change"], c["a"], c["b"], c["sentence"], c["row"], c["col"], c["query"], c["key"],
               c["masked_a"], c["masked_b"])
        want = (change, x, y, n, i, j, rows[i], cols[j], in_a, in_b)
        check(all(abs(g - w) < 1e-7 if isinstance(w, float) else g == w for g, w in zip(got, want)),
              "%s: %s layer %d head %d: the largest change and its cell" % (what, kind, layer, head),
              "got %r, want %r" % (got, want))
    check(data["difference"]["unchanged"] == unchanged,
          "%s: %d heads counted as unchanged" % (what, unchanged),
          "page: %r" % data["difference"]["unchanged"])
    top = max(abs(v[0]) for v in best.values())
    check(abs(data["difference"]["scale"] - top) < 1e-7,
          "%s: the colour scale's end is the largest change, %.6f" % (what, top),
          repr(data["difference"]["scale"]))
    order = [abs(c["change"]) for c in data["difference"]["changes"]]
    check(order == sorted(order, reverse=True), "%s: the most changed head first" % what)
    return best, top


def head_average(heads, masked, layer, kind):
    """The mean over the heads not masked (every head when all are), [rows][cols]."""
    kept = [h for h in range(len(heads)) if (kind, layer, h) not in masked] or list(range(len(heads)))
    return [[sum(f32(heads[h][i][j]) for h in kept) / len(kept) for j in range(len(heads[0][0]))]
            for i in range(len(heads[0]))]


def browser_check(browser, scratch, what, page, data, a, b, best, top):
    status, _, dom = page_status(browser, page, scratch)
    heatmaps = sum(len(m["layers"]) * len(m["heads"]) for m in data["sentences"][0]["attention"].values())
    check(status == "ok: %d heatmaps" % heatmaps, "%s: drawn without a script error" % what,
          "status %r" % status)
    table = re.search(r'<table id="minimt-changes-table">(.*?)</table>', dom, re.S)
    if not check(table, "%s: the table of changes is in the page" % what):
        return
    rows = re.findall(r'<tr data-type="(\w+)" data-layer="(-?\d+)" data-head="(\d+)">(.*?)</tr>',
                      table.group(1), re.S)
    check(len(rows) == len(data["difference"]["changes"]) and len(rows) > 0,
          "%s: a row per changed head" % what, "%d rows" % len(rows))
    for kind, layer, head, row in rows[:6]:
        change, x, y = best[(kind, int(layer), int(head))][:3]
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c))
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        check(cells[3:6] == ["%+.4f" % change, "%.4f" % x, "%.4f" % y],
              "%s: the row of %s %s %s shows B - A, A and B as printf does" % (what, kind, layer, head),
              "%r, want %r" % (cells[3:6], ["%+.4f" % change, "%.4f" % x, "%.4f" % y]))
    with browser.page("file://" + page) as tab:
        legend = tab.evaluate("document.getElementById('legend-scale').getAttribute('aria-label')")
    # Hovering a cell of a decoder row: the piece predicted there and each run's probability.
    s_a, s_b = a["sentences"][0], b["sentences"][0]
    with open(page, encoding="utf-8") as f:
        text = f.read()
    probed = os.path.join(scratch, "probed-difference.html")
    with open(probed, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE % (1, 2, 1, 2)))
    _, _, probed_dom = page_status(browser, probed, scratch)
    tip = re.search(r'<pre id="probe">TIP shown ([^\n<]*)', probed_dom or "")
    want = "p(%s): A %.4f, B %.4f" % (s_b["output_tokens"][1], math.exp(s_a["output_log_probs"][1]),
                                      math.exp(s_b["output_log_probs"][1]))
    check(tip is not None and want in html.unescape(tip.group(1)),
          "%s: hovering a decoder row reads the piece and each run's probability" % what,
          "%r, want %r in it" % (tip and tip.group(1), want))
    want = "B \u2212 A: red, A higher, down to \u2212%.4f; white, 0; blue, B higher, up to +%.4f" % (top, top)
    check(legend == want, "%s: the legend says what red and blue mean" % what, repr(legend))

    # A pinned cell: one head, then the average over each run's heads not masked.
    i, j = 2, 1
    x, y = s_a["cross_attention"][1][2][i][j], s_b["cross_attention"][1][2][i][j]
    _, pinned, _ = page_status(browser, page, scratch, "#show=cross&layer=1&head=2&pin=cross.1.2.%d.%d" % (i, j))
    want = "B \u2212 A %s (A %s, B %s)" % (four(f32(f32(y) - f32(x)), True), four(f32(x)), four(f32(y)))
    check(pinned == want, "%s: a pinned cell reads B - A and both weights" % what,
          "%r, want %r" % (pinned, want))
    for layer in (0, 1):
        avg_a = head_average(s_a["cross_attention"][layer], masked_set(a), layer, "cross")[i][j]
        avg_b = head_average(s_b["cross_attention"][layer], masked_set(b), layer, "cross")[i][j]
        _, pinned, _ = page_status(browser, page, scratch,
                                   "#show=cross&head=avg&pin=cross.%d.avg.%d.%d" % (layer, i, j))
        got = re.match(r"B \u2212 A ([-+][0-9.e+-]+) \(A ([0-9.e-]+), B ([0-9.e-]+)\)", pinned or "")
        check(got and abs(float(got.group(1)) - (avg_b - avg_a)) < 1.5e-4 and
              abs(float(got.group(2)) - avg_a) < 1.5e-4 and abs(float(got.group(3)) - avg_b) < 1.5e-4,
              "%s: the average's cell of layer %d: B's mean over its heads not masked minus A's"
              % (what, layer), "%r, want %+.4f (A %.4f, B %.4f)" % (pinned, avg_b - avg_a, avg_a, avg_b))
    return dom


def svg_texts(path):
    return ["".join(e.itertext()) for e in ElementTree.parse(path).iter(SVG + "text")]


def svg_check(what, prefix, top, masked_b, best, labels, types=("encoder", "decoder", "cross")):
    for kind in types:
        path = "%s-%s.svg" % (prefix, kind)
        if not check(os.path.exists(path), "%s: %s written" % (what, os.path.basename(path))):
            continue
        texts = svg_texts(path)
        if kind != "encoder":  # the decoder's rows: each a predicted piece, with both runs' p
            shown = [t for t in texts if t.startswith("\u2192 ")]  # the label, then its hover text
            want = ["\u2192 " + label + hover for label, hover in labels]
            check(shown[:len(want)] == want, "%s, %s SVG: each row's piece and both runs' "
                  "probabilities" % (what, kind), "%r, want %r" % (shown[:3], want[:3]))
        check("\u2212%.4f A higher" % top in texts and "B higher +%.4f" % top in texts,
              "%s, %s SVG: the legend says A higher and B higher, to the largest change" % (what, kind),
              repr(texts[:6]))
        captions = [t for t in texts if re.match(r"layer \d+ \u00b7 head \d+", t)]
        for t in captions:
            layer, head = map(int, re.match(r"layer (\d+) \u00b7 head (\d+)", t).groups())
            want = "layer %d \u00b7 head %d%s" % (layer, head, " (ablated in B)" if (kind, layer, head) in masked_b else "")
            check(t == want, "%s, %s SVG: caption %r" % (what, kind, want), repr(t))
        # The colours: white where nothing changed (the encoder, when only decoder heads are
        # masked), else several.
        with open(path, encoding="utf-8") as f:
            fills = set(re.findall(r'<path fill="(#[0-9a-f]{6})" d="M', f.read()))
        changed = any(v[0] != 0 for k, v in best.items() if k[0] == kind and v[3] == 1)
        check(len(fills) > 3 if changed else fills == {"#ffffff"},
              "%s, %s SVG: %s" % (what, kind, "cells in several colours" if changed else "every cell white"),
              repr(fills))


def check_pages(minimt, browser, scratch):
    plain_path, plain = score(minimt, scratch, "plain")
    masked_path, masked = score(minimt, scratch, "masked", "--mask-heads", MASK)
    int8_path, int8 = score(minimt, scratch, "int8", "--compute-type", "int8")
    check(int8.get("compute_type") == "int8", "the int8 dump says so")

    # Without and with --mask-heads.
    page, prefix = os.path.join(scratch, "masked-diff.html"), os.path.join(scratch, "masked-diff")
    result = support.run([minimt, "view", plain_path, masked_path, "-o", page, "--svg", prefix])
    err = result.stderr.decode()
    check(result.returncode == 0 and "2 sentences, 72 heatmaps of B - A (+18 head averages)" in err,
          "view A B: exit 0 and the summary line", "exit %d: %s" % (result.returncode, err))
    print(err.strip())
    data = page_data(page)
    data_check("--mask-heads", data, plain, masked)
    best, top = table_check("--mask-heads", data, plain, masked)
    check(best[("cross", 2, 1)][2] == 0 and best[("cross", 2, 1)][0] < -0.5,
          "--mask-heads: a masked head's largest change is minus its largest weight")
    dom = browser_check(browser, scratch, "--mask-heads", page, data, plain, masked, best, top)
    captions = re.findall(r'data-type="cross" data-layer="(\d)" data-head="(\w+)"[^>]*><figcaption[^>]*>([^<]*)<', dom or "")
    want = {("0", "1"): "layer 0 \u00b7 head 1 (ablated in B)",
            ("0", "avg"): "layer 0 \u00b7 average of B\u2019s heads 0, 2, 3 (head 1 ablated, left out) "
                          "\u2212 A\u2019s heads 0, 1, 2, 3",
            ("1", "avg"): "layer 1 \u00b7 average of heads 0, 1, 2, 3",
            ("1", "1"): "layer 1 \u00b7 head 1"}
    found = {(l, h): c for l, h, c in captions}
    for key, caption in want.items():
        check(found.get(key) == caption, "--mask-heads page: the caption %r" % caption,
              repr(found.get(key)))
    svg_check("--mask-heads", prefix + "-1", top, masked_set(masked), best,  # sentence 1 of 2
              prediction_labels(plain["sentences"][0], masked["sentences"][0]))

    # float32 and int8: small changes everywhere, nothing masked.
    page = os.path.join(scratch, "int8-diff.html")
    result = support.run([minimt, "view", plain_path, int8_path, "-o", page, "--sentences", "2"])
    check(result.returncode == 0, "view float32 int8: exit 0", result.stderr.decode())
    data = page_data(page)
    one = lambda d: dict(d, sentences=d["sentences"][1:])  # noqa: E731: sentence 2 alone
    check(len(data["sentences"]) == 1 and data["sentences"][0]["number"] == 2,
          "--sentences 2: the page holds sentence 2 only")
    data_check("float32 and int8", data, one(plain), one(int8))
    best, top = table_check("float32 and int8", data, one(plain), one(int8))
    check(0 < top < 0.1, "float32 and int8: changes, all small (largest %.6f)" % top)
    browser_check(browser, scratch, "float32 and int8", page, data, one(plain), one(int8), best, top)
    check("int8" in data["difference"]["b"]["compute_type"], "the page says B ran in int8")

    # Dumps of other tokens are refused, as minimt show A B refuses them.
    other_path, _ = score(minimt, scratch, "other", pairs=[SENTENCES[0], ("I am a student.", "Je suis un étudiant.")])
    result = support.run([minimt, "view", plain_path, other_path, "-o", os.path.join(scratch, "x.html")])
    err = result.stderr.decode()
    check(result.returncode == 1 and "sentence 2, decoder input token 3 (from 0): '▁étudiant' in %s, '▁un' in %s"
          % (plain_path, other_path) in err,
          "other tokens: exit 1 naming the sentence and the token", "exit %d: %s" % (result.returncode, err))
    check(not os.path.exists(os.path.join(scratch, "x.html")), "other tokens: no page written")
    shown = support.run([minimt, "show", plain_path, other_path])
    check(shown.returncode == result.returncode and shown.stderr == result.stderr,
          "view A B and show A B refuse with the same status and message", shown.stderr.decode())


def main():
    return browser_test(__doc__, "view-difference", TALLY, check_pages)


if __name__ == "__main__":
    sys.exit(main())
