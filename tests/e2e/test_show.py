#!/usr/bin/python3
"""minimt show and translate --show (attention in the terminal), and minimt show A B (two runs
side by side), on the shipped model.

    test_show.py --minimt MINIMT_BINARY

Checks, against the dumps' own numbers read here in Python:
  - the three colour modes: --color never and NO_COLOR draw plain ASCII with no escape
    sequence; on a terminal (a pseudo-terminal here) without COLORTERM, Unicode shades; TERM
    naming a 256-colour terminal, xterm's 256 colours (48;5;N); COLORTERM=truecolor, 24-bit
    colour whose first cell is the colour of its weight on colour_scales.json's sequential
    scale, worked out here;
  - the plain cells: each one's character is the weight's level on the 10-step ramp the legend
    prints, computed here from the dump;
  - width: a 60-token sentence at 80 columns splits into blocks, no line wider than 80 columns,
    every row label in every block;
  - the average's title names the heads it is over, and a head --mask-heads switched off is
    named as masked and left out of it;
  - show A B: the per-head table's largest change equals the largest |B - A| computed here from
    the two dumps (without and with --mask-heads), and a dump of other tokens is refused naming
    the sentence and the token;
  - the dump says which compute type wrote it, and --dump-layers -1 labels the last layer by
    its number;
  - translate --show draws each line's heatmap on stderr, and a layer the model lacks is refused;
  - show's header names the compute type and the dump's notes;
  - usage errors: a misspelled subcommand gets a suggestion, a subcommand's error points to its
    own --help, and view and show say why a dump cannot be read;
  - the picture as rendered (terminal_picture.py reads it back): translate --show and score
    --show in each colour mode, cross, decoder (masked cells) and encoder, every line, label and
    cell against the dump the same run wrote, each cell's colour or character recomputed here
    from the documented scale; tokens holding ESC, tab, newline and C1 escaped in the labels
    while the picture's own colours stay intact (a crafted dump, and a model whose vocabulary
    spells such pieces, renamed_pieces.py);
  - show --layer -1 is the model's last layer whichever layers the dump holds (--dump-layers
    -1,0), and a layer the dump left out is refused naming the layers it holds.
Ends with "N passed, N failed"; exits 1 on any failure.
"""

import json
import math
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
import renamed_pieces  # noqa: E402
import terminal_picture  # noqa: E402

tally = support.Tally()
check = tally.check
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


run = terminal_picture.run


def run_with_terminal(minimt, args, env, stream):
    """Runs with `stream` ("stdout" or "stderr") on a pseudo-terminal and the other on a pipe;
    returns (exit status, what the pipe got, what the terminal showed)."""
    environment = dict(os.environ)
    for name in ("NO_COLOR", "COLORTERM", "COLUMNS"):
        environment.pop(name, None)
    environment.update(env)
    main, secondary = pty.openpty()
    streams = {"stdout": secondary, "stderr": subprocess.PIPE}
    if stream == "stderr":
        streams = {"stdout": subprocess.PIPE, "stderr": secondary}
    process = subprocess.Popen([minimt, *args], env=environment, **streams)
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    piped = (process.stdout if stream == "stderr" else process.stderr).read()
    process.wait(timeout=300)
    return (process.returncode, piped.decode(),
            b"".join(chunks).decode().replace("\r\n", "\n"))


def run_on_terminal(minimt, args, env):
    """Runs with stdout on a pseudo-terminal; returns (exit status, what it printed)."""
    status, _, shown = run_with_terminal(minimt, args, env, "stdout")
    return status, shown


def sequential_colour(root, weight):
    with open(os.path.join(root, "src", "app", "views", "page", "colour_scales.json"), encoding="utf-8") as f:
        stops = json.load(f)["sequential"]["stops"]
    last = len(stops) - 1
    x = min(1.0, max(0.0, weight)) * last
    i = min(last - 1, int(x))
    t = x - i
    # Rounded half away from zero, as C's lround (Python's round() would round half to even).
    return tuple(int(math.floor(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * t + 0.5))
                 for k in range(3))


