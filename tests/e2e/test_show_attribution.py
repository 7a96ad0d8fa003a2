#!/usr/bin/env python3
"""minimt show DUMP --values METHOD: one attribution method's map of each sentence, drawn in
the terminal and read back cell by cell against the dump's numbers.

A dump from `minimt score --attribute all --ig-steps 8 --dump-attention` on the shipped model;
for each method (saliency, input_x_gradient, integrated_gradients, occlusion), each type
(cross: the source map [T][S]; decoder: the target map [T][T], j > t drawn as the causal mask)
and each colour mode (plain: --color never; 24-bit: --color always with COLORTERM=truecolor;
xterm's 256 colours):
  - the title names the method (integrated gradients: the steps, the rule and the largest
    |completeness gap|), then the source, the translation and the axes;
  - the column labels are the source (or decoder input) pieces, the rows the decoder input
    pieces with the predicted piece and its probability on the right;
  - every cell is the glyph or colour its number maps to, worked out here from the JSON:
    saliency on the sequential scale over the map's largest value, the signed methods on the
    diverging scale over the map's largest magnitude;
  - the legend prints the scale.
Two dumps of the same pairs (B with two cross-attention heads ablated and 16 steps where A has
8): `show A B --values METHOD` draws B - A of each map, every cell the change worked out here
from the two JSONs on the diverging scale over the largest change, each run's probability of
the predicted piece on the right, integrated gradients' steps, rule and gap of each run under
the axes; a dump against itself says the change is 0 everywhere.
Refused: a dump without the method (naming the dump, the sentence and --attribute METHOD;
against another dump, naming the one without it), --type encoder, --layer or --head (an
attribution has none); in a dump of two sentences, the one without the method named. The
weights of a dump with attributions are drawn as without them.

Ends with "N passed, N failed"; exits 1 on any failure.
"""

import copy
import json
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
import terminal_picture as tp  # noqa: E402

tally = support.Tally()
check = tally.check
METHODS = ("saliency", "input_x_gradient", "integrated_gradients", "occlusion")
MODE_RUNS = {
    "plain": (["--color", "never"], {}),
    "256": (["--color", "always"], {"TERM": "xterm-256color"}),
    "truecolor": (["--color", "always"], {"TERM": "xterm-256color", "COLORTERM": "truecolor"}),
}
SOURCE = "The black cat sees the small dog."
TARGET = "Le chat noir voit le petit chien."


run = tp.run


def expected_map(sentence, method, causal):
    """The map drawn ([T][S] or [T][T], None under the mask, as float32), its scale and each
    cell as it must be drawn."""
    attribution = sentence["attributions"][method]
    values = [[None if v is None else tp.f32(v) for v in row]
              for row in attribution["target" if causal else "source"]]
    scale = tp.f32(max(abs(v) for i, row in enumerate(values) for j, v in enumerate(row)
                       if not (causal and j > i)))
    return values, scale


def expected_cell(values, scale, method, mode, causal, i, j):
    masked = causal and j > i
    if method == "saliency":
        weight = 0.0 if masked or not scale > 0 else tp.f32(values[i][j] / scale)
        return tp.expected_cell(weight, mode, masked)
    return tp.expected_signed_cell(0.0 if masked else values[i][j], scale, mode, masked)


def title(sentence, method, causal):
    text = "Attribution \u00b7 %s of each output to the %s \u00b7 sentence 1" % (
        method, "decoder input" if causal else "source")
    if method == "integrated_gradients":
        a = sentence["attributions"][method]
        gap = max(abs(tp.f32(g)) for g in a["completeness_gap"])
        text += " \u00b7 %d steps, %s rule, largest |completeness gap| %.4g" % (
            a["steps"], a["rule"], gap)
    return text


