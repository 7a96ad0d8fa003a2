#!/usr/bin/python3
"""Draws the pruning curve of `minimt heads --prune-order --format jsonl` as an SVG file.

  minimt heads -i pairs.tsv --translate --prune-order --format jsonl > heads.jsonl
  tools/analysis/prune_curve.py heads.jsonl prune.svg

x: heads removed (least important first); left axis and solid line: log-probability per
reference token; right axis and dashed line: exact match of the greedy output (when measured).
Plain SVG written by hand: no plotting library needed.
"""

import json
import sys
from xml.sax.saxutils import escape

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 360, 70, 70, 30, 50


def read_points(path):
    points = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if "prune" in record:
                points.append(record)
    if not points:
        sys.exit("prune_curve.py: %s has no pruning records (run heads --prune-order)" % path)
    return sorted(points, key=lambda p: p["prune"])


def scale(value, low, high, out_low, out_high):
    return out_low + (value - low) / (high - low or 1) * (out_high - out_low)


def polyline(points, key, low, high, style):
    last = points[-1]["prune"] or 1
    coords = " ".join("%.1f,%.1f" % (scale(p["prune"], 0, last, LEFT, WIDTH - RIGHT),
                                     scale(p[key], low, high, HEIGHT - BOTTOM, TOP))
                      for p in points if p.get(key) is not None)
    return '<polyline fill="none" points="%s" %s/>' % (coords, style)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    points = read_points(sys.argv[1])
    logp = [p["log_prob_per_token"] for p in points]
    low, high = min(logp), max(max(logp), 0.0)
    has_exact = any(p.get("exact_match") is not None for p in points)
    last = points[-1]["prune"]
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="12">' % (WIDTH, HEIGHT),
             '<rect width="100%" height="100%" fill="white"/>',
             '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
             % (LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM),
             '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
             % (LEFT, TOP, LEFT, HEIGHT - BOTTOM)]
    for k in range(5):
        value = low + (high - low) * k / 4
        y = scale(value, low, high, HEIGHT - BOTTOM, TOP)
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>' % (LEFT - 6, y + 4, value))
        x_value = round(last * k / 4)
        x = scale(x_value, 0, last or 1, LEFT, WIDTH - RIGHT)
        parts.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>'
                     % (x, HEIGHT - BOTTOM + 16, x_value))
    parts.append(polyline(points, "log_prob_per_token", low, high,
                          'stroke="#1f5fa8" stroke-width="2"'))
    parts.append('<text x="%d" y="%d" text-anchor="middle">heads removed, least important '
                 'first</text>' % ((LEFT + WIDTH - RIGHT) // 2, HEIGHT - 12))
    parts.append('<text x="%d" y="%d" fill="#1f5fa8">log-probability per reference token</text>'
                 % (LEFT, TOP - 10))
    if has_exact:
        parts.append(polyline(points, "exact_match", 0.0, 1.0,
                              'stroke="#c0392b" stroke-width="2" stroke-dasharray="6,4"'))
        for k in range(5):
            y = scale(k / 4, 0, 1, HEIGHT - BOTTOM, TOP)
            parts.append('<text x="%d" y="%.1f">%.2f</text>' % (WIDTH - RIGHT + 6, y + 4, k / 4))
        parts.append('<text x="%d" y="%d" text-anchor="end" fill="#c0392b">exact match '
                     '(dashed)</text>' % (WIDTH - RIGHT, TOP - 10))
    parts.append("<title>%s</title>" % escape("minimt heads --prune-order"))
    parts.append("</svg>")
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write("\n".join(parts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
