#!/usr/bin/python3
"""minimt view's checks of the dump's extras (issue 25): a good dump draws; each broken copy
is refused (exit 1) with the key and the index named, and no page is written.

    test_inside_view_checks.py --minimt build/minimt

The dump comes from the shipped model (models/en-fr) with --dump-scores --dump-vectors
--dump-norms --logit-lens 3; each case breaks one promise of docs/model-format.md: a shape that
disagrees with the token lists or the selection, a score that is not null above the diagonal
of decoder self-scores or null elsewhere, a number that is not finite, a negative norm, a
probability outside [0, 1]; and the weights themselves (-0.5, 2, 1e308, a weight above the
causal diagonal, a row that does not sum to 1, while a switched-off head's rows of 0 draw).
Stdlib only. Ends with "N passed, N failed"; exit 1 on failure.
"""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

tally = support.Tally()
check = tally.check


def set_at(document, key, at, value):
    target = document["sentences"][0][key]
    for i in at[:-1]:
        target = target[i]
    target[at[-1]] = value


def cases(sentence):
    """(name, change, words the refusal must hold): each breaks one promise."""
    T = len(sentence["decoder_input_tokens"])
    return [
        ("null below the diagonal", lambda d: set_at(d, "decoder_self_scores", [0, 1, T - 1, 0], None),
         ["decoder_self_scores[0][1][%d][0]" % (T - 1), "null"]),
        ("a number above the diagonal", lambda d: set_at(d, "decoder_self_scores", [0, 0, 0, 1], 0.5),
         ["decoder_self_scores[0][0][0][1]", "should be null"]),
        ("null in cross scores", lambda d: set_at(d, "cross_scores", [1, 2, 0, 0], None),
         ["cross_scores[1][2][0][0]", "null"]),
        ("a string for a query", lambda d: set_at(d, "encoder_self_queries", [0, 0, 0, 0], "x"),
         ["encoder_self_queries[0][0][0][0]", "not a number"]),
        ("a negative weighted norm", lambda d: set_at(d, "cross_weighted_norms", [0, 3, 0, 0], -0.25),
         ["cross_weighted_norms[0][3][0][0]", "at least 0"]),
        ("a negative head norm", lambda d: set_at(d, "encoder_self_head_norms", [1, 0, 2], -1),
         ["encoder_self_head_norms[1][0][2]", "at least 0"]),
        ("a key row too short", lambda d: d["sentences"][0]["cross_keys"][0][0].pop(),
         ["cross_keys[0][0]", "should have"]),
        ("a value row one number short", lambda d: d["sentences"][0]["decoder_self_values"][1][1][0].pop(),
         ["decoder_self_values[1][1][0]", "numbers"]),
        ("a layer too many", lambda d: d["sentences"][0]["cross_head_norms"].append(
            copy.deepcopy(d["sentences"][0]["cross_head_norms"][0])), ["cross_head_norms", "layers"]),
        ("scores a head short", lambda d: d["sentences"][0]["encoder_self_scores"][0].pop(),
         ["encoder_self_scores[0]", "heads"]),
        ("a probability above 1", lambda d: set_at(d, "decoder_layer_predictions", [0, 0, 0, "probability"], 1.5),
         ["decoder_layer_predictions[0][0][0]", "[0, 1]"]),
        ("a lens position short", lambda d: d["sentences"][0]["decoder_layer_predictions"][1].pop(),
         ["decoder_layer_predictions[1]", "decoder input token"]),
    ] + weight_cases(sentence)


def move_weight(document, key, at, to):
    """Moves half the largest weight of row `at` to key `to`: the row still sums to 1."""
    row = document["sentences"][0][key]
    for i in at:
        row = row[i]
    largest = max(range(len(row)), key=lambda j: row[j])
    amount = row[largest] / 2
    row[largest] -= amount
    row[to] += amount


def scale_row(document, key, at, factor):
    row = document["sentences"][0][key]
    for i in at:
        row = row[i]
    row[:] = [w * factor for w in row]


def weight_cases(sentence):
    """The weights themselves (issue 35, class 5): what softmax cannot give."""
    S = len(sentence["source_tokens"])
    where = "cross_attention[1][2][0][%d]" % (S - 1)
    return [
        ("a weight of -0.5", lambda d: set_at(d, "cross_attention", [1, 2, 0, S - 1], -0.5),
         ["broken.json: sentence 1: " + where, "-0.5", "not an attention weight (0 to 1)"]),
        ("a weight of 2.0", lambda d: set_at(d, "cross_attention", [1, 2, 0, S - 1], 2.0),
         [where + " is 2,", "not an attention weight"]),
        ("a weight of 1e308", lambda d: set_at(d, "encoder_self_attention", [0, 1, 2, 3], 1e308),
         ["encoder_self_attention[0][1][2][3] is 1e+308", "not an attention weight"]),
        ("a weight above the causal diagonal, its row still summing to 1",
         lambda d: move_weight(d, "decoder_self_attention", [2, 3, 1], 2),
         ["decoder_self_attention[2][3][1][2] is 0.", "above the causal diagonal", "must be 0"]),
        ("a row of half weights", lambda d: scale_row(d, "encoder_self_attention", [1, 0, 2], 0.5),
         ["encoder_self_attention[1][0][2] sums to 0.5", "not 1"]),
        ("a row of zeros in a head that ran", lambda d: scale_row(d, "cross_attention", [0, 1, 3], 0),
         ["cross_attention[0][1][3] sums to 0,", "not 1"]),
    ]


def main():
    minimt = support.minimt_path(__doc__)
    with support.scratch("inside-checks") as scratch:
        dump = os.path.join(scratch, "dump.json")
        result = support.run([minimt, "translate", "--model", support.SHIPPED,
                              "--dump-attention", dump, "--dump-scores", "--dump-vectors",
                              "--dump-norms", "--logit-lens", "3", "The man does not see the house."])
        check(result.returncode == 0, "translate: exit %d %r" % (result.returncode, result.stderr))
        with open(dump, encoding="utf-8") as f:
            good = json.load(f)
        page = os.path.join(scratch, "page.html")
        result = support.run([minimt, "view", dump, "-o", page])
        check(result.returncode == 0 and os.path.exists(page),
              "view of the good dump: exit %d %r" % (result.returncode, result.stderr))
        # A switched-off head's rows are all 0: a distribution of nothing, drawn as such.
        ablated = os.path.join(scratch, "ablated.json")
        result = support.run([minimt, "translate", "--model", support.SHIPPED,
                              "--dump-attention", ablated, "--mask-heads", "cross:1:2,decoder:0:*",
                              "The man does not see the house."])
        result = support.run([minimt, "view", ablated, "-o", page])
        check(result.returncode == 0, "view of a dump with heads switched off: exit %d %r"
              % (result.returncode, result.stderr))
        for name, change, words in cases(good["sentences"][0]):
            broken = copy.deepcopy(good)
            change(broken)
            path, page = os.path.join(scratch, "broken.json"), os.path.join(scratch, "broken.html")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(broken, f, ensure_ascii=False)
            if os.path.exists(page):
                os.remove(page)
            result = support.run([minimt, "view", path, "-o", page])
            message = result.stderr.decode("utf-8", "replace")
            check(result.returncode == 1 and all(w in message for w in words) and
                  not os.path.exists(page),
                  "%s: exit %d, message %r, want %r" % (name, result.returncode, message, words))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
