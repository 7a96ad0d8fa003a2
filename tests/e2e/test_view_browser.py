#!/usr/bin/python3
"""The attention page in a real browser (headless Chromium).

    test_view_browser.py --minimt build/minimt [--chromium chromium]

Makes random models with tools/reference/reference.py (this Python needs torch), translates with
minimt --dump-attention, renders with minimt view, then opens the pages in headless Chromium:
  - --dump-dom: the page's script wrote "ok: N heatmaps" into #minimt-status (a window.onerror
    handler writes "error: ..." instead), N being every layer and head of the three types;
    failed and blank sentences, a dump with only some types/layers/heads, the head averages,
    and a cell pinned from the address (#pin=...) whose weight must match the dump;
  - --screenshot: the PNG (decoded here with zlib) is not blank: many non-white pixels and
    many distinct colours;
  - a 40-token sentence of a 6-layer, 8-head model: the page is its weights as float32 (base64)
    and under 200 KB more, and loads;
  - translate --rollout --view: the dump's encoder_rollout and cross_rollout equal the
    product computed here from the dump's own matrices, and the page draws both, labelled as
    a heuristic, a pinned cell reading the dump's value;
  - at 1400 px wide (a usual window), each layer's heads stay on one line, within the section
    and without a horizontal scroll bar: the shipped model (4 heads), a random 8-head model
    (every head, and every head + average: 9 heatmaps) and the 40-token 6x8 model.
Chromium must be installed (tools/test.sh installs Debian's chromium); if it is missing the
test fails, it is not skipped. One Chromium serves every page (tests/browser.py), each in a
fresh browser context. Stdlib only. Ends with "N passed, N failed"; exit 1 on failure.
"""
import json
import os
import re
import struct
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import browser_test  # noqa: E402

TALLY = support.Tally()
check = TALLY.check


def run(command, stdin=None):
    return support.run(command, input=stdin, timeout=300)


def page_status(browser, path, scratch, fragment=""):
    """(status text, pinned weight text or None, DOM) of the page after its script ran."""
    dom = browser.dom("file://" + path + fragment)
    status = re.search(r'id="minimt-status"[^>]*>([^<]*)<', dom)
    pinned = re.search(r'id="minimt-pinned-weight"[^>]*>([^<]*)<', dom)
    return (status.group(1) if status else "(no #minimt-status in the DOM)",
            pinned.group(1) if pinned else None, dom)


def expect_ok(browser, path, scratch, heatmaps, fragment="", what=""):
    status, pinned, _ = page_status(browser, path, scratch, fragment)
    check(status == "ok: %d heatmap%s" % (heatmaps, "" if heatmaps == 1 else "s"),
          "%s%s: status %r, want 'ok: %d heatmaps'" % (what or os.path.basename(path), fragment,
                                                       status, heatmaps))
    return pinned


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, colour))
    raw, stride, rows = zlib.decompress(idat), width * channels, []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b, c = previous[i], previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def screenshot_check(browser, path, scratch, what):
    shot = os.path.join(scratch, os.path.basename(path) + ".png")
    browser.screenshot("file://" + path, shot, (1400, 1000))
    if not check(os.path.exists(shot), "%s: no screenshot" % what):
        return
    width, height, channels, rows = png_pixels(shot)
    check((width, height) == (1400, 1000), "%s: screenshot is %dx%d" % (what, width, height))
    colours, busy = set(), 0
    for line in rows:
        for x in range(0, width * channels, channels):
            pixel = bytes(line[x:x + 3])
            colours.add(pixel)
            if min(pixel) < 235:
                busy += 1
    share = busy / float(width * height)
    check(share > 0.08, "%s: only %.1f%% of the screenshot is not white" % (what, 100 * share))
    check(len(colours) > 200, "%s: only %d distinct colours" % (what, len(colours)))
    print("%s: screenshot %dx%d, %.0f%% not white, %d colours" %
          (what, width, height, 100 * share, len(colours)))


