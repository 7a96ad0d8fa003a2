#!/usr/bin/python3
"""minimt heads --view in a real browser (headless Chromium), on the shipped model.

    test_heads_page.py --minimt build/minimt [--chromium chromium]

Runs `minimt heads --view PAGE --format jsonl --prune-order` on five pairs (two without a
reference: their greedy translations are the references), then checks:
  - the page is self-contained (no external script, style, font or image);
  - in Chromium: the page's script ran ("ok: 36 heatmaps" for the first example), the grid has
    one cell per type, layer and head (3 types x 3 layers x 4 heads), each with the importance
    and rank of the JSON Lines output and its statistics on hover;
  - the importance of the two most important heads equals the difference of two `minimt score`
    runs, with and without that head masked (not the numbers of the page's own run);
  - the colours follow the importances: red for a masking that costs, the redder the costlier;
    blue for one that helps; the most important head has the darkest red;
  - the heatmaps of the first 3 pairs are there, and a click on a cell shows that head's;
  - the pruning table has one row per head removed, and bad --view paths are refused.
Chromium must be installed (tools/test.sh installs Debian's chromium); if it is missing the
test fails, it is not skipped. One Chromium serves every page (tests/browser.py). Stdlib only.
Ends with "N passed, N failed"; exit 1 on failure.
"""
import html.parser
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from browser import browser_test  # noqa: E402

MODEL = support.SHIPPED
PAIRS = ["The black cat sees the small dog.\tLe chat noir voit le petit chien.",
         "I am a student.\tJe suis étudiant.",
         "The small girl reads a red book.",
         "The man does not see the white house.",
         "I like the bird.\tJ'aime l'oiseau."]
TYPES, LAYERS, HEADS = ("encoder", "decoder", "cross"), 3, 4

TALLY = support.Tally()
check = TALLY.check


def run(command, stdin=None):
    return support.run(command, input=stdin, timeout=300)


class Elements(html.parser.HTMLParser):
    """The attributes of every element, and the text of some, in document order."""

    def __init__(self):
        super().__init__()
        self.found, self.open = [], []

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.found.append(element)
        if tag not in ("br", "canvas", "meta", "input"):
            self.open.append(element)

    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self.open:
            element["text"] += data


def elements(dom):
    parser = Elements()
    parser.feed(dom)
    return parser.found


def status_of(dom):
    found = re.search(r'id="minimt-status"[^>]*>([^<]*)<', dom)
    return found.group(1) if found else "(no #minimt-status)"


def rgb(style):
    found = re.search(r"background:rgb\((\d+),(\d+),(\d+)\)", style or "")
    return tuple(int(x) for x in found.groups()) if found else None


def scored(minimt, lines, mask=None):
    """(sum of log-probabilities, reference tokens) of `lines` by minimt score."""
    command = [minimt, "score", "--model", MODEL, "--format", "jsonl"]
    if mask:
        command += ["--mask-heads", mask]
    result = run(command, stdin=("\n".join(lines) + "\n").encode())
    if not check(result.returncode == 0, "score %s: exit %d: %s" %
                 (mask, result.returncode, result.stderr.decode()[-300:])):
        return 0.0, 1
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    return sum(r["score"] for r in records), sum(len(r["token_log_probs"]) for r in records)