def check_map(minimt, dump, sentence, method, kind, mode):
    causal = kind == "decoder"
    what = "show --values %s --type %s, %s" % (method, kind, mode)
    flags, env = MODE_RUNS[mode]
    status, out, err = run(minimt, ["show", dump, "--values", method, "--type", kind,
                                    "--width", "200"] + flags, env)
    if not check(status == 0 and out.count("\n\n") >= 1, what + ": runs", err + out[:300]):
        return
    body = out.split("\n", 2)[2]  # after the line naming the model and a blank line
    rows = [tp.terminal_escape(t) for t in sentence["decoder_input_tokens"]]
    cols = [tp.terminal_escape(t) for t in
            (sentence["decoder_input_tokens"] if causal else sentence["source_tokens"])]
    picture = tp.Picture(body, rows, len(cols))
    values, scale = expected_map(sentence, method, causal)
    check(picture.heading[0] == title(sentence, method, causal),
          what + ": the title names the method (and the integration)", picture.heading[0])
    check(picture.heading[1] == "source: " + sentence["source"] and
          picture.heading[2] == "translation: " + sentence["translation"] and
          picture.heading[3].startswith("rows: outputs = decoder input pieces"),
          what + ": source, translation and axes", "\n".join(picture.heading))
    down = min(10, max(len(l) for l in cols))
    check(len(picture.lines) == 4 + down + len(rows) + 1,
          what + ": 4 heading lines, %d of column labels, %d rows, the legend" % (down, len(rows)),
          "%d lines\n%s" % (len(picture.lines), body))
    check(picture.columns == [tp.fit(l, 10) for l in cols],
          what + ": the column labels are the pieces attributed to", repr(picture.columns))
    bad, cells = [], 0
    for i, (label, row_cells, right) in enumerate(picture.rows):
        if label != tp.fit(rows[i], 16):
            bad.append("row %d label %r" % (i, label))
        want_right = "\u2192 %s %.2f" % (tp.terminal_escape(sentence["output_tokens"][i]),
                                         math.exp(sentence["output_log_probs"][i]))
        if right != want_right:
            bad.append("row %d right label %r, want %r" % (i, right, want_right))
        if row_cells is None or len(row_cells) != len(cols):
            bad.append("row %d: %r cells, want %d" % (i, row_cells and len(row_cells), len(cols)))
            continue
        for j, cell in enumerate(row_cells):
            want = expected_cell(values, scale, method, mode, causal, i, j)
            cells += 1
            if cell != want:
                bad.append("row %d col %d: %r, want %r" % (i, j, cell, want))
    check(not bad and len(picture.rows) == len(rows) and cells == len(rows) * len(cols),
          what + ": all %d cells the glyph or colour of their number, every label its token"
          % (len(rows) * len(cols)), "\n".join(bad[:10]) + "\n" + body)
    legend = tp.SGR.sub("", picture.legend)
    if method == "saliency":
        want = ("saliency 0 ", " %.4f (the largest here)" % scale)
    else:
        want = ("%s  -%.4f " % (method, scale), " +%.4f (" % scale)
    check(legend.startswith(want[0]) and want[1] in legend and
          (("masked" in legend) == causal), what + ": the legend prints the scale", legend)
    return cells