PROBE = """<script>
(function () {
  var fig = document.querySelector('figure[data-type="cross"][data-layer="1"][data-head="2"]');
  var over = fig.querySelectorAll('canvas')[1], g = fig.minimt, box = over.getBoundingClientRect();
  function at(i, j) {
    return { clientX: box.left + g.left + (j + 0.5) * g.cell,
             clientY: box.top + g.top + (i + 0.5) * g.cell, bubbles: true };
  }
  var out = document.createElement('pre');
  out.id = 'probe';
  over.dispatchEvent(new MouseEvent('mousemove', at(%d, %d)));
  var tip = document.getElementById('minimt-tip');
  out.textContent = 'TIP ' + (tip.hidden ? 'hidden' : 'shown') + ' ' + tip.textContent.replace(/\\n/g, ' | ');
  over.dispatchEvent(new MouseEvent('click', at(%d, %d)));
  out.textContent += '\\nINFO ' + document.getElementById('minimt-info').textContent;
  document.body.appendChild(out);
})();
</script>
</body>"""


def hover_check(browser, page, scratch, sentence):
    """Hover over one cell of cross-attention (layer 1, head 2), then click another."""
    T, S = len(sentence["decoder_input_tokens"]), len(sentence["source_tokens"])
    (i1, j1), (i2, j2) = (min(1, T - 1), min(2, S - 1)), (T - 1, 0)
    with open(page, encoding="utf-8") as f:
        html = f.read()
    probed = os.path.join(scratch, "probed.html")
    with open(probed, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", PROBE % (i1, j1, i2, j2)))
    status, pinned, dom = page_status(browser, probed, scratch)
    check(status.startswith("ok:"), "probed page: status %r" % status)
    found = re.search(r'<pre id="probe">([^<]*)</pre>', dom)
    text = found.group(1) if found else ""
    cross = sentence["cross_attention"][1][2]
    tip = text.split("\n")[0]
    want_tip = ["TIP shown", "Cross-attention, layer 1, head 2",
                "query %d %s (predicting %s)" % (i1, sentence["decoder_input_tokens"][i1],
                                                 sentence["output_tokens"][i1]),
                "key %d %s" % (j1, sentence["source_tokens"][j1])]
    check(all(w in tip for w in want_tip), "hover tooltip %r lacks %r" % (tip, want_tip))
    # The probability of the predicted piece and the alternatives there, from the dump.
    if sentence.get("output_log_probs"):
        import math
        want = "p(%s) = %.4f" % (sentence["output_tokens"][i1],
                                 math.exp(sentence["output_log_probs"][i1]))
        check(want in tip, "hover tooltip %r lacks the prediction's probability %r" % (tip, want))
        best = sentence["alternatives"][i1][0]
        want = "most likely: %s %.4f" % (best["token"], best["probability"])
        check(want in tip, "hover tooltip %r lacks the alternatives %r" % (tip, want))
    else:
        check(False, "the dump has no output_log_probs")
    for line, (i, j) in ((tip, (i1, j1)), (text.split("\n")[-1], (i2, j2))):
        weight = re.search(r"weight ([0-9.e+-]+)", line)
        check(weight is not None and abs(float(weight.group(1)) - cross[i][j]) <=
              2e-3 * max(cross[i][j], 1e-3) + 1e-6,
              "cell (%d, %d) shows %r, the dump has %.6f" % (i, j, line, cross[i][j]))
    check("INFO Cross-attention, layer 1, head 2" in text, "click did not pin the cell: %r" % text)


LAYOUT_PROBE = """<script>
(function () {
  var lines = ['PAGE ' + document.documentElement.clientWidth + ' ' + document.documentElement.scrollWidth];
  document.querySelectorAll('section.sentence:not([hidden]) section.attention:not([hidden])').forEach(function (part) {
    var edge = part.getBoundingClientRect().right;
    part.querySelectorAll('.layer:not([hidden])').forEach(function (row) {
      var tops = {}, count = 0, right = 0, labelled = 0;
      row.querySelectorAll('figure.heatmap:not([hidden])').forEach(function (f) {
        var box = f.getBoundingClientRect();
        tops[Math.round(box.top)] = true;
        count++;
        right = Math.max(right, box.right);
        if (f.minimt && f.minimt.left > 0) labelled++;
      });
      lines.push(['ROW', part.getAttribute('data-type'), row.getAttribute('data-layer'), count,
                  Object.keys(tops).length, Math.round(right), Math.round(edge), labelled].join(' '));
    });
  });
  var out = document.createElement('pre');
  out.id = 'layout';
  out.textContent = lines.join('\\n');
  document.body.appendChild(out);
})();
</script>
</body>"""


def layout_check(browser, page, scratch, what, heads, fragment="", labels=None):
    """At 1400 px: every layer's `heads` heatmaps on one line, inside the section, no horizontal
    scroll; with `labels`, that many of each row's heatmaps carry row labels."""
    with open(page, encoding="utf-8") as f:
        html = f.read()
    probed = os.path.join(scratch, "layout.html")
    with open(probed, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", LAYOUT_PROBE))
    dom = browser.dom("file://" + probed + fragment, size=(1400, 1000))
    found = re.search(r'<pre id="layout">([^<]*)</pre>', dom)
    lines = found.group(1).split("\n") if found else []
    page_line = [l.split() for l in lines if l.startswith("PAGE ")]
    check(page_line and page_line[0][1] == "1400" and page_line[0][2] == "1400",
          "%s at 1400 px: page width and scroll width %r" % (what, page_line))
    rows = [l.split()[1:] for l in lines if l.startswith("ROW ")]
    check(len(rows) > 0, "%s at 1400 px: no rows of heatmaps found" % what)
    for kind, layer, count, tops, right, edge, labelled in rows:
        name = "%s at 1400 px, %s layer %s" % (what, kind, layer)
        check(int(count) == heads, "%s: %s heatmaps, want %d" % (name, count, heads))
        check(tops == "1", "%s: the %s heatmaps take %s lines, want 1" % (name, count, tops))
        check(int(right) <= int(edge), "%s: heatmaps end at %s px, past the section (%s px)" %
              (name, right, edge))
        if labels is not None:
            check(int(labelled) == labels, "%s: %s heatmaps with row labels, want %d" %
                  (name, labelled, labels))
    print("%s at 1400 px: %d rows of %d heatmaps, each on one line" % (what, len(rows), heads))


def rollout_by_hand(sentence, masked=()):
    """Abnar and Zuidema's rollout from the dump's own matrices: each encoder layer's average
    A over its heads not in `masked` ((layer, head) pairs) as 0.5 A + 0.5 I, a layer with every
    head masked as I, multiplied from the first layer up; then the last decoder layer's
    head-averaged cross-attention (rows renormalized) times it."""
    def average(layer, number=None):
        heads = [m for h, m in enumerate(layer) if (number, h) not in masked]
        if not heads:
            return None
        return [[sum(m[i][j] for m in heads) / len(heads) for j in range(len(layer[0][0]))]
                for i in range(len(layer[0]))]

    def normalized(rows):
        return [[x / sum(row) if sum(row) > 0 else 0.0 for x in row] for row in rows]

    def product(a, b):
        return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
                for i in range(len(a))]

    size = len(sentence["source_tokens"])
    identity = [[1.0 if i == j else 0.0 for j in range(size)] for i in range(size)]
    rollout = identity
    for number, layer in enumerate(sentence["encoder_self_attention"]):
        a = average(layer, number)
        step = identity if a is None else [
            [0.5 * a[i][j] + (0.5 if i == j else 0.0) for j in range(size)] for i in range(size)]
        rollout = product(step, rollout)
    return rollout, product(normalized(average(sentence["cross_attention"][-1])), rollout)


def largest_difference(a, b):
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)):
        return float("inf")
    return max((abs(x - y) for r, q in zip(a, b) for x, y in zip(r, q)), default=0.0)


