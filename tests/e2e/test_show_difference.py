#!/usr/bin/python3
"""minimt show A.json B.json --values weights|scores|norms|lens: the difference of two dumps in
the terminal for every key both hold (issue 36, item 5), read back from the picture drawn.

    test_show_difference.py --minimt MINIMT_BINARY

The shipped model scores "Le chat noir voit le petit chien." for "The black cat sees the small
dog." with --dump-scores --dump-norms --logit-lens 3 (A), and again with two heads ablated (B).
Everything minimt prints is checked against B - A computed here from the two JSON dumps:
  - weights, scores, norms: each heatmap (one head, and the average over the heads not ablated,
    which differs between A and B) parsed line by line and cell by cell, in plain characters
    and in 24-bit colour (and 256 colours once): every cell the sign and level, or the colour,
    of its B - A on the diverging scale up to the map's largest change; the legend's number is
    that largest change; the causal mask hatched; the line count, the column labels, no line
    wider than --width;
  - the right labels: each run's probability of the piece predicted and B - A (weights,
    scores), each run's head norm ||sum_j a_ij v_j W_O|| and B - A (norms), every number
    within the digits printed; a dump without output_log_probs leaves only the piece;
  - the tables of each head's largest change (weights, scores, weight x norm, head norms):
    every head's row against the largest |B - A| found here, its A and B, query and key, the
    most changed first, the numbers right-aligned under their headings, the unchanged heads
    counted;
  - lens: each cell B's most likely piece, "*" when A's is another, B's probability and B - A
    ("?" when A's dump kept no probability for the piece: a crafted B), the layers in blocks
    that fit the width;
  - errors: a value one dump lacks (exit status 2, naming that dump, the key and the option
    that writes it), and dumps of other tokens (status 1, naming the sentence and the token),
    for every --values.
Ends with "N passed, N failed"; exits 1 on any failure.
"""

import copy
import json
import math
import os
import re
import subprocess
import sys
import shutil
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
import terminal_picture as tp  # noqa: E402

tally = support.Tally()
check = tally.check
f32 = tp.f32
PAIR = ("The black cat sees the small dog.", "Le chat noir voit le petit chien.")
ABLATE = "cross:0:1,decoder:1:3"
EXTRAS = ["--dump-scores", "--dump-norms", "--logit-lens", "3"]
SGR = re.compile(r"\x1b\[[0-9;]*m")
# type: (weights' key, extras' prefix, rows' tokens, columns' tokens, causal)
TYPES = {
    "encoder": ("encoder_self_attention", "encoder_self", "source_tokens", "source_tokens", False),
    "decoder": ("decoder_self_attention", "decoder_self", "decoder_input_tokens",
                "decoder_input_tokens", True),
    "cross": ("cross_attention", "cross", "decoder_input_tokens", "source_tokens", False),
}
MODES = {
    "plain": (["--color", "never"], {}),
    "256": (["--color", "always"], {"TERM": "xterm-256color"}),
    "truecolor": (["--color", "always"], {"TERM": "xterm-256color", "COLORTERM": "truecolor"}),
}
# What each --values compares: the dump's key after the type's prefix (None: the weights), the
# legend's name, the title's words.
VALUES = {
    "weights": (None, "B - A", ""),
    "scores": ("_scores", "score B - A", " \u00b7 scores (before softmax)"),
    "norms": ("_weighted_norms", "weight x norm B - A", " \u00b7 weight x norm"),
}


def run(minimt, args, cwd, env=None):
    environment = dict(os.environ)
    for name in ("NO_COLOR", "COLORTERM", "COLUMNS", "TERM"):
        environment.pop(name, None)
    environment.update(env or {})
    result = subprocess.run([minimt, *args], capture_output=True, timeout=300, env=environment,
                            cwd=cwd)
    return result.returncode, result.stdout.decode(), result.stderr.decode()


def within(printed, value):
    """Whether the number `printed` is `value` to the digits printed."""
    try:
        number = float(printed)
    except ValueError:
        return False
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return abs(number - value) <= 0.5 * 10 ** -decimals + 1e-6


def masked_set(dump):
    """The heads --ablate-heads switched off: {(type, layer, head)}."""
    out = set()
    for spec in filter(None, (dump.get("masked_heads") or "").split(",")):
        kind, layer, head = spec.split(":")
        out.add((kind, int(layer), int(head)))
    return out


