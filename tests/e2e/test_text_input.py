#!/usr/bin/python3
"""Hostile input text on the shipped model (models/en-fr): text in, text out, whatever the bytes.

  test_text_input.py --minimt MINIMT_BINARY

White space other than ' ' (tab, NBSP, U+3000, ...) reads as a space, in the translation and in
--align's word indices; lines of only white space, control or invisible format characters give
""; control characters and bad bytes never make JSON Lines, dumps, pages or SVGs invalid; a 10 MB
line is cut before it is tokenized, quickly and in bounded memory. Ends with "N passed,
N failed"; exits 1 on any failure.
"""

import json
import os
import resource
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from support import SHIPPED, Tally, minimt_path, run, scratch  # noqa: E402

SENTENCE = "The black cat sees the small dog."
# Every Unicode White_Space character but '\n' (which ends a line) and ' '.
WHITE_SPACE = ["\t", "\v", "\f", "\r", "\u0085", "\u00a0", "\u1680"] + \
    [chr(c) for c in range(0x2000, 0x200b)] + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
CUT_WARNING = ("minimt: warning: line {} is longer than the model's max_positions (128 tokens) "
               "and was cut")


def strict_json(text):
    """json.loads that refuses NaN, Infinity and -Infinity."""
    def refuse(name):
        raise ValueError(f"bare {name} in JSON")
    return json.loads(text, parse_constant=refuse)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def jsonl_records(tally, out, what):
    records = []
    for line in out.decode("utf-8").split("\n")[:-1]:
        try:
            records.append(strict_json(line))
        except ValueError as e:
            tally.check(False, f"{what}: every JSON Lines record parses", f"{e}: {line[:200]!r}")
            return []
    return records


def check_white_space(tally, base, work):
    """Each white space character between two words: the same translation and alignment."""
    reference = SENTENCE.replace("cat sees", "cat  sees")  # two spaces: the tokenizer's business
    lines = [SENTENCE, reference] + [SENTENCE.replace(" sees", space + "sees")
                                     for space in WHITE_SPACE]
    lines += [SENTENCE.replace(" ", "\t"), "\t" + SENTENCE + "\t", "\u3000" + SENTENCE,
              "\ufeff" + SENTENCE, SENTENCE.replace("cat", "cat\x01\x7f\u0080")]
    path = write(os.path.join(work, "spaces.txt"), "\n".join(lines).encode() + b"\n")
    status, out, err = run(base + ["--align", "-i", path])
    rows = out.decode().split("\n")[:-1]
    tally.check(status == 0 and err == b"" and len(rows) == len(lines),
                "white space: exit 0, one line each, nothing on stderr", f"{status} {err!r}")
    expected = rows[0] if rows else ""
    tally.check(expected.startswith("Le chat noir voit le petit chien.\t"),
                "white space: the plain sentence translates", repr(expected))
    for line, row in zip(lines[1:], rows[1:]):
        tally.check(row == expected, f"white space: {line!r} reads as the plain sentence",
                    repr(row))
    # The alignment's source indices count the words split on the same white space.
    words = len(SENTENCE.split())
    links = [link.split("-") for link in expected.split("\t")[1].split()]
    tally.check(links and max(int(s) for s, _ in links) < words and
                ["3", "3"] in links, "white space: --align links 'sees' (word 3) to 'voit'",
                repr(expected))
    status, out, _ = run(base + ["--format", "jsonl", "-i", path])
    records = jsonl_records(tally, out, "white space")
    tally.check(len(records) == len(lines) and
                all(r["source"] == line for r, line in zip(records, lines)) and
                len({r["translation"] for r in records}) == 1,
                "white space, jsonl: the source as given, one same translation")


def check_blank_lines(tally, base, work):
    """Lines with nothing to translate give "" (text) and "translation": "" (jsonl)."""
    blanks = ["\u00a0", "\u3000\u3000", "\t \t", "\x01\x02\x1b\x7f", "\u0080\u009f", "\u0085",
              "\ufeff", "\u200b", "\u2028\u2029", "\u00a0\x00\u200d", "\u180e"]
    lines = [b.encode() for b in blanks]
    data = b"\n".join([SENTENCE.encode()] + lines + [SENTENCE.encode()]) + b"\n"
    path = write(os.path.join(work, "blank.txt"), data)
    status, out, err = run(base + ["-i", path])
    rows = out.decode().split("\n")[:-1]
    tally.check(status == 0 and err == b"" and len(rows) == len(lines) + 2,
                "blank lines: exit 0, one output line each", f"{status} {err!r} {len(rows)}")
    for blank, row in zip(blanks, rows[1:-1]):
        tally.check(row == "", f"blank line {blank!r}: translates to \"\"", repr(row))
    tally.check(rows and rows[0] == rows[-1] == "Le chat noir voit le petit chien.",
                "blank lines: the sentences around them still translate", repr(rows))
    status, out, err = run(base + ["--format", "jsonl", "-i", path])
    records = jsonl_records(tally, out, "blank lines")
    tally.check(status == 0 and len(records) == len(lines) + 2, "blank lines, jsonl: exit 0")
    for blank, record in zip(blanks, records[1:-1]):
        tally.check(record.get("translation") == "" and record.get("tokens") == ["</s>"] and
                    record.get("source") == blank.replace("\x00", "\u0000"),
                    f"blank line {blank!r}, jsonl: translation \"\", source as given",
                    repr(record))
    # A line that is not blank (U+FFFE is a character) still goes through the model.
    status, out, _ = run(base + ["--format", "jsonl", "\ufffe\uffff"])
    records = jsonl_records(tally, out, "noncharacters")
    tally.check(status == 0 and len(records) == 1 and records[0]["translation"] != "",
                "a line of noncharacters U+FFFE U+FFFF is translated (exit 0)", repr(out))