def rollout_check(browser, minimt, model, scratch):
    """translate --rollout --view: the dump's rollouts are the product done here from its own
    matrices; the page draws both under their type with the heuristic label, and a pinned cell
    of each reads the dump's value."""
    dump, page = os.path.join(scratch, "rollout.json"), os.path.join(scratch, "rollout.html")
    result = run([minimt, "translate", "--model", model, "--max-length", "12", "--rollout",
                  "--dump-attention", dump, "--view", page, "The small girl reads a red book.",
                  "A dog."])
    check(result.returncode == 0, "translate --rollout: exit %d: %s" %
          (result.returncode, result.stderr.decode()[-300:]))
    check("+4 rollouts" in result.stderr.decode(), "translate --rollout --view: stderr %r lacks "
          "'+4 rollouts' (2 sentences)" % result.stderr.decode())
    with open(dump, encoding="utf-8") as f:
        sentences = json.load(f)["sentences"]
    for s in sentences:
        encoder, cross = rollout_by_hand(s)
        check(largest_difference(encoder, s.get("encoder_rollout", [])) < 1e-5,
              "encoder_rollout of %r differs from the product by hand" % s["source"])
        check(largest_difference(cross, s.get("cross_rollout", [])) < 1e-5,
              "cross_rollout of %r differs from the product by hand" % s["source"])
    status, _, dom = page_status(browser, page, scratch)
    check(status == "ok: %d heatmaps" % (3 * 4 + 2 * 4 + 2 * 4 + 2),
          "rollout page: status %r, want the 28 heatmaps and 2 rollouts" % status)
    for key, caption in (("encoder_rollout", "encoder rollout"), ("cross_rollout", "cross rollout")):
        row = re.search(r'<div class="layer rollout" data-layer="0" data-rollout="%s"( hidden="")?>'
                        r'<p class="heuristic"><strong>([^<]*)</strong>' % key, dom)
        check(row is not None and row.group(1) is None and
              row.group(2) == "rollout: a heuristic, not an explanation.",
              "rollout page: no visible %s row labelled as a heuristic" % key)
        check(re.search(r'data-type="%s"[^>]*><figcaption[^>]*>%s</figcaption>' % (key, caption), dom),
              "rollout page: no heatmap captioned %r" % caption)
    first = sentences[0]
    for key, (i, j) in (("encoder_rollout", (2, 1)), ("cross_rollout", (1, 2))):
        want = first[key][i][j]
        status, pinned, _ = page_status(browser, page, scratch,
                                        "#layer=rollout&pin=%s.rollout.0.%d.%d" % (key, i, j))
        check(status == "ok: 2 heatmaps", "rollout only: status %r, want 2 heatmaps" % status)
        got = float(pinned.split()[-1]) if pinned and pinned.startswith("weight ") else None
        check(got is not None and abs(got - want) <= 1e-3 * max(want, 1e-3) + 1e-6,
              "pinned %s (%d, %d) reads %r, the dump has %.6f" % (key, i, j, pinned, want))

    # What masking does to them: with every encoder head masked the encoder rollout is the
    # identity (a layer with every head masked passes the residual alone); with the last layer's cross heads masked, no
    # source reaches any step.
    masked = os.path.join(scratch, "rollout-masked.json")
    result = run([minimt, "translate", "--model", model, "--max-length", "12", "--rollout",
                  "--mask-heads", "encoder:*:*,cross:-1:*", "--dump-attention", masked, "A dog."])
    check(result.returncode == 0, "translate --rollout --mask-heads: exit %d" % result.returncode)
    with open(masked, encoding="utf-8") as f:
        s = json.load(f)["sentences"][0]
    size = len(s["source_tokens"])
    check(s["encoder_rollout"] == [[1 if i == j else 0 for j in range(size)] for i in range(size)],
          "every encoder head masked: the encoder rollout is not the identity")
    check(all(x == 0 for row in s["cross_rollout"] for x in row),
          "the last layer's cross heads masked: the cross rollout is not 0")
    # Some heads masked: each layer's average is over the others, as the page's averages.
    result = run([minimt, "translate", "--model", model, "--max-length", "12", "--rollout",
                  "--mask-heads", "encoder:0:1,encoder:1:0,encoder:1:2", "--dump-attention",
                  masked, "The small girl reads a red book."])
    check(result.returncode == 0, "translate --rollout --mask-heads: exit %d" % result.returncode)
    with open(masked, encoding="utf-8") as f:
        s = json.load(f)["sentences"][0]
    encoder, cross = rollout_by_hand(s, masked={(0, 1), (1, 0), (1, 2)})
    check(largest_difference(encoder, s["encoder_rollout"]) < 1e-5,
          "three encoder heads masked: encoder_rollout is not the product over the others")
    check(largest_difference(cross, s["cross_rollout"]) < 1e-5,
          "three encoder heads masked: cross_rollout is not the product over the others")
    result = run([minimt, "translate", "--model", model, "--rollout", "A dog."])
    check(result.returncode == 2 and b"--rollout adds to --dump-attention or --view" in result.stderr,
          "--rollout alone: exit %d, stderr %r" % (result.returncode, result.stderr))