def check_errors(minimt, dump, plain, saliency_only):
    status, out, err = run(minimt, ["show", plain, "--values", "saliency"])
    check(status == 2 and out == "" and plain in err and "sentence 1" in err and
          "--attribute saliency" in err,
          "a dump without attributions: a usage error naming the dump, the sentence, the flag", err)
    status, out, err = run(minimt, ["show", saliency_only, "--values", "occlusion", "--type",
                                    "decoder"])
    check(status == 2 and out == "" and saliency_only in err and "sentence 1" in err and
          "--attribute occlusion" in err and "no occlusion attributions" in err,
          "a dump with another method only: the method missing named", err)
    status, out, err = run(minimt, ["show", saliency_only, "--values", "saliency"])
    check(status == 0 and out.splitlines()[2].startswith("Attribution \u00b7 saliency"),
          "the method the dump has is drawn", err + out[:200])
    for method in METHODS:
        status, out, err = run(minimt, ["show", dump, "--values", method, "--type", "encoder"])
        check(status == 2 and out == "" and "no encoder map" in err,
              "--values %s --type encoder: refused, no encoder map" % method, err)
    for option in (["--layer", "-1"], ["--head", "2"], ["--head", "avg", "--layer", "0"]):
        status, out, err = run(minimt, ["show", dump, "--values", "saliency", *option])
        check(status == 2 and out == "" and "no layers or heads" in err,
              "--values saliency %s: refused, an attribution has no layers or heads"
              % " ".join(option), err)
    status, out, err = run(minimt, ["show", dump, dump, "--values", "integrated_gradients",
                                    "--color", "never"])
    check(status == 0 and out.endswith(
        "\nintegrated_gradients B - A is 0 in every cell: the two runs agree here\n"),
          "a dump against itself --values integrated_gradients: B - A is 0 everywhere", err + out)
    status, out, err = run(minimt, ["show", dump, saliency_only, "--values", "occlusion"])
    check(status == 2 and out == "" and err.startswith(
        "minimt: error: cannot compare %s and %s by --values occlusion: %s has no "
        "attributions.occlusion (sentence 1; a dump holds it when written with --attribute "
        "occlusion)" % (dump, saliency_only, saliency_only)),
          "show A B --values occlusion where B has none: refused, naming B", err)
    status, out, err = run(minimt, ["show", dump, dump, "--values", "saliency", "--type",
                                    "encoder"])
    check(status == 2 and out == "" and "no encoder map" in err,
          "show A B --values saliency --type encoder: refused, no encoder map", err)
    int8 = os.path.join(os.path.dirname(dump), "int8.json")
    status, _, err = run(minimt, ["score", "-m", os.path.join(support.ROOT, "models", "en-fr"),
                                  "--compute-type", "int8", "--attribute", "saliency",
                                  "--dump-attention", int8, SOURCE, TARGET])
    status, out, err = run(minimt, ["show", int8, "--values", "saliency", "--color", "never"])
    lines = out.split("\n")
    check(status == 0 and lines[0].endswith(", compute type int8") and lines[1] ==
          "note: attributions computed in float32 on the int8 weights, dequantized" and
          lines[2] == "" and lines[3].startswith("Attribution \u00b7 saliency"),
          "an int8 dump's attributions: the header notes they are float32", err + out[:300])
    status, out, err = run(minimt, ["show", int8, "--color", "never"])
    check(status == 0 and "attributions computed" not in out,
          "its weights: no note on attributions", out[:300])
    status, out, err = run(minimt, ["show", dump, "--values", "gradients"])
    check(status == 2 and "gradients" in err, "an unknown --values: a usage error", err)
    # The weights of the same dump are drawn as ever.
    status, out, err = run(minimt, ["show", dump, "--color", "never", "--width", "200"])
    status_plain, out_plain, _ = run(minimt, ["show", plain, "--color", "never", "--width", "200"])
    check(status == 0 and status_plain == 0 and out == out_plain,
          "show --values weights of a dump with attributions: as of the same dump without", err)


