#!/usr/bin/python3
"""What a student asks next, on the shipped model: per-token confidence, alternatives, unknown
words and outputs cut short, in JSON Lines and on stderr.

  test_student_fields.py --minimt MINIMT_BINARY

Checks, against numbers minimt did not produce itself where there are any:
  - token_log_probs: one per output token with eos, summing to score; with --alternatives K,
    K entries per position, most likely first, probabilities in [0, 1] summing to at most 1,
    and for greedy output the first alternative is the token chosen, with probability
    exp(its log-probability);
  - an all-caps sentence: "unknown" lists the distinct words, as typed, that hold a piece read as
    <unk> (SentencePiece, read here in Python, says which pieces are unknown and where), and
    the warning names them with the line;
  - --max-length 3: "cut_short": true, three tokens and no eos, and a warning naming the line;
  - text n-best with a length penalty prints the ranking score, which orders the ranks;
  - --alternatives with text output (where they cannot appear) is refused, exit 2;
    a sentence that ends normally has neither.
Ends with "N passed, N failed"; exits 1 on any failure.
"""

import json
import math
import os
import sys

import sentencepiece as spm

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

TALLY = support.Tally()
check = TALLY.check


def run(minimt, *args):
    """(status, JSON Lines records, stderr) of minimt translate ARGS."""
    status, out, err = support.run([minimt, "translate", *args])
    return status, [json.loads(line) for line in out.decode().splitlines()], err.decode()


def main():
    minimt, model = support.minimt_path(__doc__), support.SHIPPED
    status, records, err = run(minimt, "-m", model, "--format", "jsonl", "--alternatives", "3",
                               "He is not happy.", "The black cat sees the small dog.")
    check(status == 0 and len(records) == 2 and err == "", "two sentences: exit 0, quiet", err)
    for r in records:
        probs = r["token_log_probs"]
        check(len(probs) == len(r["tokens"]) and r["tokens"][-1] == "</s>",
              "one log-probability per token, eos included (the one rule)", repr(r["tokens"]))
        check(abs(sum(probs) - r["score"]) < 1e-4, "token_log_probs sum to score")
        check(len(r["alternatives"]) == len(probs), "alternatives at every output position")
        for position, (alternatives, log_prob) in enumerate(zip(r["alternatives"], probs)):
            p = [a["probability"] for a in alternatives]
            check(len(p) == 3 and p == sorted(p, reverse=True) and 0 <= p[-1] and sum(p) <= 1 + 1e-5,
                  "3 alternatives, most likely first, a distribution's part", repr(alternatives))
            chosen = r["tokens"][position]
            check(alternatives[0]["token"] == chosen and
                  abs(alternatives[0]["probability"] - math.exp(log_prob)) < 1e-4,
                  "greedy: the first alternative is the token chosen, with its probability",
                  "%r %r %f" % (alternatives[0], chosen, math.exp(log_prob)))
        check("cut_short" not in r and "unknown" not in r, "an ordinary sentence: no flags")
    # "heureux" against "heureuse": the model hesitates, and says so.
    happy = records[0]["alternatives"][5]
    check(happy[0]["token"] == "▁heureux" and happy[1]["token"] == "▁heureuse" and
          happy[1]["probability"] > 0.1, "He is not happy: heureux and heureuse both likely",
          repr(happy))

    source = spm.SentencePieceProcessor(model_file=os.path.join(model, "source.spm"))
    text = "MY CAT SEES THE DOG."
    unknown = []  # the words as typed that hold a piece SentencePiece reads as <unk>
    for piece in source.encode(text, out_type="immutable_proto").pieces:
        if source.is_unknown(piece.id):
            start, stop = text.rfind(" ", 0, piece.begin) + 1, text.find(" ", piece.begin)
            word = text[start:stop if stop >= 0 else len(text)]
            if word not in unknown:
                unknown.append(word)
    status, records, err = run(minimt, "-m", model, "--format", "jsonl", "the cat", text)
    check(unknown and records[1].get("unknown") == unknown,
          "unknown: the words with a part SentencePiece reads as <unk>, as typed",
          "%r %r" % (records[1], unknown))
    named = ", ".join("'%s'" % w for w in unknown)
    check("minimt: warning: line 2: the model does not know %s (read as <unk>)" % named in err and
          "line 1" not in err, "the unknown-word warning names line 2 and the words", err)

    status, records, err = run(minimt, "-m", model, "--format", "jsonl", "--max-length", "3",
                               "The black cat sees the small dog.")
    r = records[0]
    check(status == 0 and r.get("cut_short") is True and len(r["tokens"]) == 3 and
          len(r["token_log_probs"]) == 3 and r["translation"] == "Le chat noir",
          "--max-length 3: cut short, three tokens, no eos", repr(r))
    check("warning: line 1: the translation stopped at 3 tokens (--max-length 3" in err,
          "--max-length 3: a warning naming the line", err)
    status, _, err = run(minimt, "-m", model, "-q", "--format", "jsonl", "--max-length", "3",
                         "The black cat.")
    check(status == 0 and err == "", "-q: no warning")
    # Text n-best with a length penalty: SCORE is the number that ranks, the log-probability
    # over the length (tokens and eos) to the penalty, computed here from the JSON Lines record.
    options = ["-m", model, "--beam-size", "4", "--n-best", "3", "--length-penalty", "1.0",
               "The cat sees the dog."]
    status, records, _ = run(minimt, "--format", "jsonl", *options)
    _, text_out, _ = support.run([minimt, "translate", *options])
    rows = [line.split("\t") for line in text_out.decode().splitlines()]
    want = [e["score"] / len(e["tokens"]) for e in records[0]["n_best"]]
    got = [float(row[2]) for row in rows]
    check(status == 0 and len(got) == 3 and all(abs(g - w) < 1e-5 for g, w in zip(got, want)) and
          got == sorted(got, reverse=True),
          "text n-best with --length-penalty: SCORE is the ranking score, best first",
          "%r %r" % (got, want))
    # Text output has one translation per line: --alternatives would vanish, so it is refused.
    status, out, err = support.run([minimt, "translate", "-m", model, "--alternatives", "3",
                                    "The cat."])
    check(status == 2 and out == b"" and
          b"--alternatives lists tokens in JSON Lines output only" in err,
          "--alternatives with text output: refused, not ignored", repr(err))
    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