def columns(text):
    """Terminal columns of a line without escape sequences (the labels here are narrow)."""
    return len(ESCAPE.sub("", text))


# How each colour mode is asked for: the arguments, the environment, stderr on a terminal.
MODE_RUNS = {
    "plain": (["--color", "never"], {}, False),
    "shading": ([], {"TERM": "xterm"}, True),
    "256": (["--color", "always"], {"TERM": "xterm-256color"}, False),
    "truecolor": (["--color", "always"], {"TERM": "xterm-256color", "COLORTERM": "truecolor"},
                  False),
}


def drawn_on_stderr(minimt, args, mode):
    flags, env, terminal = MODE_RUNS[mode]
    if terminal:
        return run_with_terminal(minimt, args + flags, env, "stderr")
    return run(minimt, args + flags, env)


def drawn_weights(sentence, key, layer, head):
    """The weights a heatmap of the dump's sentence must show: one head's, or (None) the
    average over the heads."""
    heads = sentence[key][layer]
    if head is not None:
        return [[terminal_picture.f32(w) for w in row] for row in heads[head]]
    return terminal_picture.average(heads)


def check_picture(text, sentence, key, layer, head, mode, what, cells=None, causal=None):
    """The drawn heatmap read back, line by line and cell by cell, against the dump (or
    `cells(i, j)`, the cell each position must have)."""
    causal = key == "decoder_self_attention" if causal is None else causal
    rows = sentence["decoder_input_tokens"] if not key.startswith("encoder_self") else sentence["source_tokens"]
    cols = sentence["decoder_input_tokens"] if causal else sentence["source_tokens"]
    row_labels = [terminal_picture.terminal_escape(t) for t in rows]
    col_labels = [terminal_picture.terminal_escape(t) for t in cols]
    check("\\n" not in text and "\\x1B" not in text and "\\t" not in text,
          what + ": no escaped picture (a literal \\n or \\x1B)", text[:300])
    picture = terminal_picture.Picture(text, row_labels, len(cols))
    down = min(10, max(len(l) for l in col_labels))
    check(len(picture.lines) == 4 + down + len(rows) + 1,
          what + ": 4 heading lines, %d of column labels, %d rows (one per query), the legend"
          % (down, len(rows)), "%d lines\n%s" % (len(picture.lines), text))
    check(picture.columns == [terminal_picture.fit(l, 10) for l in col_labels],
          what + ": the column labels are the keys' tokens, escaped", repr(picture.columns))
    if cells is None:
        weights = drawn_weights(sentence, key, layer, head)
        cells = lambda i, j: terminal_picture.expected_cell(weights[i][j], mode, causal and j > i)
    bad = []
    for i, (label, row_cells, right) in enumerate(picture.rows):
        if label != terminal_picture.fit(row_labels[i], 16):
            bad.append("row %d label %r" % (i, label))
        if row_cells is None or len(row_cells) != len(cols):
            bad.append("row %d: %r cells, want %d" % (i, row_cells and len(row_cells), len(cols)))
            continue
        for j, cell in enumerate(row_cells):
            want = cells(i, j)
            if cell != want:
                bad.append("row %d col %d: %r, want %r" % (i, j, cell, want))
        if not key.startswith("encoder_self"):
            want_right = "\u2192 %s %.2f" % (terminal_picture.terminal_escape(
                sentence["output_tokens"][i]), math.exp(sentence["output_log_probs"][i]))
            if right != want_right:
                bad.append("row %d right label %r, want %r" % (i, right, want_right))
    check(not bad and len(picture.rows) == len(rows),
          what + ": every cell the colour its weight in the dump maps to, every label its token",
          "\n".join(bad[:10]) + "\n" + text)