def check_difference(minimt, paths, sentences, method, kind, mode):
    """show A B --values METHOD --type KIND: B - A of the map, read back cell by cell."""
    causal = kind == "decoder"
    what = "show A B --values %s --type %s, %s" % (method, kind, mode)
    flags, env = MODE_RUNS[mode]
    status, out, err = run(minimt, ["show", *paths, "--values", method, "--type", kind,
                                    "--width", "320"] + flags, env)  # the title names 2 paths
    if not check(status == 0, what + ": runs", err + out[:300]):
        return 0
    body = out.split("\n\n", 1)[1]  # after the two lines naming the models and a blank line
    a, b = sentences
    extra = 2 if method == "integrated_gradients" else 0
    rows = [tp.terminal_escape(t) for t in b["decoder_input_tokens"]]
    cols = [tp.terminal_escape(t) for t in
            (b["decoder_input_tokens"] if causal else b["source_tokens"])]
    picture = tp.Picture(body, rows, len(cols), 4 + extra)
    va, _ = expected_map(a, method, causal)
    vb, _ = expected_map(b, method, causal)
    change = [[None if x is None else tp.f32(y - x) for x, y in zip(ra, rb)]
              for ra, rb in zip(va, vb)]
    scale = max(abs(v) for i, row in enumerate(change) for j, v in enumerate(row)
                if not (causal and j > i))
    want_title = ("Attribution \u00b7 %s of each output to the %s \u00b7 sentence 1: B - A, "
                  "B = %s, A = %s" % (method, "decoder input" if causal else "source",
                                      paths[1], paths[0]))
    check(picture.heading[0] == want_title, what + ": the title names the method and the runs",
          picture.heading[0])
    if extra:
        want = []
        for name, s in (("A", a), ("B", b)):
            ig = s["attributions"][method]
            want.append("%s: %d steps, %s rule, largest |completeness gap| %.4g" % (
                name, ig["steps"], ig["rule"],
                max(abs(tp.f32(g)) for g in ig["completeness_gap"])))
        check(picture.heading[4:] == want, what + ": each run's steps, rule and gap",
              "\n".join(picture.heading))
    check(scale > 0, what + ": the runs differ (two heads ablated in B)", repr(scale))
    bad, cells = [], 0
    for i, (label, row_cells, right) in enumerate(picture.rows):
        pa, pb = (math.exp(s["output_log_probs"][i]) for s in (a, b))
        want_right = "\u2192 %s A %.2f B %.2f %+.2f" % (
            tp.terminal_escape(b["output_tokens"][i]), pa, pb, pb - pa)
        if label != tp.fit(rows[i], 16) or right != want_right:
            bad.append("row %d labels %r %r, want %r" % (i, label, right, want_right))
        if row_cells is None or len(row_cells) != len(cols):
            bad.append("row %d: %r cells, want %d" % (i, row_cells and len(row_cells), len(cols)))
            continue
        for j, cell in enumerate(row_cells):
            masked = causal and j > i
            want = tp.expected_signed_cell(0.0 if masked else change[i][j], scale, mode, masked)
            cells += 1
            if cell != want:
                bad.append("row %d col %d: %r, want %r (B - A %r)" % (i, j, cell, want,
                                                                      change[i][j]))
    check(not bad and len(picture.rows) == len(rows) and cells == len(rows) * len(cols),
          what + ": all %d cells the colour of B - A, every label its token and probabilities"
          % (len(rows) * len(cols)), "\n".join(bad[:10]) + "\n" + body)
    legend = tp.SGR.sub("", picture.legend)
    check(legend.startswith("%s B - A  -%.4f " % (method, scale)) and
          (" +%.4f (" % scale) in legend and (("masked" in legend) == causal),
          what + ": the legend names the change and its largest", legend)
    return cells


def check_blank_line(minimt, scratch):
    """translate with a blank line among the sentences: its empty translation is not attributed
    (docs/model-format.md), so its map is a note, alone and against another run, and the other
    sentences are drawn."""
    model = os.path.join(support.ROOT, "models", "en-fr")
    paths = [os.path.join(scratch, name) for name in ("blank-a.json", "blank-b.json")]
    for path, extra in zip(paths, ([], ["--mask-heads", "cross:0:0"])):
        status, _, err = run(minimt, ["translate", "-m", model, "--attribute", "saliency", *extra,
                                      "--dump-attention", path, SOURCE, "", "I am a student."])
        check(status == 0, "translate with a blank line, --attribute saliency", err)
    note = "sentence 2 is a blank line: its empty translation is not attributed"
    for shown in ([paths[0]], paths):
        status, out, err = run(minimt, ["show", *shown, "--values", "saliency", "--color", "never",
                                        "--width", "300"])
        pictures = out.split("\n\n")
        check(status == 0 and len(pictures) == 4 and pictures[2] == note and
              pictures[1].startswith("Attribution \u00b7 saliency") and
              pictures[3].startswith("Attribution \u00b7 saliency"),
              "show %s --values saliency with a blank line: a note for it, a map for the others"
              % " ".join(os.path.basename(p) for p in shown), err + out[:400])