def check_invalid_utf8(tally, base, work):
    """Bytes that are not UTF-8: an error for that line only, status 1, valid JSON."""
    bad = [(b"\x80", 0), (b"ab\xc0\x80", 2), (b"a\xe0\x80\xaf", 1), (b"\xed\xa0\x80\xed\xb0\x80", 0),
           (b"the \xf4\x90\x80\x80", 4), (b"\xe2\x82", 0), (b"x\xff", 1), (b"\xf8\x88\x80\x80\x80", 0)]
    data = b"\n".join([SENTENCE.encode()] + [b for b, _ in bad] + [SENTENCE.encode()]) + b"\n"
    path = write(os.path.join(work, "bad.txt"), data)
    status, out, err = run(base + ["-i", path])
    expected = "".join(f"minimt: error: line {i + 2}: invalid UTF-8 at byte {at}\n"
                       for i, (_, at) in enumerate(bad))
    tally.check(status == 1 and err.decode() == expected,
                "invalid UTF-8: one error per line, naming the byte; exit 1",
                f"{status} {err.decode()!r}")
    rows = out.decode().split("\n")[:-1]
    tally.check(len(rows) == len(bad) + 2 and rows[0] == rows[-1] != "" and
                all(r == "" for r in rows[1:-1]),
                "invalid UTF-8: an empty line for each, the others translated", repr(rows))
    status, out, _ = run(base + ["--format", "jsonl", "-i", path])
    records = jsonl_records(tally, out, "invalid UTF-8")
    tally.check(status == 1 and len(records) == len(bad) + 2 and
                all(r.get("error", "").startswith("invalid UTF-8 at byte")
                    for r in records[1:-1]),
                "invalid UTF-8, jsonl: each bad line a record with its error", repr(records[:2]))


def check_huge_line(tally, base, work):
    """A 10 MB line: cut before tokenizing, quickly, in bounded memory; the others translated."""
    huge = b"a " * 5_000_000
    cases = [("ascii", b"the cat\n" + huge + b"\nthe dog is red\n"),
             ("multibyte", b"the cat\n" + "\u00e9\u3000".encode() * 2_000_000 +
              b"\nthe dog is red\n"),
             ("no newline", b"the cat\nthe dog is red\n" + huge)]
    singles = run(base + ["the cat", "the dog is red"])[1].decode().split("\n")
    for name, data in cases:
        path = write(os.path.join(work, f"huge-{name.replace(' ', '-')}.txt"), data)
        long_line = 3 if name == "no newline" else 2
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.monotonic()
        status, out, err = run(base + ["-i", path], timeout=30)
        elapsed = time.monotonic() - start
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        rows = out.decode().split("\n")[:-1]
        warning = CUT_WARNING.format(long_line) + "\n"
        if name == "multibyte":  # the English model has no piece for é: named once, not 2M times
            warning += (f"minimt: warning: line {long_line}: the model does not know '\u00e9' "
                        "(read as <unk>); see minimt vocab\n")
        tally.check(status == 0 and err.decode() == warning,
                    f"10 MB line ({name}): exit 0, the cut warning names line {long_line}",
                    f"{status} {err.decode()!r}")
        others = [r for i, r in enumerate(rows) if i != long_line - 1]
        tally.check(len(rows) == 3 and others == singles[:2],
                    f"10 MB line ({name}): the other lines translated as alone", repr(rows))
        tally.check(elapsed < 10, f"10 MB line ({name}): done in under 10 s", f"{elapsed:.1f} s")
        tally.check(rss_mb < 300, f"10 MB line ({name}): max RSS under 300 MB",
                    f"{rss_mb:.0f} MB (children so far; before: {before / 1024:.0f} MB)")
        print(f"10 MB line ({name}): {elapsed:.2f} s, children max RSS {rss_mb:.0f} MB")
    # From a pipe, and in JSON Lines: "truncated": true and a source of at most 64 KiB.
    status, out, err = run(base + ["--format", "jsonl"], input=cases[1][1], timeout=30)
    records = jsonl_records(tally, out, "10 MB line from stdin")
    tally.check(status == 0 and len(records) == 3 and records[1].get("truncated") is True and
                "truncated" not in records[0] and
                len(records[1]["source"].encode()) <= 65536 and
                records[1]["source"].startswith("\u00e9\u3000") and
                "\ufffd" not in records[1]["source"],
                "10 MB line from stdin, jsonl: truncated, source cut at a character boundary",
                f"{status} {err!r} {[len(r.get('source', '')) for r in records]}")