def check_rendered(minimt, model, scratch):
    """translate --show and score --show in each colour mode: the picture drawn (not escaped),
    read back cell by cell against the dump the same run wrote."""
    sentence = "The black cat sees the small dog."
    dump = os.path.join(scratch, "shown.json")
    for mode in terminal_picture.MODES:
        for spec, key, layer, head in (("cross", "cross_attention", -1, None),
                                       ("decoder:0:1", "decoder_self_attention", 0, 1),
                                       ("encoder:-1:3", "encoder_self_attention", -1, 3)):
            for command in (["translate", "-m", model, sentence],
                            ["score", "-m", model, sentence, "Le chat noir voit le petit chien."]):
                status, out, err = drawn_on_stderr(
                    minimt, command + ["--show", spec, "--dump-attention", dump, "-q",
                                       "--width", "200"], mode)
                what = "%s --show %s, %s" % (command[0], spec, mode)
                if not check(status == 0, what + ": runs", err):
                    continue
                with open(dump, encoding="utf-8") as f:
                    dumped = json.load(f)["sentences"][0]
                check_picture(err, dumped, key, layer, head, mode, what)


def check_hostile_labels(minimt, model, plain_dump, scratch):
    """Tokens holding ESC, a tab, a newline and a C1 control: escaped in the labels, while the
    picture's own colour sequences stay intact (show of a dump; translate --show of a model
    whose vocabulary spells its pieces so)."""
    with open(plain_dump, encoding="utf-8") as f:
        dump = json.load(f)
    s = dump["sentences"][0]
    s["source_tokens"][1] = "\x1b[2J\tx"
    s["decoder_input_tokens"][2] = "\x1b]0;owned\x07"
    s["output_tokens"][3] = "a\nb\u009b"
    hostile = os.path.join(scratch, "hostile.json")
    with open(hostile, "w", encoding="utf-8") as f:
        json.dump(dump, f)
    for mode in ("plain", "truecolor"):
        flags, env, _ = MODE_RUNS[mode]
        status, out, err = run(minimt, ["show", hostile, "--head", "2", "--width", "200"] + flags,
                               env)
        check(status == 0, "show of hostile tokens, %s: runs" % mode, err)
        body = out.split("\n", 2)[2]  # after the line naming the model and a blank line
        check(terminal_picture.SGR.sub("", body).count("\x1b") == 0 and "\t" not in body,
              "show of hostile tokens, %s: no ESC but the picture's colours, no tab" % mode,
              repr(body[:400]))
        check_picture(body, s, "cross_attention", -1, 2, mode, "show of hostile tokens, " + mode)
    # A model that writes such pieces itself.
    renamed = renamed_pieces.model_with_pieces(
        model, os.path.join(scratch, "hostile-model"),
        {"\u2581chat": "\u2581ch\x1b[31mat\t", "\u2581noir": "\u2581no\x1b]0;x\x07ir"})
    shown = os.path.join(scratch, "hostile-shown.json")
    for mode in terminal_picture.MODES:
        status, out, err = drawn_on_stderr(
            minimt, ["translate", "-m", renamed, "--show", "cross", "--dump-attention", shown,
                     "-q", "--width", "200", "The black cat sees the small dog."], mode)
        with open(shown, encoding="utf-8") as f:
            dumped = json.load(f)["sentences"][0]
        check(status == 0 and "\u2581ch\x1b[31mat\t" in dumped["output_tokens"],
              "translate --show, a model writing ESC and tab in a piece, %s: runs" % mode,
              err + repr(dumped["output_tokens"]))
        check_picture(err, dumped, "cross_attention", -1, None, mode,
                      "translate --show of ESC and tab in a piece, " + mode)


def translated_dump(minimt, model, dump, options):
    """The dump `translate OPTIONS` writes of the sentence, parsed."""
    status, _, err = run(minimt, ["translate", "-m", model, "--dump-attention", dump, *options,
                                  "The black cat sees the small dog."])
    check(status == 0, "translate " + " ".join(options), err)
    with open(dump, encoding="utf-8") as f:
        return json.load(f)