def check_sentences(minimt, dump, scratch):
    """Two sentences, the second without occlusion: the error names sentence 2; --sentences 1
    draws; every sentence is drawn, a blank line between two."""
    with open(dump, encoding="utf-8") as f:
        dumped = json.load(f)
    second = copy.deepcopy(dumped["sentences"][0])
    del second["attributions"]["occlusion"]
    dumped["sentences"].append(second)
    two = os.path.join(scratch, "two.json")
    with open(two, "w", encoding="utf-8") as f:
        json.dump(dumped, f)
    status, out, err = run(minimt, ["show", two, "--values", "occlusion"])
    check(status == 2 and out == "" and "sentence 2 has no occlusion attributions" in err and
          two in err, "the second sentence without occlusion: named", err)
    status, out, err = run(minimt, ["show", two, "--values", "occlusion", "--sentences", "1",
                                    "--color", "never", "--width", "200"])
    check(status == 0 and out.count("\nAttribution \u00b7 occlusion") == 1,
          "--sentences 1: the sentence that has it drawn", err + out[:200])
    status, out, err = run(minimt, ["show", two, "--values", "saliency", "--color", "never",
                                    "--width", "200"])
    pictures = out.split("\n\n")
    check(status == 0 and len(pictures) == 3 and pictures[1] + "\n" == pictures[2].replace(
        "sentence 2", "sentence 1"), "two sentences: a picture each, a blank line between", err)


def main():
    minimt, root = support.minimt_path(__doc__), support.ROOT
    model = os.path.join(root, "models", "en-fr")
    scratch = tempfile.mkdtemp(prefix="minimt-show-attribution-")
    dump = os.path.join(scratch, "attributed.json")
    plain = os.path.join(scratch, "plain.json")
    saliency_only = os.path.join(scratch, "saliency.json")
    for path, options in ((dump, ["--attribute", "all", "--ig-steps", "8"]), (plain, []),
                          (saliency_only, ["--attribute", "saliency"])):
        status, _, err = run(minimt, ["score", "-m", model, *options, "--dump-attention", path,
                                      SOURCE, TARGET])
        check(status == 0, "score %s --dump-attention" % " ".join(options), err)
    with open(dump, encoding="utf-8") as f:
        sentence = json.load(f)["sentences"][0]
    check(sorted(sentence.get("attributions", {})) == sorted(METHODS),
          "the dump holds the four methods", repr(sorted(sentence.get("attributions", {}))))
    total = 0
    for method in METHODS:
        for kind in ("cross", "decoder"):
            for mode in MODE_RUNS:
                total += check_map(minimt, dump, sentence, method, kind, mode) or 0
    print("%d cells checked" % total)
    ablated = os.path.join(scratch, "ablated.json")
    status, _, err = run(minimt, ["score", "-m", model, "--attribute", "all", "--ig-steps", "16",
                                  "--mask-heads", "cross:0:0,cross:1:1", "--dump-attention",
                                  ablated, SOURCE, TARGET])
    if check(status == 0, "score --mask-heads --attribute all --dump-attention", err):
        with open(ablated, encoding="utf-8") as f:
            other = json.load(f)["sentences"][0]
        total = 0
        for method in METHODS:
            for kind in ("cross", "decoder"):
                for mode in MODE_RUNS:
                    total += check_difference(minimt, (dump, ablated), (sentence, other), method,
                                              kind, mode)
        print("%d cells of differences checked" % total)
    check_errors(minimt, dump, plain, saliency_only)
    check_sentences(minimt, dump, scratch)
    check_blank_line(minimt, scratch)
    shutil.rmtree(scratch)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
