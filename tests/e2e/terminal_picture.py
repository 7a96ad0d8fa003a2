"""The terminal heatmap (minimt show, translate --show and score --show) read back from what
minimt printed, and each cell as the documented rules say it must be drawn, worked out here
from a dump's numbers without minimt's help.

The rules, from the source: src/app/views/terminal_cells.cpp (the ASCII ramp, the shades, xterm's
256 colours, the mask's hatching), src/app/views/colour_scales.cpp with src/app/views/page/colour_scales.json
(the sequential scale), src/app/views/view_text.cpp (labels: control characters as their Control
Pictures), src/app/views/heatmap_choice.cpp and src/app/views/terminal_grid.cpp (the layout: title, source,
translation, axes, the column labels written downwards, one line per row, the legend).
"""

import json
import math
import os
import re
import struct
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SGR = re.compile(r"\x1b\[([0-9;]*)m")
RAMP = " .:-=+*#%@"
SHADES = [" ", "\u2591", "\u2592", "\u2593", "\u2588"]
HATCH = "\u2571\u2571"
CUBE = [0, 95, 135, 175, 215, 255]
MODES = ("plain", "shading", "256", "truecolor")


def run(minimt, args, env=None):
    """minimt ARGS with this process's environment less what chooses colours and widths
    (NO_COLOR, COLORTERM, COLUMNS), plus `env`: (status, stdout, stderr) as text."""
    environment = dict(os.environ)
    for name in ("NO_COLOR", "COLORTERM", "COLUMNS"):
        environment.pop(name, None)
    environment.update(env or {})
    result = subprocess.run([minimt, *args], capture_output=True, timeout=300, env=environment)
    return result.returncode, result.stdout.decode(), result.stderr.decode()


def scales():
    with open(os.path.join(ROOT, "src", "app", "views", "page", "colour_scales.json"), encoding="utf-8") as f:
        return json.load(f)