def check_negative_layers(minimt, model, scratch):
    """show --layer -1 is the model's last layer, whichever layers the dump holds."""
    dump = os.path.join(scratch, "layers.json")
    dumped = translated_dump(minimt, model, dump, ["--dump-layers", "-1,0", "--dump-types",
                                                   "cross"])
    sentence = dumped["sentences"][0]
    layers = dumped["selection"]["decoder_layers"]  # the writer's numbers: [2, 0]
    check(layers == [2, 0], "the dump numbers its layers 2 and 0", repr(layers))
    for args, number in ((["--layer", "-1"], 2), (["--layer", "-3"], 0), (["--layer", "2"], 2),
                         (["--layer", "0"], 0), ([], 2)):
        status, out, err = run(minimt, ["show", dump, "--head", "1", "--color", "never",
                                        "--width", "200"] + args)
        body = out.split("\n", 2)[2] if status == 0 else ""
        what = "show --layer %s after --dump-layers -1,0" % (args[1] if args else "(default)")
        check(status == 0 and body.startswith("Cross-attention") and
              " \u00b7 layer %d \u00b7 " % number in body.splitlines()[0],
              what + ": the model's layer %d" % number, out[:200] + err)
        if status == 0:
            check_picture(body, sentence, "cross_attention", layers.index(number), 1, "plain",
                          what)
    status, out, err = run(minimt, ["show", dump, "--layer", "-2"])
    check(status == 1 and "layer -2 (the model's layer 1) is not in the dump (its cross layers: 2, 0)"
          in err and out == "", "show --layer -2: the model's layer 1, which the dump left out", err)
    status, out, err = run(minimt, ["show", dump, "--layer", "-4"])
    check(status == 1 and "layer -4 does not exist (the model has 3 cross layers" in err,
          "show --layer -4: past the model's first layer", err)


def mean_over_heads(heads):
    """The mean over heads [H][R][C] as minimt computes it in float (None: under the mask)."""
    return terminal_picture.average([[[0.0 if w is None else w for w in row] for row in h]
                                     for h in heads])


def check_values(minimt, model, scratch):
    """show --values scores, norms and lens, drawn from the dump's extras, each cell read back
    and recomputed here: scores on the diverging scale up to the map's largest magnitude,
    weight x norm on the sequential scale up to the map's largest, the lens's top piece."""
    dump = os.path.join(scratch, "values.json")
    sentence = translated_dump(minimt, model, dump, ["--dump-scores", "--dump-norms",
                                                     "--logit-lens", "3"])["sentences"][0]
    for mode in ("plain", "truecolor", "256"):
        flags, env, _ = MODE_RUNS[mode]
        for prefix, causal in (("decoder_self", True), ("cross", False)):
            kind = "decoder" if prefix == "decoder_self" else "cross"
            for head in (1, None):
                head_args = ["--head", str(head)] if head is not None else []
                what = "show --values scores --type %s %s, %s" % (
                    kind, "head 1" if head is not None else "average", mode)
                status, out, err = run(minimt, ["show", dump, "--values", "scores", "--type", kind,
                                                "--width", "200"] + head_args + flags, env)
                layer = sentence[prefix + "_scores"][-1]
                scores = ([[terminal_picture.f32(0.0 if w is None else w) for w in row]
                           for row in layer[head]] if head is not None else mean_over_heads(layer))
                scale = max(abs(v) for i, row in enumerate(scores) for j, v in enumerate(row)
                            if not (causal and j > i))
                cells = (lambda s, sc: lambda i, j: terminal_picture.expected_signed_cell(
                    s[i][j], sc, mode, causal and j > i))(scores, scale)
                check(status == 0 and ("score  -%.4f" % scale) in out, what + ": runs, legend",
                      err + out[-300:])
                if status == 0:
                    check_picture(out.split("\n", 2)[2], sentence, prefix + "_scores", -1, head,
                                  mode, what, cells, causal)
        norms = [[terminal_picture.f32(w) for w in row]
                 for row in sentence["cross_weighted_norms"][-1][2]]
        scale = max(max(row) for row in norms)
        status, out, err = run(minimt, ["show", dump, "--values", "norms", "--head", "2",
                                        "--width", "200"] + flags, env)
        cells = (lambda n, sc: lambda i, j: terminal_picture.expected_cell(
            terminal_picture.f32(n[i][j] / sc), mode, False))(norms, scale)
        check(status == 0, "show --values norms, %s: runs" % mode, err)
        if status == 0:
            check_picture(out.split("\n", 2)[2], sentence, "cross_weighted_norms", -1, 2, mode,
                          "show --values norms --head 2, " + mode, cells, False)
    status, out, err = run(minimt, ["show", dump, "--values", "lens", "--width", "200"])
    lines = out.split("\n", 2)[2].splitlines()
    table = lines[4:]
    lens = sentence["decoder_layer_predictions"]
    check(status == 0 and lines[3].split() == ["layer", "0", "layer", "1", "layer", "2"] and
          len(table) == len(sentence["decoder_input_tokens"]),
          "show --values lens: a column per layer, a line per decoder position", out)
    bad = []
    for t, line in enumerate(table):
        fields = line.split()
        want = [terminal_picture.terminal_escape(sentence["decoder_input_tokens"][t])]
        for layer in lens:
            want += [terminal_picture.terminal_escape(layer[t][0]["token"]),
                     "%.2f" % layer[t][0]["probability"]]
        if fields != want:
            bad.append("%r, want %r" % (fields, want))
    check(status == 0 and not bad, "show --values lens: each layer's top piece and probability",
          "\n".join(bad))
    status, out, err = run(minimt, ["show", os.path.join(scratch, "plain.json"), "--values",
                                    "scores"])
    check(status == 1 and "--dump-scores" in err, "show --values scores of a dump without them",
          err)