def check_cells(cells, rows):
    """One cell per type, layer and head, with the importance and rank of the JSON Lines."""
    where = {(c["data-type"], int(c["data-layer"]), int(c["data-head"])): c for c in cells}
    check(len(cells) == len(TYPES) * LAYERS * HEADS and len(where) == len(cells),
          "%d cells for %d distinct heads, want %d" % (len(cells), len(where), 36))
    for rank, row in enumerate(rows, 1):
        key = (row["type"], row["layer"], row["head"])
        cell = where.get(key)
        if not check(cell is not None, "no cell for %s" % (key,)):
            continue
        delta = float(cell["data-delta"])
        check(abs(delta - row["delta_log_prob"]) <= 1e-6 + 1e-5 * abs(row["delta_log_prob"]),
              "%s: the cell has %r, heads --format jsonl %r" % (key, delta, row["delta_log_prob"]))
        check(int(cell["data-rank"]) == rank, "%s: rank %s, want %d" % (key, cell["data-rank"], rank))
        title = cell.get("title", "")
        want = ["%s layer %d head %d: rank %d of 36" % (key + (rank,)),
                "entropy %.3f nats" % row["entropy"], "max weight %.3f" % row["max_weight"],
                "first %.3f" % row["first"]]
        if row["type"] == "cross":
            want.append("agrees with the head average: %.3f" % row["alignment_agreement"])
        else:
            want.append("same %.3f, previous %.3f" % (row["same"], row["previous"]))
        check(all(w in title for w in want), "%s: hover text %r lacks %r" % (key, title, want))


def check_colours(cells):
    """Red below 0, the redder the costlier; blue above 0; the most important darkest."""
    by_delta = sorted(cells, key=lambda c: float(c["data-delta"]))
    colours = [(float(c["data-delta"]), rgb(c.get("style"))) for c in by_delta]
    check(all(colour is not None for _, colour in colours), "a cell without a background colour")
    if any(colour is None for _, colour in colours):
        return
    costly = [(d, c) for d, c in colours if d < 0]
    helpful = [(d, c) for d, c in colours if d > 0]
    check(all(c[0] >= c[2] for _, c in costly), "a costly mask is not red: %r" % costly)
    check(all(c[2] >= c[0] for _, c in helpful), "a helpful mask is not blue: %r" % helpful)
    # Green rises from the darkest red to white, then red falls towards the darkest blue.
    greens = [c[1] for _, c in costly]
    check(greens == sorted(greens), "red cells not ordered by importance: %r" % costly)
    reds = [c[0] for _, c in helpful]
    check(reds == sorted(reds, reverse=True), "blue cells not ordered by importance: %r" % helpful)
    top = min(cells, key=lambda c: int(c["data-rank"]))
    check(rgb(top.get("style")) == (178, 24, 43) and float(top["data-delta"]) < 0,
          "the most important head is %r, want the darkest red (178, 24, 43)" % (top.get("style"),))


CLICK_PROBE = """<script>
(function () {
  var link = document.querySelector('td.head-cell[data-rank="1"] a');
  window.addEventListener('hashchange', function () {
    var shown = [];
    document.querySelectorAll('section.sentence:not([hidden]) figure.heatmap').forEach(function (f) {
      if (!f.hidden && !f.closest('[hidden]'))
        shown.push(f.getAttribute('data-type') + '.' + f.getAttribute('data-layer') + '.' + f.getAttribute('data-head'));
    });
    var out = document.createElement('pre');
    out.id = 'probe';
    out.textContent = document.getElementById('minimt-status').textContent + '|' + shown.join(',');
    document.body.appendChild(out);
  });
  link.click();
})();
</script>
</body>"""