def c_round(x):
    """C's lround: half away from zero (Python's round() goes to even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def sequential(weight, stops):
    last = len(stops) - 1
    x = min(1.0, max(0.0, weight)) * last
    i = min(last - 1, int(x))
    t = x - i
    return tuple(c_round(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * t) for k in range(3))


def xterm_256(rgb):
    index = [min(range(6), key=lambda i: (abs(CUBE[i] - v), i)) for v in rgb]
    best = 16 + 36 * index[0] + 6 * index[1] + index[2]
    distance = sum((CUBE[i] - v) ** 2 for i, v in zip(index, rgb))
    for step in range(24):
        value = 8 + 10 * step
        d = sum((value - v) ** 2 for v in rgb)
        if d < distance:
            best, distance = 232 + step, d
    return best


def level(x, levels):
    return 0 if not x > 0 else c_round(min(1.0, x) * (levels - 1))


def hex_rgb(text):
    return tuple(int(text[1 + 2 * k:3 + 2 * k], 16) for k in range(3))


def expected_cell(weight, mode, masked):
    """(SGR parameters or None, the cell's two columns of text) as minimt must draw it."""
    if mode == "plain":
        return None, "//" if masked else RAMP[level(weight, 10)] * 2
    if mode == "shading":
        return None, HATCH if masked else SHADES[level(weight, 5)] * 2
    definition = scales()
    if masked:
        fill, stroke = hex_rgb(definition["mask"]["fill"]), hex_rgb(definition["mask"]["stroke"])
        if mode == "truecolor":
            return "48;2;%d;%d;%d;38;2;%d;%d;%d" % (fill + stroke), HATCH
        return "48;5;%d;38;5;%d" % (xterm_256(fill), xterm_256(stroke)), HATCH
    rgb = sequential(weight, definition["sequential"]["stops"])
    if mode == "truecolor":
        return "48;2;%d;%d;%d" % rgb, "  "
    return "48;5;%d" % xterm_256(rgb), "  "


def diverging(value, scale, definition):
    """The colour of a signed value on the diverging scale up to `scale` (white for 0)."""
    if not scale > 0:
        return (255, 255, 255)
    stops = definition["diverging"]["below" if value < 0 else "above"]
    return sequential(abs(value) / scale, stops)


def expected_signed_cell(value, scale, mode, masked):
    """A signed value's cell (the scores): colour on the diverging scale; in plain and shading
    modes its sign and a digit from 1 to 9, blank when it rounds to 0."""
    if masked:
        return expected_cell(0, mode, True)
    if mode in ("plain", "shading"):
        digit = level(f32(f32(abs(value)) / f32(scale)), 10) if scale > 0 else 0
        return None, "  " if digit == 0 else ("-" if value < 0 else "+") + str(digit)
    rgb = diverging(value, scale, scales())
    if mode == "truecolor":
        return "48;2;%d;%d;%d" % rgb, "  "
    return "48;5;%d" % xterm_256(rgb), "  "


def terminal_escape(text):
    """A label as minimt must show it: C0 controls and DEL as their Control Pictures, C1
    controls and noncharacters as U+FFFD."""
    out = []
    for c in text:
        o = ord(c)
        if o < 0x20:
            out.append(chr(0x2400 + o))
        elif o == 0x7F:
            out.append("\u2421")
        elif 0x80 <= o <= 0x9F or 0xFDD0 <= o <= 0xFDEF or (o & 0xFFFE) == 0xFFFE:
            out.append("\ufffd")
        else:
            out.append(c)
    return "".join(out)


def fit(label, width):
    return label if len(label) <= width else label[:width - 1] + "\u2026"


def average(heads):
    """The mean over heads [H][R][C] as minimt computes it in float: each weight divided by the
    number of heads, added in order."""
    rows, cols = len(heads[0]), len(heads[0][0])
    out = [[0.0] * cols for _ in range(rows)]
    for h in heads:
        for i in range(rows):
            for j in range(cols):
                out[i][j] = f32(out[i][j] + f32(f32(h[i][j]) / len(heads)))
    return out


class Picture:
    """One drawn heatmap (one block of columns: draw it wide enough), read back: `heading`
    lines, `columns` (the column labels read downwards), `rows` (label, cells, right label),
    `legend`. A cell is (SGR parameters or None, its text)."""

    def __init__(self, text, row_labels, column_count, heading_lines=4):
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        self.lines = lines
        self.left = min(16, max(len(l) for l in row_labels))
        # The heading is four lines (title, source, translation, axes) at a width that fits, and
        # the lines some pictures add after them.
        self.heading = lines[:heading_lines]
        rest = lines[heading_lines:]
        self.legend = rest[-1] if rest else ""
        row_lines = rest[len(rest) - 1 - len(row_labels):-1] if len(rest) > len(row_labels) else []
        self.column_lines = rest[:len(rest) - 1 - len(row_labels)]
        self.rows = [self._row(line, column_count) for line in row_lines]
        self.columns = self._columns(column_count)

    def _row(self, line, count):
        label, body = line[:self.left], line[self.left + 1:]
        cells = []
        if "\x1b" in body:
            parts = SGR.split(body)  # text, code, text, code, ...
            if parts[0]:
                return label.strip(), None, body
            pairs = [(parts[k], parts[k + 1]) for k in range(1, len(parts), 2)]
            right = ""
            for code, text in pairs:
                if code == "0":
                    right += text
                else:
                    cells.append((code, text))
            return label.strip(), cells, right.strip()
        body = body.ljust(2 * count)  # a line ends at its last mark: blank cells are cut
        for j in range(count):
            cells.append((None, body[2 * j:2 * j + 2]))
        return label.strip(), cells, body[2 * count:].strip()

    def _columns(self, count):
        labels = []
        for j in range(count):
            at = self.left + 1 + 2 * j
            chars = [line[at] if len(line) > at else " " for line in self.column_lines]
            labels.append("".join(chars).rstrip())
        return labels
