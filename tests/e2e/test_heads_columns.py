#!/usr/bin/python3
"""minimt heads: every number it prints recomputed here from other commands' output, what it
says about bad input, and its usage errors (issue 26).

    test_heads_columns.py --minimt build/minimt

On the shipped model and held-out pairs:
  columns  every column of every head of `heads --translate --format jsonl`, computed here:
           entropy, max, same, previous, first, eos and agreement from the matrices of a
           `score --dump-attention` dump of the same pairs, leaving out rows with one key
           (decoder position 0, which the causal mask lets see only itself); delta_log_prob
           from the totals of `score --mask-heads HEAD` and plain `score`; delta_exact_match
           and the changed sentences (line, before, after) from `translate --mask-heads HEAD`
           and plain `translate`;
  text     the text table's rows hold the same numbers, its legend explains every column and
           the row left out, and its list of changed translations is the JSON's;
  input    a line over 64 KiB, a line that is not UTF-8, a reference longer than
           max_positions, a source alone too long to be scored with its translation: an error
           naming the line, the line left out, exit status 1; a source longer than
           max_positions: a warning naming the line, the pair kept; a line of exactly 64 KiB
           is read;
  usage    a misspelled `heads` gets a suggestion; a bad option of heads points to
           `minimt heads --help`, which explains every column.
Stdlib only. Ends with "N passed, N failed"; exit 1 on failure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from head_patterns import KEYS, pattern  # noqa: E402

MODEL = support.SHIPPED
# Held-out lines whose greedy translation changes when some head alone is masked (found with
# `heads --translate` on the first 200), and two that none changes.
LINES = [1, 2, 3, 89, 93, 115, 146, 165]
TALLY = support.Tally()
check = TALLY.check


def close(got, want):
    """The JSON's numbers are float32 of minimt's double statistics."""
    return got is not None and want is not None and abs(got - want) <= 2e-6 * max(1.0, abs(want))


class Runner:
    def __init__(self, minimt, folder):
        self.minimt, self.folder = minimt, folder

    def path(self, name):
        return os.path.join(self.folder, name)

    def run(self, *args, stdin=None):
        return support.run([self.minimt, args[0], "-m", MODEL, *args[1:]], input=stdin,
                           timeout=300)

    def ok(self, *args):
        status, out, err = self.run(*args)
        if status != 0:
            raise support.Mismatch("minimt %s: status %s, %s" % (" ".join(args), status,
                                                                 err.decode()[-400:]))
        return out.decode("utf-8")

    def jsonl(self, *args):
        return [json.loads(line) for line in self.ok(*args).splitlines()]


def name(record):
    return "%s:%d:%d" % (record["type"], record["layer"], record["head"])


def check_columns(r, pairs_file, pairs):
    heads = r.jsonl("heads", "-i", pairs_file, "--translate", "--format", "jsonl", "-q")
    records = [h for h in heads if "type" in h]
    check(len(records) == 36, "heads: 36 records, one per head", str(len(records)))
    base = r.jsonl("score", "-i", pairs_file, "--format", "jsonl",
                   "--dump-attention", r.path("plain.json"))
    with open(r.path("plain.json"), encoding="utf-8") as f:
        sentences = json.load(f)["sentences"]
    tokens = sum(len(b["token_log_probs"]) for b in base)
    base_total = sum(b["score"] for b in base)
    references = [reference for _, reference in pairs]
    sources_file = r.path("sources.txt")
    with open(sources_file, "w", encoding="utf-8") as f:
        f.write("".join(source + "\n" for source, _ in pairs))
    plain_texts = r.ok("translate", "-i", sources_file).splitlines()
    plain_exact = sum(t == ref for t, ref in zip(plain_texts, references))

    wrong, changed_heads, told = [], 0, 0
    for record in records:
        head = name(record)
        want = pattern(sentences, record["type"], record["layer"], record["head"])
        masked = r.jsonl("score", "-i", pairs_file, "--format", "jsonl", "--mask-heads", head)
        want["delta_log_prob"] = (sum(m["score"] for m in masked) - base_total) / tokens
        texts = r.ok("translate", "-i", sources_file, "--mask-heads", head).splitlines()
        want["delta_exact_match"] = (sum(t == ref for t, ref in zip(texts, references))
                                     - plain_exact) / len(pairs)
        for key, value in want.items():
            if not close(record.get(key), value):
                wrong.append("%s %s: heads %r, here %r" % (head, key, record.get(key), value))
        extra = set(record) - set(want) - {"type", "layer", "head", "changed"}
        if extra:
            wrong.append("%s: columns %s do not apply" % (head, sorted(extra)))
        changed = [{"line": i + 1, "before": before, "after": after}
                   for i, (before, after) in enumerate(zip(plain_texts, texts)) if before != after]
        if record.get("changed") != changed:
            wrong.append("%s changed: heads %r, here %r" % (head, record.get("changed"), changed))
        changed_heads += bool(changed)
        if record["type"] == "decoder":
            kept = pattern(sentences, "decoder", record["layer"], record["head"], one_key=True)
            told += not close(record["same"], kept["same"]) and not close(record["first"],
                                                                          kept["first"])
    check(not wrong, "every column of every head equals its computation here",
          "\n      ".join(wrong[:12]))
    check(told == 12, "with decoder position 0 kept, same and first would differ (12 heads)",
          str(told))
    check(changed_heads >= 2, "some heads change some translations (the check can tell)",
          str(changed_heads))
    return records


def check_text(r, pairs_file, records):
    status, out, err = r.run("heads", "-i", pairs_file, "--translate", "-q")
    text = out.decode("utf-8")
    check(status == 0, "heads text: status 0", err.decode())
    by_name = {name(h): h for h in records}
    rows = [line.split() for line in text.splitlines()
            if line.split()[:1] and line.split()[0] in KEYS and len(line.split()) == 12]
    check(len(rows) == 36, "heads text: 36 rows", str(len(rows)))
    columns = ["delta_log_prob", "delta_exact_match", "entropy", "max_weight", "same", "previous",
               "first", "eos", "alignment_agreement"]
    places = [4, 3, 2, 2, 2, 2, 2, 2, 2]
    mismatched = []
    for row in rows:
        record = by_name["%s:%s:%s" % tuple(row[:3])]
        for cell, column, digits in zip(row[3:], columns, places):
            value = record.get(column)
            if (cell == "-") != (value is None) or (
                    value is not None and abs(float(cell) - value) > 0.6 * 10 ** -digits):
                mismatched.append("%s %s: %s, jsonl %r" % (row[:3], column, cell, value))
    check(not mismatched, "heads text: the rows hold the JSON's numbers", str(mismatched[:5]))
    for term in ("d_logp/tok", "d_exact", "entropy", "max", "same", "prev", "first", "eos",
                 "agree"):
        check(any(line.strip().startswith(term + " ") for line in text.splitlines()),
              "heads text: the legend explains " + term, text[-2000:])
    check("decoder position 0" in text and "causal mask" in text,
          "heads text: the legend says which rows are left out")
    listed = []
    for record in records:
        for c in record.get("changed", []):
            listed.append("%s: %s \u2192 %s" % (c["line"], c["before"], c["after"]))
    shown = [line.strip()[len("line "):] for line in text.splitlines()
             if line.startswith("  line ")]
    check(listed and sorted(shown) == sorted(listed),
          "heads text: the changed translations are the JSON's (line: before \u2192 after)",
          "text %r\n      json %r" % (shown[:4], listed[:4]))


def check_input(r):
    """Each bad line named; the others analysed."""
    too_long_reference = "The cat.\t" + " ".join(["le chat"] * 100)  # > 128 pieces
    long_source = " ".join(["the cat"] * 100) + "\tLe chat."
    exactly = "I am a student.\tJe suis"
    exactly += " " * (65536 - len(exactly.encode()))  # 64 KiB to the byte, read
    alone = "the " * (65536 // 4)  # 64 KiB, no reference: with its translation, longer
    lines = [b"I am a student.\tJe suis \xc3\xa9tudiant.",    # 1 good
             b"\xff\xfe bad\tLe chat.",                        # 2 not UTF-8
             b"a " * 40000,                                    # 3 over 64 KiB
             too_long_reference.encode(),                      # 4 reference too long
             long_source.encode(),                             # 5 source cut: a warning
             exactly.encode(),                                 # 6 exactly 64 KiB
             alone.encode(),                                   # 7 too long with its translation
             b"The black cat sees the small dog."]             # 8 good, a source alone
    check(len(exactly.encode()) == 65536 and len(alone.encode()) == 65536, "the 64 KiB lines")
    path = r.path("bad.tsv")
    with open(path, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    status, out, err = r.run("heads", "-i", path, "--format", "jsonl", "--threads", "2")
    err = err.decode("utf-8", "replace")
    check(status == 1, "bad lines: status 1", "%s %s" % (status, err))
    for number, words in ((2, "invalid UTF-8"), (3, "longer than 65536 bytes (64 KiB)"),
                          (4, "max_positions"), (7, "longer than 65536 bytes")):
        check("minimt: error: line %d: " % number in err and words in err and "left out" in err,
              "bad lines: line %d named (%s)" % (number, words), err)
    check("minimt: warning: line 5: the source is longer than the model's max_positions" in err,
          "a source cut to max_positions: a warning naming line 5", err)
    named = sorted(int(part.split(":")[0]) for part in err.split("line ")[1:])
    check(named == [2, 3, 4, 5, 7], "only lines 2, 3, 4, 5 and 7 named", err)
    status, out, err = r.run("heads", "-i", path, "--format", "jsonl", "-q")
    records = [json.loads(line) for line in out.decode().splitlines()]
    check(len(records) == 36, "bad lines left out, the others analysed", str(len(records)))
    good = r.path("good.tsv")
    with open(good, "wb") as f:
        f.write(b"\n".join(lines[i - 1] for i in (1, 5, 6, 8)) + b"\n")
    _, same, _ = r.run("heads", "-i", good, "--format", "jsonl", "-q")
    check(same == out, "bad lines left out: the same numbers as without them")
    status, out, err = r.run("heads", "-i", good, "-q")
    check(out.decode().startswith("sentences 4,"), "the text counts the analysed pairs",
          out.decode()[:80])
    # Nothing left: an error, nothing on stdout.
    for stdin, words in ((b"\xff\n", "no sentence to analyse"),
                         (b"\xff\n" + lines[3] + b"\n", "no pair in the input")):
        status, out, err = r.run("heads", stdin=stdin)
        check(status == 1 and not out and "line 1: invalid UTF-8" in err.decode() and
              words in err.decode(), "nothing left to analyse: " + words, err.decode())


def check_usage(r):
    status, out, err = support.run([r.minimt, "hedas", "-i", "x"])
    check(status == 2 and b"Did you mean 'heads'?" in err, "a misspelled heads: a suggestion",
          err.decode())
    status, out, err = r.run("heads", "--format", "tsv")
    check(status == 2 and err.decode().endswith("Run 'minimt heads --help' for usage.\n"),
          "a bad heads option: heads' --help", err.decode())
    status, out, err = support.run([r.minimt, "heads", "--help"])
    help_text = out.decode()
    check(status == 0 and all(term in help_text for term in (
        "d_logp/tok", "d_exact", "entropy", "agree", "decoder position 0")),
        "heads --help explains every column", help_text[-1500:])


def main():
    minimt = support.minimt_path(__doc__)
    heldout = support.heldout_pairs()
    pairs = [heldout[i - 1] for i in LINES]
    with support.scratch("heads-columns") as folder:
        r = Runner(minimt, folder)
        pairs_file = r.path("pairs.tsv")
        with open(pairs_file, "w", encoding="utf-8") as f:
            f.write("".join("%s\t%s\n" % p for p in pairs))
        records = check_columns(r, pairs_file, pairs)
        check_text(r, pairs_file, records)
        check_input(r)
        check_usage(r)
    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