def run_values(dump, kind, key, layer, head):
    """What a heatmap of one run draws, [rows][cols] of single floats: one head's values, or the
    mean over the heads not ablated, as minimt adds them (terminal_picture.average). The head
    norms, one per row, as [rows][1]."""
    heads = dump["sentences"][0][key][layer]
    if key.endswith("_head_norms"):
        heads = [[[v] for v in h] for h in heads]
    nulls = lambda m: [[f32(0.0 if v is None else v) for v in row] for row in m]  # noqa: E731
    if head is not None:
        return nulls(heads[head])
    kept = [h for h in range(len(heads)) if (kind, layer, h) not in masked_set(dump)]
    return tp.average([nulls(heads[h]) for h in kept or range(len(heads))])


def heatmap_lines(out, headings):
    """The first heatmap's text: after the two runs' header lines and the blank line, before
    the tables; the extra heading lines (norms' "right: ...") dropped, checked by the caller."""
    body = out.split("\n", 3)[-1]
    cut = body.find("\n\nlargest change per head")
    text = body[:cut + 1] if cut >= 0 else body
    lines = text.split("\n")
    extra = lines[4:4 + headings]
    return "\n".join(lines[:4] + lines[4 + headings:]), extra


def check_right(right, want, bad, i):
    """A right label against `want`: (the text before the numbers, [A, B, B - A] or [])."""
    prefix, numbers = want
    pattern = re.escape(prefix)
    if numbers:
        pattern += (" " if prefix else "") + r"A (\S+) B (\S+) (\S+)"
    m = re.match(pattern + "$", right)
    if not m or not all(within(g, v) for g, v in zip(m.groups(), numbers)):
        bad.append("row %d right label %r, want %r %r" % (i, right, prefix, numbers))


def output_want(a, b, i):
    sa, sb = a["sentences"][0], b["sentences"][0]
    prefix = "\u2192 " + tp.terminal_escape(sb["output_tokens"][i])
    if "output_log_probs" not in sa or "output_log_probs" not in sb:
        return prefix, []
    pa, pb = math.exp(sa["output_log_probs"][i]), math.exp(sb["output_log_probs"][i])
    return prefix, [pa, pb, pb - pa]