def check_examples(browser, page, scratch, dom, found):
    sections = [e for e in found if e["tag"] == "section" and "sentence" in e["attrs"].get("class", "")]
    check(len(sections) == 3, "%d example sentences, want 3" % len(sections))
    for k, section in enumerate(sections):
        source = PAIRS[k].split("\t")[0]
        check(source in section["text"], "example %d does not show %r" % (k + 1, source))
    check(status_of(dom) == "ok: 36 heatmaps", "page status %r, want 'ok: 36 heatmaps'" % status_of(dom))
    third = browser.dom("file://" + page + "#sentence=3")
    check(status_of(third) == "ok: 36 heatmaps", "#sentence=3: status %r" % status_of(third))

    with open(page, encoding="utf-8") as f:
        text = f.read()
    probed = os.path.join(scratch, "probed.html")
    with open(probed, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", CLICK_PROBE))
    clicked = browser.dom("file://" + probed, until="#probe")  # after the hashchange
    result = re.search(r'<pre id="probe">([^<]*)</pre>', clicked)
    top = [e["attrs"] for e in found if e["attrs"].get("data-rank") == "1"][0]
    want = "ok: 1 heatmap|%s.%s.%s" % (top["data-type"], top["data-layer"], top["data-head"])
    check(result is not None and result.group(1) == want,
          "a click on the top cell shows %r, want %r" % (result.group(1) if result else None, want))


def check_refusals(minimt, scratch, pairs):
    for view, status, message in (("-", 2, "--view needs a file name"),
                                  (pairs, 2, "are the same file"),
                                  (os.path.join(scratch, "missing", "p.html"), 1, "cannot write")):
        result = run([minimt, "heads", "--model", MODEL, "-i", pairs, "-q", "--view", view])
        check(result.returncode == status and message in result.stderr.decode(),
              "heads --view %s: exit %d, stderr %r; want %d and %r" %
              (view, result.returncode, result.stderr.decode()[-200:], status, message))


def check_page(minimt, browser, scratch):
    """The page of `minimt heads --view` on PAIRS, against the JSON Lines and score runs."""
    pairs, page = os.path.join(scratch, "pairs.tsv"), os.path.join(scratch, "heads.html")
    with open(pairs, "w", encoding="utf-8") as f:
        f.write("\n".join(PAIRS) + "\n")
    result = run([minimt, "heads", "--model", MODEL, "-i", pairs, "--format", "jsonl",
                  "--prune-order", "--view", page])
    check(result.returncode == 0, "heads --view: exit %d: %s" %
          (result.returncode, result.stderr.decode()[-300:]))
    check(re.search(r"minimt: wrote .*heads\.html: 36 heads, 3 example sentences \(108 heatmaps\)",
                    result.stderr.decode()), "heads --view: stderr %r" % result.stderr.decode())
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    rows = [r for r in lines if "type" in r]
    with open(page, encoding="utf-8") as f:
        text = f.read()
    check(not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)|<link\b|@import|url\(""", text),
          "the page refers to something outside itself")

    dom = browser.dom("file://" + page)
    found = elements(dom)
    cells = [e["attrs"] for e in found if e["tag"] == "td" and "head-cell" in e["attrs"].get("class", "")]
    grids = [e["attrs"].get("data-type") for e in found if e["tag"] == "figure" and
             "head-grid" in e["attrs"].get("class", "")]
    check(grids == list(TYPES), "grids %r, want one per type in order" % grids)
    check_cells(cells, rows)
    check_colours(cells)
    prune_rows = [e for e in found if e["tag"] == "tr" and e["text"].strip()[:1].isdigit()]
    check(len(prune_rows) == 37, "%d rows in the pruning table, want 37" % len(prune_rows))

    # The two most important heads against minimt score with and without each masked.
    references = run([minimt, "translate", "--model", MODEL],
                     stdin="\n".join(p.split("\t")[0] for p in PAIRS).encode()).stdout.decode()
    full = [p if "\t" in p else p + "\t" + r for p, r in zip(PAIRS, references.splitlines())]
    base, tokens = scored(minimt, full)
    for row in rows[:2]:
        masked, _ = scored(minimt, full, "%s:%d:%d" % (row["type"], row["layer"], row["head"]))
        want = (masked - base) / tokens
        cell = [c for c in cells if (c["data-type"], c["data-layer"], c["data-head"]) ==
                (row["type"], str(row["layer"]), str(row["head"]))]
        got = float(cell[0]["data-delta"]) if cell else None
        check(got is not None and abs(got - want) <= 1e-5,
              "%s:%d:%d: the page says %r, two score runs %.7f" %
              (row["type"], row["layer"], row["head"], got, want))
    check_examples(browser, page, scratch, dom, found)
    check_refusals(minimt, scratch, pairs)


def main():
    return browser_test(__doc__, "heads-page", TALLY, check_page)


if __name__ == "__main__":
    sys.exit(main())