def main():
    minimt, root = support.minimt_path(__doc__), support.ROOT
    model = os.path.join(root, "models", "en-fr")
    scratch = tempfile.mkdtemp(prefix="minimt-show-")
    plain_dump = os.path.join(scratch, "plain.json")
    masked_dump = os.path.join(scratch, "masked.json")
    other_dump = os.path.join(scratch, "other.json")
    sentence = "The black cat sees the small dog."
    status, _, err = run(minimt, ["score", "-m", model, "--dump-attention", plain_dump,
                                  sentence, "Le chat noir voit le petit chien."])
    check(status == 0, "score --dump-attention", err)
    status, _, err = run(minimt, ["score", "-m", model, "--dump-attention", masked_dump,
                                  "--mask-heads", "cross:0:1,cross:2:1", sentence,
                                  "Le chat noir voit le petit chien."])
    check(status == 0, "score --mask-heads --dump-attention", err)
    status, _, err = run(minimt, ["score", "-m", model, "--dump-attention", other_dump,
                                  sentence, "Le chat noir voit le chien."])
    check(status == 0, "score of another translation", err)
    with open(plain_dump, encoding="utf-8") as f:
        plain = json.load(f)
    with open(masked_dump, encoding="utf-8") as f:
        masked = json.load(f)
    check(plain.get("compute_type") == "float32", "the dump says its compute type",
          repr(plain.get("compute_type")))

    # Plain: every cell the level of its weight on the legend's 10-step ramp.
    status, out, err = run(minimt, ["show", plain_dump, "--head", "0", "--color", "never"])
    check(status == 0 and ESCAPE.search(out) is None and
          not any(c in out for c in "\u2591\u2592\u2593\u2588\x1b"),
          "--color never: plain characters, no shade, no escape sequence", err + out)
    s = plain["sentences"][0]
    cross = s["cross_attention"][-1][0]  # the last layer, head 0: [T][S]
    ramp = " .:-=+*#%@"
    expected = []
    for i, row in enumerate(cross):
        cells = "".join(ramp[int(round(min(1.0, w) * 9 + 1e-9)) if w > 0 else 0] * 2 for w in row)
        expected.append(cells)
    labels = s["decoder_input_tokens"]
    lines = out.splitlines()
    found = 0
    for label, cells in zip(labels, expected):
        if any(l.lstrip().startswith(label + " ") and cells.rstrip() in l
               for l in lines):
            found += 1
    check(found == len(expected), "plain cells: each row's characters are its weights' levels",
          "%d of %d\n%s\n%r" % (found, len(expected), out, expected))
    check("layer 2" in out and "head 0" in out, "the title names the layer's number and the head",
          out[:300])
    status, out2, _ = run(minimt, ["show", plain_dump, "--head", "0"], {"NO_COLOR": "1"})
    check(out2 == out, "not a terminal, NO_COLOR: the same plain drawing")

    # On a terminal: shades, 256 colours, 24-bit colour.
    status, shaded = run_on_terminal(minimt, ["show", plain_dump, "--width", "100"],
                                     {"TERM": "xterm"})
    check(status == 0 and ESCAPE.search(shaded) is None and any(c in shaded for c in "\u2591\u2592\u2593\u2588"),
          "a terminal without colour words: Unicode shades", shaded[:500])
    status, colours256 = run_on_terminal(minimt, ["show", plain_dump, "--width", "100"],
                                         {"TERM": "xterm-256color"})
    check(status == 0 and "\x1b[48;5;" in colours256 and "\x1b[48;2;" not in colours256,
          "TERM=xterm-256color: 256 colours", colours256[:500])
    status, true_colour = run_on_terminal(
        minimt, ["show", plain_dump, "--head", "0", "--width", "100"],
        {"TERM": "xterm-256color", "COLORTERM": "truecolor"})
    cells = re.findall(r"\x1b\[48;2;(\d+);(\d+);(\d+)m  ", true_colour)
    want = sequential_colour(root, cross[0][0])
    check(status == 0 and cells and tuple(int(c) for c in cells[0]) == want,
          "COLORTERM=truecolor: the first cell is its weight's colour", "%r %r" % (cells[:1], want))
    status, forced, _ = run(minimt, ["show", plain_dump, "--color", "always"],
                         {"COLORTERM": "truecolor"})
    check("\x1b[48;2;" in forced, "--color always: colour even into a pipe")

    # Width: 60 tokens in 80 columns.
    long_source = " ".join(["the cat"] * 30)
    long_dump = os.path.join(scratch, "long.json")
    status, _, err = run(minimt, ["translate", "-m", model, "--max-length", "60",
                                  "--dump-attention", long_dump, long_source])
    with open(long_dump, encoding="utf-8") as f:
        long_sentence = json.load(f)["sentences"][0]
    source_tokens = long_sentence["source_tokens"]
    check(len(source_tokens) >= 60, "a sentence of at least 60 source tokens", str(len(source_tokens)))
    status, wide, err = run(minimt, ["show", long_dump, "--type", "encoder"], {"COLUMNS": "80"})
    widths = [columns(l) for l in wide.splitlines()]
    check(status == 0 and max(widths) <= 80, "80 columns: no line wider", "%d %s" % (max(widths), err))
    blocks = re.findall(r"columns (\d+)-(\d+) of (\d+)", wide)
    check(len(blocks) >= 2 and blocks[-1][1] == blocks[-1][2] == str(len(source_tokens)),
          "the columns split into blocks that end with the last token", repr(blocks))
    status, wide_colour, _ = run(minimt, ["show", long_dump, "--type", "encoder", "--color",
                                          "always", "--width", "80"], {"COLORTERM": "truecolor"})
    check(max(columns(l) for l in wide_colour.splitlines()) <= 80,
          "80 columns in colour too (escape sequences take no column)")

    # The average over heads, and masked heads named.
    status, out, _ = run(minimt, ["show", masked_dump, "--color", "never"])
    check("average of heads 0, 2, 3" in out and "head 1 masked" in out,
          "the average names its heads and the masked one", out[:400])
    status, out, _ = run(minimt, ["show", masked_dump, "--head", "1", "--color", "never"])
    check("masked" in out.splitlines()[2], "a masked head's title says so", out[:200])

    # Two runs: B - A, the largest change per head against the dumps.
    status, diff, err = run(minimt, ["show", plain_dump, masked_dump, "--color", "never"])
    check(status == 0, "show A B", err)
    table = diff[diff.find("largest change per head"):]
    row = re.search(r"^cross\s+2\s+1\s+([-+][0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", table, re.M)
    a = plain["sentences"][0]["cross_attention"][-1][1]
    b = masked["sentences"][0]["cross_attention"][-1][1]
    largest = max((bv - av for ar, br in zip(a, b) for av, bv in zip(ar, br)), key=abs)
    check(row and abs(float(row.group(1)) - largest) < 1e-4 and float(row.group(3)) == 0,
          "the masked head's largest change is -its largest weight", "%r %f" % (row and row.groups(), largest))
    # Every other head: its largest change from the dumps, listed when not 0, else counted.
    unchanged = 0
    for key, type_name in (("encoder_self_attention", "encoder"),
                           ("decoder_self_attention", "decoder"), ("cross_attention", "cross")):
        for layer, (la, lb) in enumerate(zip(plain["sentences"][0][key], masked["sentences"][0][key])):
            for head, (ha, hb) in enumerate(zip(la, lb)):
                change = max(abs(y - x) for ra, rb in zip(ha, hb) for x, y in zip(ra, rb))
                if type_name == "cross" and head == 1 and layer in (0, 2):
                    continue
                if change == 0:
                    unchanged += 1
                    continue
                r = re.search(r"^%s\s+%d\s+%d\s+([-+][0-9.]+)" % (type_name, layer, head),
                              table, re.M)
                check(r and abs(abs(float(r.group(1))) - change) < 1e-4,
                      "%s layer %d head %d: the largest change of the dumps" % (type_name, layer, head),
                      "%r %f" % (r and r.group(1), change))
    check(("and %d heads with B - A = 0 in every cell" % unchanged) in table,
          "the heads that did not change are counted", "%d\n%s" % (unchanged, table))
    status, _, err = run(minimt, ["show", plain_dump, other_dump])
    check(status != 0 and "sentence 1" in err and "decoder input token" in err and "'▁petit'" in err,
          "dumps of other tokens: refused, naming the sentence and the token", err)

    # --dump-layers -1 labels the layer by its number.
    status, _, err = run(minimt, ["score", "-m", model, "--dump-attention", other_dump,
                                  "--dump-layers", "-1", "--dump-types", "cross", sentence,
                                  "Le chat."])
    status, out, err = run(minimt, ["show", other_dump, "--color", "never"])
    check(status == 0 and "layer 2" in out.splitlines()[2] and "layer -1" not in out,
          "--dump-layers -1: labelled layer 2", out[:200] + err)

    # translate --show: the heatmap on stderr.
    status, out, err = run(minimt, ["translate", "-m", model, "--show", "cross:-1:avg", "-q",
                                    "--color", "never", sentence])
    check(status == 0 and out.strip() and "cross-attention" in err.lower() and "sentence 1" in err,
          "translate --show: the translation on stdout, the heatmap on stderr", out + err)
    status, _, err = run(minimt, ["translate", "-m", model, "--show", "cross:7", sentence])
    check(status != 0 and "layer 7" in err, "translate --show: a layer the model lacks", err)

    # The header: the model and compute type, and the dump's notes on what the scores include.
    noted = dict(plain, notes=["the relative position bias is part of the score"])
    noted_dump = os.path.join(scratch, "noted.json")
    with open(noted_dump, "w", encoding="utf-8") as f:
        json.dump(noted, f)
    status, out, err = run(minimt, ["show", noted_dump, "--color", "never"])
    head = out.splitlines()[:2]
    check(status == 0 and head[0].endswith("compute type float32") and
          head[1] == "note: the relative position bias is part of the score",
          "show's header: the compute type and the dump's notes", repr(head) + err)

    # Usage errors: a suggestion, the subcommand's help, why a dump cannot be read.
    status, _, err = run(minimt, ["transate", "x"])
    check(status == 2 and "Did you mean 'translate'?" in err, "a misspelled subcommand", err)
    status, _, err = run(minimt, ["show", plain_dump, "--type", "crosss"])
    check(status == 2 and "Run 'minimt show --help' for usage." in err,
          "a subcommand's usage error points to its own help", err)
    status, _, err = run(minimt, ["view", os.path.join(scratch, "nope.json")])
    check(status == 1 and "No such file or directory" in err, "view of a missing file says why", err)
    status, _, err = run(minimt, ["show", scratch])
    check(status == 1 and "is a directory" in err, "show of a directory says why", err)

    check_rendered(minimt, model, scratch)
    check_hostile_labels(minimt, model, plain_dump, scratch)
    check_negative_layers(minimt, model, scratch)
    check_values(minimt, model, scratch)

    shutil.rmtree(scratch)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