def check_heatmap(minimt, scratch, a, b, values, kind, layer, head, mode, width=200,
                  names=("a.json", "b.json")):
    """One heatmap of show A B --values VALUES, parsed and held to B - A of the dumps."""
    key, prefix, rows_key, cols_key, causal = TYPES[kind]
    suffix, legend_name, title_words = VALUES[values]
    dump_key = key if suffix is None else prefix + suffix
    flags, env = MODES[mode]
    head_args = ["--head", str(head)] if head is not None else []
    layer_args = ["--layer", str(layer)] if layer is not None else []
    what = "show A B --values %s --type %s layer %s %s, %s" % (
        values, kind, layer, "head %d" % head if head is not None else "average", mode)
    status, out, err = run(minimt, ["show", names[0], names[1], "--values", values, "--type", kind,
                                    "--width", str(width)] + layer_args + head_args + flags,
                           scratch, env)
    if not check(status == 0, what + ": runs", err):
        return out
    layer = 2 if layer is None else layer
    va = run_values(a, kind, dump_key, layer, head)
    vb = run_values(b, kind, dump_key, layer, head)
    n_rows, n_cols = len(va), len(va[0])
    change = [[f32(vb[i][j] - va[i][j]) for j in range(n_cols)] for i in range(n_rows)]
    scale = max(abs(change[i][j]) for i in range(n_rows) for j in range(n_cols)
                if not (causal and j > i))
    norms = values == "norms" and (prefix + "_head_norms") in b["sentences"][0]
    text, extra = heatmap_lines(out, 1 if norms else 0)
    sb = b["sentences"][0]
    row_labels = [tp.terminal_escape(t) for t in sb[rows_key]]
    col_labels = [tp.terminal_escape(t) for t in sb[cols_key]]
    picture = tp.Picture(text, row_labels, n_cols)
    down = min(10, max(len(l) for l in col_labels))
    check(len(picture.lines) == 4 + down + n_rows + 1,
          what + ": 4 heading lines, %d of column labels, %d rows, the legend" % (down, n_rows),
          "%d lines\n%s" % (len(picture.lines), text))
    title = picture.heading[0]
    check(("sentence 1%s: B - A, B = %s, A = %s" % (title_words, names[1], names[0])) in title
          and (" layer %d " % layer) in title, what + ": the title names the values and both runs",
          title)
    if kind == "decoder" and layer == 1 and head is None:
        check(title.endswith("(B: average of heads 0, 1, 2 (head 3 masked, left out))"),
              what + ": the title names B's heads, which differ from A's", title)
    check(picture.columns == [tp.fit(l, 10) for l in col_labels],
          what + ": the column labels are the keys' tokens", repr(picture.columns))
    if norms:
        check(extra and extra[0].startswith("right: the head norm ||sum_j a_ij v_j W_O||"),
              what + ": a heading line says what the right labels are", repr(extra))
        hn_a = run_values(a, kind, prefix + "_head_norms", layer, head)
        hn_b = run_values(b, kind, prefix + "_head_norms", layer, head)

    def right_want(i):
        if norms:
            x, y = hn_a[i][0], hn_b[i][0]
            return "", [x, y, f32(y - x)]
        return output_want(a, b, i)

    bad = []
    for i, (label, cells, right) in enumerate(picture.rows):
        if label != tp.fit(row_labels[i], 16):
            bad.append("row %d label %r" % (i, label))
        if cells is None or len(cells) != n_cols:
            bad.append("row %d: %r cells, want %d" % (i, cells and len(cells), n_cols))
            continue
        for j, cell in enumerate(cells):
            want = tp.expected_signed_cell(change[i][j], scale, mode, causal and j > i)
            if cell != want:
                bad.append("row %d col %d: %r, want %r (B - A %g of %g)" % (
                    i, j, cell, want, change[i][j], scale))
        if rows_key == "decoder_input_tokens" or norms:
            check_right(right, right_want(i), bad, i)
        elif right:
            bad.append("row %d: a right label %r on encoder rows" % (i, right))
    check(not bad and len(picture.rows) == n_rows,
          what + ": every cell its B - A's sign and level or colour, every label its number",
          "\n".join(bad[:12]) + "\n" + text)
    legend = tp.SGR.sub("", picture.legend)
    m = re.match(r"^(.*?)  -(\d+\.\d+) ", legend)
    if scale == 0:  # unchanged: upstream of the ablation, or the scores of an ablated head
        check(legend == legend_name + " is 0 in every cell: the two runs agree here",
              what + ": the legend says B - A is 0 everywhere", legend)
    else:
        check(m and m.group(1) == legend_name and within(m.group(2), scale),
              what + ": the legend names the change and its largest, %.6f" % scale, legend)
    return out


def largest_per_head(a, b, suffix):
    """{(type, layer, head): (B - A, A, B, query, key)} of the cell where |B - A| is largest
    (the first such in row-major order), over the types whose key both dumps hold."""
    sa, sb = a["sentences"][0], b["sentences"][0]
    per_row = suffix == "_head_norms"
    out = {}
    for kind, (key, prefix, rows_key, cols_key, causal) in TYPES.items():
        k = key if suffix is None else prefix + suffix
        if k not in sa or k not in sb:
            continue
        for layer, (la, lb) in enumerate(zip(sa[k], sb[k])):
            for head, (ha, hb) in enumerate(zip(la, lb)):
                if per_row:  # one value per query
                    ha, hb = [[x] for x in ha], [[y] for y in hb]
                best = None
                for i, (ra, rb) in enumerate(zip(ha, hb)):
                    for j, (x, y) in enumerate(zip(ra, rb)):
                        if causal and not per_row and j > i:
                            continue
                        c = f32(f32(y) - f32(x))
                        if best is None or abs(c) > abs(best[0]):
                            best = (c, x, y, sa[rows_key][i], "" if per_row else sa[cols_key][j])
                out[(kind, layer, head)] = best
    return out


ROW = re.compile(r"^(encoder|decoder|cross)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)  (.*)$")


