#!/usr/bin/python3
"""The page and SVGs of minimt view on a dump written with --mask-heads, the SVG's
probabilities, and why minimt view cannot read a dump.

    test_view_masked.py --minimt build/minimt [--chromium chromium]

On the shipped model, a dump of translate --mask-heads (an encoder head, two cross heads, every
head of the decoder's layer 1):
  - the page in headless Chromium: each ablated head's caption says "(ablated)" in words, every
    other head's does not; each average's caption names the heads it is over and the masked
    ones left out (all of them masked: said so); a pinned cell of an average reads the mean
    over the heads not masked, computed here from the dump (not the mean over all heads, which
    the page used to draw);
  - the SVGs (--svg): the same captions, from the dump's masked_heads; right of each decoder
    step the predicted piece and its probability to 2 decimals, with a hover text
    "p(piece) = 0.1234", both equal to exp of the dump's output_log_probs;
  - minimt view of a missing file, of a file that is not JSON and of JSON that is not a dump:
    exit status 1 and an error naming the path and saying which, for one dump and for the
    second of two.
Chromium must be installed (tools/test.sh installs Debian's chromium); if it is missing the
test fails, it is not skipped. Stdlib only. Ends with "N passed, N failed"; exit 1 on failure.
"""
import json
import math
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import browser_test  # noqa: E402
from head_patterns import KEYS  # noqa: E402
from test_view_browser import page_status  # noqa: E402

TALLY = support.Tally()
check = TALLY.check
SVG = "{http://www.w3.org/2000/svg}"
MASK = "encoder:2:0,cross:0:1,cross:2:3,decoder:1:*"
HEADS = 4


def masked_set(document):
    out = set()
    for item in filter(None, document.get("masked_heads", "").split(",")):
        kind, layer, head = item.split(":")
        heads = range(HEADS) if head == "*" else [int(head)]
        out.update((kind, int(layer), h) for h in heads)
    return out


def average_caption(kind, layer, masked):
    """What the average's caption must say, written here from the mask."""
    off = [h for h in range(HEADS) if (kind, layer, h) in masked]
    kept = [h for h in range(HEADS) if h not in off] or off
    text = "average of head%s %s" % ("" if len(kept) == 1 else "s", ", ".join(map(str, kept)))
    if len(off) == HEADS:
        return text + " (all ablated, every weight 0)"
    if off:
        text += " (head%s %s ablated, left out)" % ("" if len(off) == 1 else "s", ", ".join(map(str, off)))
    return text


def page_check(browser, minimt, scratch, dump, document, masked):
    page = os.path.join(scratch, "masked.html")
    result = support.run([minimt, "view", dump, "-o", page, "--svg", os.path.join(scratch, "masked")])
    check(result.returncode == 0, "view of the masked dump", result.stderr.decode())
    status, _, dom = page_status(browser, page, scratch, "#head=all%2Bavg")
    check(status == "ok: 45 heatmaps", "the page draws every head and average", status)
    captions = re.findall(r'<figure class="heatmap( average)?( masked)?" data-type="(\w+)" data-layer="(\d)" '
                          r'data-head="(\w+)"[^>]*><figcaption[^>]*>([^<]*)</figcaption>', dom)
    check(len(captions) == 45, "45 captions (36 heads, 9 averages)", str(len(captions)))
    for average, marked, kind, layer, head, caption in captions:
        layer = int(layer)
        if head == "avg":
            want = "layer %d \u00b7 %s" % (layer, average_caption(kind, layer, masked))
        else:
            off = (kind, layer, int(head)) in masked
            want = "layer %d \u00b7 head %s%s" % (layer, head, " (ablated)" if off else "")
            check(bool(marked) == off, "%s layer %d head %s: the figure is marked masked: %s" %
                  (kind, layer, head, off))
        check(caption == want, "page caption %r" % want, repr(caption))

    # A cell of each average: the mean over the heads not masked.
    s = document["sentences"][0]
    for kind, layer, (i, j) in (("cross", 0, (2, 1)), ("cross", 2, (3, 4)), ("encoder", 2, (1, 2)),
                                ("decoder", 1, (2, 1))):
        heads = s[KEYS[kind]][layer]
        kept = [h for h in range(HEADS) if (kind, layer, h) not in masked] or list(range(HEADS))
        want = sum(heads[h][i][j] for h in kept) / len(kept)
        everyone = sum(heads[h][i][j] for h in range(HEADS)) / HEADS
        _, pinned, _ = page_status(browser, page, scratch,
                                   "#head=avg&show=%s&pin=%s.%d.avg.%d.%d" % (kind, kind, layer, i, j))
        got = float(pinned.split()[-1]) if pinned and pinned.startswith("weight ") else None
        check(got is not None and abs(got - want) <= 1e-3 * max(want, 1e-3) + 1e-6,
              "%s layer %d average, cell (%d, %d): the mean over heads %r" % (kind, layer, i, j, kept),
              "page %r, want %.6f (over all heads %.6f)" % (pinned, want, everyone))