# One function on purpose: the checks share one browser and the pages made at its top, and
# read as the list of cases.
def check_pages(minimt, browser, scratch):
    # 3 encoder layers, 2 decoder layers, 4 heads: the stacks differ in depth.
    model = support.random_model("view")
    dump = os.path.join(scratch, "dump.json")
    lines = b"The small girl reads a red book.\n\nbad \xff byte\nA dog.\n"
    result = run([minimt, "translate", "--model", model, "--max-length", "12",
                  "--dump-attention", dump], stdin=lines)
    check(result.returncode == 1, "translate with an invalid line: exit %d, want 1 (%s)" %
          (result.returncode, result.stderr.decode()[-300:]))
    with open(dump, encoding="utf-8") as f:
        document = json.load(f)
    sentences = document["sentences"]
    check(len(sentences) == 4, "dump holds %d sentences, want 4" % len(sentences))
    check("error" in sentences[2], "sentence 3 of the dump should have failed")

    page = os.path.join(scratch, "page.html")
    result = run([minimt, "view", dump, "-o", page])
    check(result.returncode == 0, "view: exit %d: %s" % (result.returncode, result.stderr))
    print(result.stderr.decode().strip())
    per_sentence = 3 * 4 + 2 * 4 + 2 * 4  # encoder, decoder, cross
    expect_ok(browser, page, scratch, per_sentence, what="full dump")
    # A blank line is not searched but read: eos alone, from the source eos, one step each.
    expect_ok(browser, page, scratch, per_sentence, "#sentence=2", "blank line")
    status, _, dom = page_status(browser, page, scratch, "#sentence=3")
    check(status == "ok: 0 heatmaps" and "This sentence was not translated" in dom,
          "failed sentence: status %r" % status)
    expect_ok(browser, page, scratch, per_sentence, "#sentence=4", "second sentence")
    expect_ok(browser, page, scratch, 3 + 2 + 2, "#head=avg", "averages")
    expect_ok(browser, page, scratch, per_sentence + 7, "#head=all%2Bavg", "heads+averages")
    expect_ok(browser, page, scratch, 3, "#layer=1&head=2", "one layer and head")
    expect_ok(browser, page, scratch, 4, "#show=cross&layer=1&cell=6", "small cells")

    # The weight of a pinned cell: the mean over heads of cross-attention, layer 1.
    first = sentences[0]
    rows = len(first["decoder_input_tokens"])
    i, j = min(2, rows - 1), 3
    want = sum(first["cross_attention"][1][h][i][j] for h in range(4)) / 4
    pinned = expect_ok(browser, page, scratch, 2, "#head=avg&show=cross&pin=cross.1.avg.%d.%d"
                       % (i, j), "pinned cell")
    got = float(pinned.split()[-1]) if pinned and pinned.startswith("weight ") else None
    check(got is not None and abs(got - want) <= 1e-3 * max(want, 1e-3) + 1e-6,
          "pinned weight %r, want %.6f" % (pinned, want))
    pinned = expect_ok(browser, page, scratch, per_sentence, "#pin=decoder.0.1.0.1", "masked")
    check(pinned is not None and pinned.startswith("masked"),
          "a cell above the diagonal of decoder self-attention reads %r, want masked" % pinned)
    screenshot_check(browser, page, scratch, "full dump")

    # Hovering and clicking: mouse events on the cells of a copy of the page.
    hover_check(browser, page, scratch, first)

    # A dump with only some of the attention: cross-attention, the last layer, heads 1 and 3
    # (what translate --dump-types/--dump-layers/--dump-heads write).
    part = dict(document, selection={"types": ["cross"], "layers": [-1], "heads": [1, 3]})
    part["sentences"] = []
    for s in sentences:
        kept = {k: v for k, v in s.items() if not k.endswith("_attention")}
        if "error" not in s:
            kept["cross_attention"] = [[layer[1], layer[3]] for layer in s["cross_attention"][-1:]]
        part["sentences"].append(kept)
    part_dump = os.path.join(scratch, "part.json")
    with open(part_dump, "w", encoding="utf-8") as f:
        json.dump(part, f, ensure_ascii=False)
    part_page = os.path.join(scratch, "part.html")
    result = run([minimt, "view", part_dump, "-o", part_page])
    check(result.returncode == 0, "view of a partial dump: exit %d: %s" %
          (result.returncode, result.stderr))
    expect_ok(browser, part_page, scratch, 2, what="partial dump")
    _, _, dom = page_status(browser, part_page, scratch)
    check("layer -1 \u00b7 head 3" in dom, "partial dump: no 'layer -1 · head 3' caption")

    # --rollout: the dump's rollouts against a product done here, drawn with their label.
    rollout_check(browser, minimt, model, scratch)

    # At 1400 px: the shipped model (4 heads, labels on every heatmap) and a random 8-head
    # model keep each layer's heads on one line.
    shipped = support.SHIPPED
    shipped_dump, shipped_page = os.path.join(scratch, "shipped.json"), os.path.join(scratch, "shipped.html")
    result = run([minimt, "translate", "--model", shipped, "--dump-attention", shipped_dump,
                  "The man does not see the white house."])
    check(result.returncode == 0, "shipped translate: exit %d" % result.returncode)
    run([minimt, "view", shipped_dump, "-o", shipped_page])
    layout_check(browser, shipped_page, scratch, "shipped model", 4, labels=4)
    layout_check(browser, shipped_page, scratch, "shipped model, heads + average", 5,
                 "#head=all%2Bavg")
    eight = support.random_model("view-eight")
    eight_dump, eight_page = os.path.join(scratch, "eight.json"), os.path.join(scratch, "eight.html")
    result = run([minimt, "translate", "--model", eight, "--max-length", "14", "--dump-attention",
                  eight_dump, "The small girl reads a red book."])
    check(result.returncode == 0, "8-head translate: exit %d" % result.returncode)
    run([minimt, "view", eight_dump, "-o", eight_page])
    layout_check(browser, eight_page, scratch, "8 heads", 8)
    layout_check(browser, eight_page, scratch, "8 heads + average", 9, "#head=all%2Bavg")

    # 40 tokens, 6 layers, 8 heads: stays small and draws.
    big_model = support.random_model("view-big")
    words = ("the quick brown fox jumps over the lazy dog while a small girl reads a red book "
             "and her old grandmother sings a song about the sea")
    big_dump, big_page = os.path.join(scratch, "big.json"), os.path.join(scratch, "big.html")
    tokens = run([minimt, "tokenize", "--model", big_model, words]).stdout.decode().split("\t")[0]
    count = len(tokens.split())
    while count > 40:
        words = words.rsplit(" ", 1)[0]
        tokens = run([minimt, "tokenize", "--model", big_model, words]).stdout.decode()
        count = len(tokens.split("\t")[0].split())
    result = run([minimt, "translate", "--model", big_model, "--max-length", "40",
                  "--dump-attention", big_dump, words])
    check(result.returncode == 0, "big translate: exit %d" % result.returncode)
    with open(big_dump, encoding="utf-8") as f:
        big = json.load(f)["sentences"][0]
    S, T = len(big["source_tokens"]), len(big["decoder_input_tokens"])
    result = run([minimt, "view", big_dump, "-o", big_page])
    size = os.path.getsize(big_page)
    print("6 layers, 8 heads, %d source and %d target tokens: dump %d KB, page %d KB" %
          (S, T, os.path.getsize(big_dump) // 1024, size // 1024))
    check(S >= 36 and T == 40, "big sentence: %d source and %d target tokens" % (S, T))
    # The page holds each weight as its float32 (4 bytes, 16/3 characters of base64): its size
    # is the dump's weights times that, plus the script and the tokens, under 200 KB.
    weights = 0
    for key in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
        for layer in big[key]:
            for head in layer:
                weights += sum(1 for row in head for value in row if value is not None)
    bound = weights * 16 // 3 + 200 * 1024
    check(size <= bound, "the 40-token, 6x8 page is %d KB, want at most %d KB (%d weights as "
          "float32, base64, and 200 KB)" % (size // 1024, bound // 1024, weights))
    started = time.time()
    expect_ok(browser, big_page, scratch, 3 * 6 * 8, what="40 tokens, 6x8")
    print("40 tokens, 6x8: loaded and drawn in %.1f s" % (time.time() - started))
    layout_check(browser, big_page, scratch, "40 tokens, 6x8", 8)


def main():
    return browser_test(__doc__, "view", TALLY, check_pages)


if __name__ == "__main__":
    sys.exit(main())