def check_outputs_stay_valid(tally, base, minimt, work):
    """Control characters in the input: the dump, page and SVGs are still valid."""
    texts = ["The black\x01 cat\x1b sees\x7f the\u0080 small\u009f dog.", "\ufffe \uffff",
             "the <cat> & \"dog\"\x00", "\u00a0"]
    data = "\n".join(texts).encode() + b"\n"
    path = write(os.path.join(work, "controls.txt"), data)
    dump = os.path.join(work, "controls.json")
    page = os.path.join(work, "controls-live.html")
    status, out, err = run(base + ["--format", "jsonl", "-i", path, "--dump-attention", dump,
                                   "--view", page, "-q"])
    tally.check(status == 0, "controls: translate exits 0", f"{status} {err!r}")
    records = jsonl_records(tally, out, "controls")
    tally.check([r.get("source") for r in records] == texts,
                "controls, jsonl: each source given back exactly", repr(records))
    with open(dump, encoding="utf-8") as f:
        try:
            document = strict_json(f.read())
            ok = [s["source"] for s in document["sentences"]] == texts
        except ValueError as e:
            ok = False
    tally.check(ok, "controls: the dump parses as strict JSON, sources kept")
    check_views(tally, minimt, dump, work, "translated")

    # A dump made by hand, with every C0 control, DEL, C1 controls and noncharacters in its
    # tokens, source and translation.
    weird = [chr(c) for c in range(0x20)] + ["\x7f", "\u0080", "\u0085", "\u009f", "\ufffe",
                                             "\uffff", "\ufdd0", "\U0001ffff", "<&>"]
    tokens = ["\u2581a" + w for w in weird]
    n = len(tokens)
    matrix = [[[[1.0 / n] * n for _ in range(n)]]]
    # The decoder's rows end at the diagonal, as the causal mask leaves them (view checks).
    causal = [[[[1.0 / (i + 1)] * (i + 1) + [0.0] * (n - i - 1) for i in range(n)]]]
    sentence = {"source": "".join(weird), "translation": "x\x01y\x1bz\u0085",
                "source_tokens": tokens, "decoder_input_tokens": tokens, "output_tokens": tokens,
                "encoder_self_attention": matrix, "decoder_self_attention": causal,
                "cross_attention": matrix}
    handmade = {"format": "minimt-attention", "version": 1, "model": "hand\x02made",
                "selection": {"types": ["encoder", "decoder", "cross"], "layers": None,
                              "heads": [0]},
                "sentences": [sentence]}
    made = write(os.path.join(work, "handmade.json"), json.dumps(handmade).encode())
    check_views(tally, minimt, made, work, "handmade")


# Characters HTML (a parse error) and XML 1.0 (not well-formed) do not want raw in a document.
def forbidden(text):
    return [c for c in text if (ord(c) < 0x20 and c not in "\t\n\r") or 0x7f <= ord(c) <= 0x9f
            or 0xfdd0 <= ord(c) <= 0xfdef or (ord(c) & 0xfffe) == 0xfffe]


def check_views(tally, minimt, dump, work, name):
    prefix = os.path.join(work, name)
    page = prefix + ".html"
    status, _, err = run([minimt, "view", dump, "-o", page, "--svg", prefix])
    tally.check(status == 0, f"{name}: minimt view --svg exits 0", f"{status} {err!r}")
    for kind in ("encoder", "decoder", "cross"):
        svg = f"{prefix}-1-{kind}.svg" if name == "translated" else f"{prefix}-{kind}.svg"
        try:
            ET.parse(svg)
            ok, detail = True, ""
        except (ET.ParseError, OSError) as e:
            ok, detail = False, str(e)
        tally.check(ok, f"{name}: {os.path.basename(svg)} is well-formed XML", detail)
    with open(page, encoding="utf-8") as f:
        html = f.read()
    bad = forbidden(html)
    tally.check(not bad, f"{name}: the page holds no control characters or noncharacters",
                repr(bad[:10]))
    start = html.find('<script type="application/json" id="minimt-data">')
    start = html.find(">", start) + 1
    try:
        data = strict_json(html[start:html.find("</script>", start)])
        ok = len(data["sentences"]) >= 1
    except ValueError as e:
        ok = False
    tally.check(ok, f"{name}: the page's data parses as strict JSON")


def main():
    minimt, model = minimt_path(__doc__), SHIPPED
    tally = Tally()
    if not tally.check(os.path.isfile(os.path.join(model, "config.json")),
                       "the shipped model models/en-fr is there", model):
        tally.exit()
    base = [minimt, "translate", "--model", model, "--threads", "2"]
    with scratch("text-input") as work:
        check_white_space(tally, base, work)
        check_blank_lines(tally, base, work)
        check_invalid_utf8(tally, base, work)
        check_outputs_stay_valid(tally, base, minimt, work)
        check_huge_line(tally, base, work)
    tally.exit()


if __name__ == "__main__":
    main()