def svg_check(scratch, document, masked):
    s = document["sentences"][0]
    for kind in KEYS:
        path = os.path.join(scratch, "masked-%s.svg" % kind)
        root = ElementTree.parse(path).getroot()
        texts = ["".join(e.itertext()) for e in root.iter(SVG + "text")]
        captions = [t for t in texts if re.match(r"layer \d \u00b7 head \d", t)]
        want = ["layer %d \u00b7 head %d%s" % (l, h, " (ablated)" if (kind, l, h) in masked else "")
                for l in range(3) for h in range(HEADS)]
        check(captions == want, "%s SVG: the masked heads' captions say so, the others' not" % kind,
              "%r\nwant %r" % (captions, want))
        if kind == "encoder":
            check(not any(t.startswith("\u2192") for t in texts), "encoder SVG: no predictions")
            continue
        # Each step's prediction: its piece and probability, on every heatmap of the row.
        labels = [e for e in root.iter(SVG + "text") if (e.text or "").startswith("\u2192 ")]
        check(len(labels) == 12 * len(s["output_tokens"]),
              "%s SVG: a prediction right of each row of each heatmap" % kind, str(len(labels)))
        for e in labels[:len(s["output_tokens"])]:
            title = e.find(SVG + "title")
            row = labels.index(e)
            p = math.exp(s["output_log_probs"][row])
            piece = s["output_tokens"][row]
            check(e.text == "\u2192 %s %.2f" % (piece, p),
                  "%s SVG, row %d: the label shows the dump's probability" % (kind, row),
                  "%r, want %r" % (e.text, "\u2192 %s %.2f" % (piece, p)))
            # then the dump's log-probability, exactly: "p(▁chat) = 0.9312 (log-probability -0.0712)"
            want = "p(%s) = %.4f (log-probability " % (piece, p)
            check(title is not None and title.text.startswith(want) and
                  float(title.text[len(want):-1]) == s["output_log_probs"][row],
                  "%s SVG, row %d: the hover text p(%s) = %.4f" % (kind, row, piece, p),
                  repr(title is not None and title.text))


def refusal_check(minimt, scratch, dump):
    missing = os.path.join(scratch, "nope.json")
    not_json = os.path.join(scratch, "notes.json")
    with open(not_json, "w", encoding="utf-8") as f:
        f.write("attention, not JSON\n")
    not_dump = os.path.join(scratch, "list.json")
    with open(not_dump, "w", encoding="utf-8") as f:
        json.dump({"sentences": []}, f)
    cases = [(missing, "cannot read %s: No such file or directory" % missing),
             (not_json, "%s: not valid JSON" % not_json),
             (not_dump, '%s: not a minimt attention dump ("format" should be "minimt-attention")' % not_dump)]
    for path, want in cases:
        for dumps in ([path], [dump, path]):
            result = support.run([minimt, "view", *dumps, "-o", os.path.join(scratch, "x.html")])
            err = result.stderr.decode()
            check(result.returncode == 1 and want in err,
                  "view %s: exit 1 and %r" % (" ".join(os.path.basename(d) for d in dumps), want),
                  "exit %d: %s" % (result.returncode, err))
    result = support.run([minimt, "view", "-", "-"])
    check(result.returncode == 2 and b"only one of the two dumps can come from stdin" in result.stderr,
          "view - -: a usage error", result.stderr.decode())


def check_pages(minimt, browser, scratch):
    dump = os.path.join(scratch, "masked.json")
    result = support.run([minimt, "translate", "-m", support.SHIPPED, "--ablate-heads", MASK,
                          "--dump-attention", dump, "The small girl reads a red book."])
    check(result.returncode == 0, "translate --ablate-heads", result.stderr.decode())
    with open(dump, encoding="utf-8") as f:
        document = json.load(f)
    # --mask-heads, the option's older name: the same run, and nothing said about the name.
    alias = os.path.join(scratch, "alias.json")
    result = support.run([minimt, "translate", "-m", support.SHIPPED, "--mask-heads", MASK,
                          "--dump-attention", alias, "The small girl reads a red book."])
    with open(alias, encoding="utf-8") as f:
        check(result.returncode == 0 and result.stderr == b"" and json.load(f) == document,
              "--mask-heads: the same dump as --ablate-heads, silently", result.stderr.decode())
    # A bad SPEC is named as typed; both names at once are refused (one option said twice).
    for name in ("--ablate-heads", "--mask-heads"):
        result = support.run([minimt, "translate", "-m", support.SHIPPED, name, "cross:9:0", "a"])
        err = result.stderr.decode()
        check(result.returncode == 2 and result.stdout == b"" and
              err.startswith("minimt: error: %s: " % name), "%s cross:9:0" % name, err)
    result = support.run([minimt, "translate", "-m", support.SHIPPED, "--ablate-heads", MASK,
                          "--mask-heads", MASK, "a"])
    err = result.stderr.decode()
    check(result.returncode == 2 and result.stdout == b"" and "--ablate-heads" in err and
          "--mask-heads" in err, "--ablate-heads with --mask-heads: refused", err)
    masked = masked_set(document)
    check(len(masked) == 7, "the dump records the 7 masked heads", document.get("masked_heads"))
    page_check(browser, minimt, scratch, dump, document, masked)
    svg_check(scratch, document, masked)
    refusal_check(minimt, scratch, dump)


def main():
    return browser_test(__doc__, "view-masked", TALLY, check_pages)


if __name__ == "__main__":
    sys.exit(main())