def check_table(out, a, b, suffix, heading, what):
    """The table under `heading` against largest_per_head."""
    lines = out.split("\n")
    starts = [k for k, l in enumerate(lines) if l.startswith(heading + ", B - A (B = b.json")]
    if not check(len(starts) == 1, what + ": one table '%s'" % heading, out[-2000:]):
        return
    header = lines[starts[0] + 1]
    per_row = suffix == "_head_norms"
    check(header.split() == ["type", "layer", "head", "B", "-", "A", "A", "B", "sentence",
                             "query"] + ([] if per_row else ["->", "key"]),
          what + ": the table's header", header)
    want = largest_per_head(a, b, suffix)
    ablated_a, ablated_b = masked_set(a), masked_set(b)
    rows, unchanged_line, bad, last = {}, None, [], None
    words = list(re.finditer(r"\S+", header))  # type layer head B - A A B ...
    ends = [words[5].end(), words[6].end(), words[7].end()]
    for line in lines[starts[0] + 2:]:
        if not line:
            break
        if line.startswith("and "):
            unchanged_line = line
            break
        m = ROW.match(line)
        if not m:
            bad.append("not a row: %r" % line)
            continue
        kind, layer, head = m.group(1), int(m.group(2)), int(m.group(3))
        rows[(kind, layer, head)] = line
        for k, end in enumerate(ends):  # each number ends under its heading's last character
            if line[:end].split()[-1] != m.group(4 + k):
                bad.append("%r: %s not right-aligned under its heading" % (line, m.group(4 + k)))
        change = abs(float(m.group(4)))
        if last is not None and change > last + 1e-9:
            bad.append("%r after a smaller change %g" % (line, last))
        last = change
        c = want.get((kind, layer, head))
        if c is None:
            bad.append("%r: no such head in both dumps" % line)
            continue
        where = tp.terminal_escape(c[3]) + ("" if per_row else " -> " + tp.terminal_escape(c[4]))
        ablated = [x for x, s in (("A", ablated_a), ("B", ablated_b)) if (kind, layer, head) in s]
        if ablated:
            where += "  ablated in " + ("both" if len(ablated) == 2 else ablated[0])
        if not (within(m.group(4), c[0]) and within(m.group(5), c[1]) and
                within(m.group(6), c[2]) and m.group(7) == "1" and m.group(8) == where):
            bad.append("%r, want %+.6f %.6f %.6f %r" % (line, c[0], c[1], c[2], where))
    unchanged = 0
    for head, c in want.items():
        masked_differs = ((head in ablated_a) != (head in ablated_b))
        if c[0] == 0 and not masked_differs:
            unchanged += 1
        elif head not in rows:
            bad.append("head %r (largest change %g) not listed" % (head, c[0]))
    if unchanged:
        check(unchanged_line == "and %d head%s with B - A = 0 in every cell"
              % (unchanged, "" if unchanged == 1 else "s"),
              what + ": the %d unchanged heads counted on one line" % unchanged,
              repr(unchanged_line))
    check(not bad and rows, what + ": every head's largest change against the dumps (%d rows)"
          % len(rows), "\n".join(bad[:12]))


def lens_cell(a_list, b_list):
    """(piece, mark, B's probability, B - A or None) of a lens cell, from the dumps' lists."""
    token, pb = b_list[0]["token"], b_list[0]["probability"]
    pa = next((x["probability"] for x in a_list if x["token"] == token), None)
    mark = "*" if a_list and a_list[0]["token"] != token else " "
    return tp.fit(tp.terminal_escape(token), 9), mark, pb, None if pa is None else pb - pa


