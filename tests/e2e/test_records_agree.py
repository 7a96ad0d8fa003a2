#!/usr/bin/python3
"""translate and score tell one story about numbers and warnings, on the shipped model.

  test_records_agree.py --minimt MINIMT_BINARY

Checks (docs/scripting.md, "Tokens, log-probabilities and scores"):
  - one eos rule: in every JSON Lines record of translate (greedy, beam with n-best, sampling,
    a prefix, an output cut short) and of score, "tokens" and "token_log_probs" have the same
    length, a finished output's last token is "</s>" and a cut one has none, and "score" is
    the float32 sum of "token_log_probs" in order (summed here, rounding to float32 at each
    addition as the C++ does); the attention dump's output tokens are the record's tokens;
  - the text formats print the same numbers with the same digits: score's text line is its
    JSON score, text n-best's SCORE column (no length penalty) the JSON n-best score;
  - translate and score agree: for several sentences, translate's score string is exactly score's
    of (source, translate's output), token by token; translate "" and score "" "" report the
    same record (what the model gives the empty output: "</s>" and its log-probability);
  - --align when every head it averages is masked: no links, and a warning that says why;
    with one head left, links again;
  - unknown words: score warns about the target's as translate does about the source's, and
    both name the words as typed ("café"), not SentencePiece's unknown pieces ("é", computed
    here with SentencePiece in Python).
Ends with "N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import re
import struct
import sys

import sentencepiece as spm

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

TALLY = support.Tally()
check = TALLY.check
SENTENCES = ["The black cat sees the small dog.", "I am a student.", "He is not happy.",
             "The small girl reads a red book.", "We eat bread."]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def float32_sum(values):
    """Sums in order in float32, as std::accumulate over floats does."""
    total = f32(0.0)
    for v in values:
        total = f32(total + f32(v))
    return total


def minimt(binary, *args, input_text=None):
    status, out, err = support.run([binary, *[str(a) for a in args]], input=input_text,
                                   text=True)
    return status, out, err


def records(out):
    return [json.loads(line) for line in out.splitlines()]


def raw_scores(out):
    """The "score" numbers as written (text, not parsed): top-level and n-best ones."""
    return re.findall(r'"score":(-?[0-9][0-9.e+-]*)', out)


def check_rule(label, record, finished_expected=None):
    tokens, logps = record.get("tokens"), record.get("token_log_probs")
    ok = isinstance(tokens, list) and isinstance(logps, list) and len(tokens) == len(logps)
    check(ok, f"{label}: tokens and token_log_probs have the same length",
          f"{tokens} {logps}")
    if not ok:
        return
    cut = record.get("cut_short", False)
    check(tokens and (tokens[-1] == "</s>") != cut and tokens.count("</s>") == (0 if cut else 1),
          f"{label}: eos is the last token exactly when the output finished (cut_short {cut})",
          repr(tokens))
    if finished_expected is not None:
        check(cut == (not finished_expected), f"{label}: cut_short is {not finished_expected}")
    check(f32(record["score"]) == float32_sum(logps),
          f"{label}: score is the float32 sum of token_log_probs",
          f"{record['score']!r} vs {float32_sum(logps)!r}")


def check_eos_rule(binary, model, work):
    translate = [binary, "translate", "-m", model, "--format", "jsonl", "-q"]
    cases = [("greedy", []), ("beam 4, n-best 3", ["--beam-size", 4, "--n-best", 3]),
             ("sampling", ["--sample", "--seed", 3]),
             ("prefix", ["--prefix", "Le chien"])]
    for label, extra in cases:
        status, out, err = minimt(*translate, *extra, *SENTENCES)
        got = records(out)
        check(status == 0 and len(got) == len(SENTENCES), f"translate {label}: exit 0", err)
        for r in got:
            check_rule(f"translate {label} line {r['line']}", r, True)
            for rank, entry in enumerate(r.get("n_best", [])):
                check_rule(f"translate {label} line {r['line']} n-best {rank + 1}", entry)
    status, out, err = minimt(*translate, "--max-length", 3, SENTENCES[0])
    check_rule("translate --max-length 3 (cut short)", records(out)[0], False)
    check(len(records(out)[0]["tokens"]) == 3, "--max-length 3: three tokens, none of them eos")
    status, out, err = minimt(*translate, "--max-length", 0, "", SENTENCES[0])
    blank, other = records(out)
    check(blank["tokens"] == other["tokens"] == [] and blank["cut_short"] is other["cut_short"]
          is True and blank["score"] == 0, "--max-length 0: a blank line is cut as any other",
          out)

    # The dump lists the same tokens as the record, for translate and score.
    dump = os.path.join(work, "dump.json")
    status, out, err = minimt(*translate, "--dump-attention", dump, *SENTENCES)
    with open(dump, encoding="utf-8") as f:
        sentences = json.load(f)["sentences"]
    check(status == 0 and [s["output_tokens"] for s in sentences] ==
          [r["tokens"] for r in records(out)],
          "translate: the dump's output_tokens are the records' tokens")
    translations = [r["translation"] for r in records(out)]
    pairs = [a for s, t in zip(SENTENCES, translations) for a in (s, t)]
    status, out, err = minimt(binary, "score", "-m", model, "--format", "jsonl", "-q",
                              "--dump-attention", dump, *pairs)
    with open(dump, encoding="utf-8") as f:
        sentences = json.load(f)["sentences"]
    check(status == 0 and [s["output_tokens"] for s in sentences] ==
          [r["tokens"] for r in records(out)],
          "score: the dump's output_tokens are the records' tokens")
    for r in records(out):
        check_rule(f"score line {r['line']}", r, True)


def check_same_digits(binary, model):
    translate = [binary, "translate", "-m", model, "-q"]
    status, out, _ = minimt(*translate, "--format", "jsonl", *SENTENCES, "")
    translated = records(out)
    translate_scores = raw_scores(out)
    pairs = [a for s, r in zip(SENTENCES + [""], translated) for a in (s, r["translation"])]
    status, scored_out, err = minimt(binary, "score", "-m", model, "--format", "jsonl", "-q",
                                     *pairs)
    scored = records(scored_out)
    check(status == 0 and len(scored) == len(translated), "score of translate's outputs: exit 0",
          err)
    for t, s, t_raw, s_raw in zip(translated, scored, translate_scores, raw_scores(scored_out)):
        label = repr(t["source"])
        check(t_raw == s_raw, f"{label}: translate's score {t_raw} is score's {s_raw}, digit "
              "for digit")
        check(t["tokens"] == s["tokens"] and t["token_log_probs"] == s["token_log_probs"],
              f"{label}: the same tokens and log-probabilities",
              f"{t['tokens']} {t['token_log_probs']}\n      {s['tokens']} {s['token_log_probs']}")
    empty = translated[-1]
    check(empty["translation"] == "" and empty["tokens"] == ["</s>"] and empty["score"] < 0,
          "translate \"\": the empty translation, scored by the model (eos has a probability "
          "below 1)", repr(empty))
    # Text formats print the number JSON Lines prints.
    status, text, _ = minimt(binary, "score", "-m", model, "-q", *pairs)
    check(text.splitlines() == raw_scores(scored_out),
          "score text: each line is the JSON score, digit for digit", text)
    options = ["--beam-size", 4, "--n-best", 3, SENTENCES[2]]
    _, text, _ = minimt(*translate, *options)
    _, jsonl, _ = minimt(*translate, "--format", "jsonl", *options)
    check([row.split("\t")[2] for row in text.splitlines()] == raw_scores(jsonl)[1:],
          "text n-best: the SCORE column is the JSON n-best scores, digit for digit",
          f"{text!r} {raw_scores(jsonl)}")


def check_masked_alignment(binary, model):
    align = [binary, "translate", "-m", model, "--align", "--format", "jsonl", SENTENCES[0]]
    status, out, err = minimt(*align, "--mask-heads", "cross:-1:*")
    record = records(out)[0] if status == 0 else {}
    check(status == 0 and record.get("alignment") == "",
          "--align with every cross head of its layer masked: no links", repr(record))
    check("every head it averages" in err and "ablated" in err,
          "--align with every head masked: a warning says why", err)
    status, out, err = minimt(*align, "--align-heads", "0,1", "--mask-heads", "cross:-1:0,cross:-1:1")
    check(status == 0 and records(out)[0].get("alignment") == "" and "heads 0,1" in err,
          "--align-heads 0,1, both masked: no links, the warning names the heads", err)
    status, out, err = minimt(*align, "--mask-heads", "cross:-1:0,cross:-1:1,cross:-1:2")
    check(status == 0 and records(out)[0].get("alignment") and err == "",
          "--align with one head of four left: links, no warning", f"{out} {err}")


def unknown_words_typed(processor, text):
    """The words of text (split on spaces) holding a piece SentencePiece reads as unknown."""
    words = []
    for piece in processor.encode(text, out_type="immutable_proto").pieces:
        if processor.is_unknown(piece.id):
            start = text.rfind(" ", 0, piece.begin) + 1
            stop = text.find(" ", piece.begin)
            word = text[start:stop if stop >= 0 else len(text)]
            if word not in words:
                words.append(word)
    return words


def check_unknown(binary, model):
    source = spm.SentencePieceProcessor(model_file=os.path.join(model, "source.spm"))
    target = spm.SentencePieceProcessor(model_file=os.path.join(model, "target.spm"))
    english, french = "the café is red", "le ÇA est rouge"
    pieces = [p.surface for p in source.encode(english, out_type="immutable_proto").pieces
              if source.is_unknown(p.id)]
    want_source = unknown_words_typed(source, english)
    want_target = unknown_words_typed(target, french)
    check(want_source == ["café"] and "café" not in pieces and want_target,
          "SentencePiece: 'café' holds an unknown piece that is not the word",
          f"{want_source} {pieces} {want_target}")
    status, out, err = minimt(binary, "translate", "-m", model, "--format", "jsonl", english)
    check(records(out)[0].get("unknown") == want_source and
          "line 1: the model does not know 'café' (read as <unk>)" in err,
          "translate: the unknown word is named as typed, in jsonl and the warning", err)
    status, out, err = minimt(binary, "score", "-m", model, "--format", "jsonl", english, french)
    record = records(out)[0]
    named = ", ".join("'%s'" % w for w in want_target)
    check(status == 0 and record.get("target_unknown") == want_target and
          record.get("unknown") == want_source,
          "score: target_unknown lists the target's unknown words, unknown the source's",
          repr(record))
    check(f"line 1: the model does not know {named} in the target (read as <unk>)" in err and
          "line 1: the model does not know 'café' in the source (read as <unk>)" in err,
          "score: warnings name the target's unknown words and the source's, as typed", err)
    status, _, err = minimt(binary, "score", "-m", model, english, "le café est rouge")
    check("line 1: the model does not know 'café' in the source (read as <unk>)" in err and
          "in the target" not in err, "score, a known target: the warning names the source", err)
    status, _, err = minimt(binary, "score", "-m", model, "-q", english, french)
    check(status == 0 and err == "", "score -q: no warning")


def main():
    binary = support.minimt_path(__doc__)
    model = support.SHIPPED
    with support.scratch("records-agree") as work:
        check_eos_rule(binary, model, work)
    check_same_digits(binary, model)
    check_masked_alignment(binary, model)
    check_unknown(binary, model)
    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