def check_lens(minimt, scratch, a, b, names, width, what):
    status, out, err = run(minimt, ["show", names[0], names[1], "--values", "lens", "--width",
                                    str(width), "--color", "never"], scratch)
    if not check(status == 0, what + ": runs", err):
        return
    lines = out.split("\n")[3:-1]
    sa, sb = a["sentences"][0], b["sentences"][0]
    tokens = sb["decoder_input_tokens"]
    left = min(16, max(len(tp.terminal_escape(t)) for t in tokens))
    layers = len(sb["decoder_layer_predictions"])
    per_block = max(1, (width - left - 1) // 22)
    blocks = [list(range(f, min(layers, f + per_block))) for f in range(0, layers, per_block)]
    check(all(len(SGR.sub("", l)) <= width for l in lines) and "largest change" not in out,
          what + ": no line wider than %d, no table of heads" % width, out)
    title = " ".join(lines[:next(k for k, l in enumerate(lines) if l.startswith("source: "))])
    check(title == "Logit lens \u00b7 sentence 1: B - A, B = %s, A = %s" % (names[1], names[0]),
          what + ": the title names both runs", title)
    k = lines.index(next(l for l in lines if l.startswith("each cell:")))
    k += 1
    while not (lines[k].lstrip().startswith("layer") or lines[k].startswith("layers ")):
        k += 1  # the explanation, wrapped
    bad, shown = [], 0
    for block in blocks:
        if len(blocks) > 1:
            want = "layers %d-%d of %d" % (block[0] + 1, block[-1] + 1, layers)
            if lines[k] != want:
                bad.append("%r, want %r" % (lines[k], want))
            k += 1
        if lines[k].split() != sum([["layer", str(l)] for l in block], []):
            bad.append("header %r" % lines[k])
        k += 1
        for t, token in enumerate(tokens):
            line = lines[k]
            k += 1
            if line[:left].strip() != tp.fit(tp.terminal_escape(token), left):
                bad.append("row label %r" % line[:left])
            for n, l in enumerate(block):
                cell = line[left + 1 + 22 * n:left + 1 + 22 * n + 21]
                piece, mark, pb, change = lens_cell(sa["decoder_layer_predictions"][l][t],
                                                    sb["decoder_layer_predictions"][l][t])
                fields = cell[11:].split()
                ok = (cell[:9].rstrip() == piece and cell[9] == mark and cell[10] == " " and
                      len(fields) == 2 and within(fields[0], pb) and
                      (fields[1] == "?" if change is None else within(fields[1], change)))
                shown += 1
                if not ok:
                    bad.append("position %d layer %d: %r, want %r" % (
                        t, l, cell, (piece, mark, pb, change)))
    check(not bad and shown == layers * len(tokens) and k == len(lines),
          what + ": each cell B's piece, its mark, B's probability and B - A (%d cells)" % shown,
          "\n".join(bad[:12]) + "\n" + out)
    return out


def check_errors(minimt, scratch):
    """A value one dump lacks: status 2 naming that dump and the key; other tokens: status 1."""
    for values, key, option in (("weights", "cross_attention", "--dump-types"),
                                ("scores", "cross_scores", "--dump-scores"),
                                ("norms", "cross_weighted_norms", "--dump-norms"),
                                ("lens", "decoder_layer_predictions", "--logit-lens")):
        lacking = "encoder.json" if values == "weights" else "plain.json"
        for first, second in (("a.json", lacking), (lacking, "b.json")):
            status, out, err = run(minimt, ["show", first, second, "--values", values], scratch)
            want = "cannot compare %s and %s by --values %s: %s has no %s (sentence 1; " % (
                first, second, values, lacking, key)
            check(status == 2 and out == "" and want in err and option in err and
                  "Run 'minimt show --help' for usage." in err,
                  "show %s %s --values %s: refused, naming %s and %s" % (
                      first, second, values, lacking, key), "status %d\n%s" % (status, err))
        status, out, err = run(minimt, ["show", "a.json", "other.json", "--values", values],
                               scratch)
        check(status == 1 and out == "" and
              "cannot compare a.json and other.json: sentence 1, decoder input token 6" in err and
              "'\u2581petit' in a.json, '\u2581chien' in other.json" in err,
              "show A B --values %s of other tokens: refused, naming the sentence and token"
              % values, "status %d\n%s" % (status, err))


def main():
    minimt = support.minimt_path(__doc__)
    model = os.path.join(support.ROOT, "models", "en-fr")
    scratch = tempfile.mkdtemp(prefix="minimt-show-difference-")
    made = {
        "a.json": [PAIR[0], PAIR[1]] + EXTRAS,
        "b.json": [PAIR[0], PAIR[1], "--ablate-heads", ABLATE] + EXTRAS,
        "plain.json": [PAIR[0], PAIR[1]],
        "encoder.json": [PAIR[0], PAIR[1], "--dump-types", "encoder"] + EXTRAS,
        "other.json": [PAIR[0], "Le chat noir voit le chien."] + EXTRAS,
    }
    for name, args in made.items():
        status, _, err = run(minimt, ["score", "-m", model, "--dump-attention", name] + args,
                             scratch)
        if not check(status == 0, "score --dump-attention " + name, err):
            return tally.finish()
    with open(os.path.join(scratch, "a.json"), encoding="utf-8") as f:
        a = json.load(f)
    with open(os.path.join(scratch, "b.json"), encoding="utf-8") as f:
        b = json.load(f)
    check(masked_set(b) == {("cross", 0, 1), ("decoder", 1, 3)}, "B ablated two heads",
          repr(b.get("masked_heads")))

    # The heatmaps: one head and the average (decoder layer 1: B's is over heads 0-2, A's
    # over 0-3), in plain characters and 24-bit colour; 256 colours once.
    cases = [("cross", None, None), ("cross", 0, 1), ("decoder", 1, None), ("decoder", 2, 0),
             ("encoder", 1, 2)]
    for values in ("weights", "scores", "norms"):
        for mode in ("plain", "truecolor"):
            for kind, layer, head in cases:
                check_heatmap(minimt, scratch, a, b, values, kind, layer, head, mode)
        check_heatmap(minimt, scratch, a, b, values, "decoder", 1, None, "256")
    # The tables of each head's largest change.
    heading = "largest change per head"
    for values, tables in (("weights", [(None, heading)]),
                           ("scores", [("_scores", heading + " of the scores")]),
                           ("norms", [("_weighted_norms", heading + " of weight x norm"),
                                      ("_head_norms", heading + " of the head norm")])):
        status, out, err = run(minimt, ["show", "a.json", "b.json", "--values", values,
                                        "--color", "never"], scratch)
        if check(status == 0, "show A B --values %s: runs" % values, err):
            for suffix, heading in tables:
                check_table(out, a, b, suffix, heading, "show A B --values %s, %s" % (
                    values, heading))

    # Width: no line of the heatmap wider than asked (the tables under it are not cut); at 24
    # columns the source pieces go in blocks that end with the last one; at 40 the decoder rows
    # keep their right labels.
    sources = str(len(a["sentences"][0]["source_tokens"]))
    for values in ("weights", "scores", "norms"):
        for mode in ("plain", "truecolor"):
            for kind, width in (("encoder", 24), ("cross", 40)):
                status, out, err = run(minimt, ["show", "a.json", "b.json", "--values", values,
                                                "--type", kind, "--width", str(width)] +
                                       MODES[mode][0], scratch, MODES[mode][1])
                out = out.split("\n", 3)[-1]  # after the runs' model lines, as wide as the paths
                out = out[:out.find("\nlargest change per head")]
                widths = [len(SGR.sub("", l)) for l in out.split("\n")]
                blocks = re.findall(r"^columns (\d+)-(\d+) of (\d+)$", out, re.M)
                rows = [l for l in out.split("\n") if re.search(r"(\u2192 \S+|[-+]\d\.\d+)$", l)]
                check(status == 0 and max(widths) <= width and
                      (len(blocks) >= 2 and blocks[-1][1] == blocks[-1][2] == sources
                       if kind == "encoder" else len(rows) >= 9 * max(1, len(blocks))),
                      "show A B --values %s --type %s --width %d, %s: every line within %d "
                      "columns, %s" % (values, kind, width, mode, width,
                                       "the columns in blocks" if kind == "encoder" else
                                       "every row's right label"),
                      "%d %r\n%s" % (max(widths), blocks, out))

    # Without output probabilities in A, the decoder rows name the piece only.
    old = copy.deepcopy(a)
    for s in old["sentences"]:
        s.pop("output_log_probs", None)
        s.pop("alternatives", None)
    with open(os.path.join(scratch, "old.json"), "w", encoding="utf-8") as f:
        json.dump(old, f)
    check_heatmap(minimt, scratch, old, b, "weights", "cross", None, None, "plain",
                  names=("old.json", "b.json"))

    # The logit lens; B with a piece A's dump did not keep ("?").
    check_lens(minimt, scratch, a, b, ("a.json", "b.json"), 200, "show A B --values lens")
    check_lens(minimt, scratch, a, b, ("a.json", "b.json"), 80, "show A B --values lens, 80 "
               "columns")
    check_lens(minimt, scratch, a, b, ("a.json", "b.json"), 50, "show A B --values lens, 50 "
               "columns (blocks of layers)")
    crafted = copy.deepcopy(b)
    crafted["sentences"][0]["decoder_layer_predictions"][1][2][0]["token"] = "\u2581zzz"
    with open(os.path.join(scratch, "crafted.json"), "w", encoding="utf-8") as f:
        json.dump(crafted, f)
    out = check_lens(minimt, scratch, a, crafted, ("a.json", "crafted.json"), 200,
                     "show A B --values lens, a piece A did not keep")
    check(out and re.search(r"\u2581zzz {5}\* \d\.\d\d {5}\?", out),
          "the piece A did not keep: '?' for B - A, marked as another", out)

    check_errors(minimt, scratch)
    shutil.rmtree(scratch)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
