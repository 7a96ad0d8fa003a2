#!/usr/bin/python3
"""--attribute, --ig-steps and --ig-rule of translate and score, and heads --attribution (issue
39), on the shipped model and held-out pairs:

  unchanged  translate and score records (JSON Lines: with a blank line, a line that is not
             UTF-8, a beam with an n-best list, ablated heads) equal the records without
             --attribute once "attributions" is taken out, byte for byte but time_ms; an
             attention dump with --attribute all equals the dump without once each sentence's
             "attributions" (when the dump has it) is taken out; a blank line and a failed one
             have no attributions; the others have every method asked for, in the engine's
             order, [T][S] and [T][T] (null exactly where j > t), T the record's tokens and S
             the dump's source tokens, integrated_gradients with "completeness_gap" [T],
             "steps" and "rule";
  errors     a method that does not exist, ig_steps out of [1, 1024], ig_rule not a rule,
             --ig-steps without --attribute, --attribute without jsonl, a dump or a page: exit
             status 2 and a message naming the flag; minimt serve: 400 naming the field;
  heads      every cross head's attr_agree (jsonl attribution_agreement, csv, the text column)
             and the summary's agreement of the mean of each layer's cross heads, computed here
             from `score --format jsonl --attribute integrated_gradients` and the cross
             weights of `score --dump-attention` on the same pairs.

    test_attribute.py --minimt build/minimt

(Whether the numbers are the engine's and autograd's: tests/pytorch/compare_attribution.py.)
Stdlib only. Ends with "N passed, N failed"; exit 1 on failure.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402
from head_patterns import f32  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_support import Server  # noqa: E402
from test_heads_columns import MODEL, Runner as HeadsRunner  # noqa: E402

METHODS = ["saliency", "input_x_gradient", "integrated_gradients", "occlusion"]
TALLY = support.Tally()
check = TALLY.check


class Runner(HeadsRunner):
    """test_heads_columns.py's runner, quiet, taking the exit status 1 of a failed line."""

    def run(self, *args, stdin=None):
        return super().run(args[0], "-q", *args[1:], stdin=stdin)

    def ok(self, *args, stdin=None):
        status, out, err = self.run(*args, stdin=stdin)
        if status not in (0, 1):  # 1: a failed line, which the input may hold on purpose
            raise support.Mismatch("minimt %s: status %s, %s" % (" ".join(args), status,
                                                                 err.decode()[-400:]))
        return out

    def lines(self, *args, stdin=None):
        return self.ok(*args, stdin=stdin).splitlines()


def without_time(line):
    return re.sub(rb',"time_ms":[0-9.]+\}$', b"}", line)


def without_attributions(line):
    """The record as written without --attribute: the field and its comma taken out."""
    record = json.loads(line)
    if "attributions" not in record:
        return line
    start = line.index(b',"attributions":')
    ends = [line.find(key, start) for key in (b',"n_best":', b',"time_ms":')]
    return line[:start] + line[min(end for end in ends if end > 0):]


def check_shapes(label, record, source_length, methods, steps, rule):
    got = record.get("attributions")
    if got is None:
        return check(False, "%s: line %d has no attributions" % (label, record["line"]))
    T, S = len(record["tokens"]), source_length
    check(list(got) == methods, "%s line %d: the methods %s" % (label, record["line"], list(got)))
    for method, entry in got.items():
        keys = ["source", "target"] + (["completeness_gap", "steps", "rule"]
                                       if method == "integrated_gradients" else [])
        good = (list(entry) == keys and len(entry["source"]) == T and
                all(len(row) == S and None not in row for row in entry["source"]) and
                len(entry["target"]) == T and
                all(len(row) == T and all((v is None) == (j > t) for j, v in enumerate(row))
                    for t, row in enumerate(entry["target"])))
        if method == "integrated_gradients":
            good = good and len(entry["completeness_gap"]) == T and entry["steps"] == steps \
                and entry["rule"] == rule
        check(good, "%s line %d: %s shaped [T=%d][S=%d], [T][T] with null for j > t"
              % (label, record["line"], method, T, S), json.dumps(entry)[:300])


def unchanged(r):
    pairs = support.heldout_pairs(12)
    sources = [p[0] for p in pairs[:6]] + [""] + [p[0] for p in pairs[6:]]
    source_bytes = "\n".join(sources).encode() + b"\n\xff bad\n"
    score_bytes = ("\n".join("%s\t%s" % p for p in pairs) + "\n").encode() + b"no tab\n"
    dump = r.path("plain.json")
    r.ok("translate", "--dump-attention", dump, "--format", "jsonl", stdin=source_bytes)
    with open(dump, encoding="utf-8") as f:
        source_lengths = [len(s.get("source_tokens", [])) for s in json.load(f)["sentences"]]
    cases = [
        ("translate", ["--attribute", "all"], source_bytes, METHODS, 32, "gauss_legendre"),
        ("translate", ["--attribute", "occlusion,saliency", "--beam-size", "3", "--n-best", "2"],
         source_bytes, ["saliency", "occlusion"], 0, ""),
        ("score", ["--attribute", "integrated_gradients,input_x_gradient", "--ig-steps", "5",
                   "--ig-rule", "riemann_right", "--ablate-heads", "cross:-1:0,encoder:0:1"],
         score_bytes, ["input_x_gradient", "integrated_gradients"], 5, "riemann_right"),
    ]
    for command, flags, stdin, methods, steps, rule in cases:
        plain_flags = [f for i, f in enumerate(flags)
                       if not (f.startswith("--attribute") or f.startswith("--ig-") or
                               (i > 0 and flags[i - 1] in ("--attribute", "--ig-steps",
                                                           "--ig-rule")))]
        label = "%s %s" % (command, " ".join(flags))
        plain = r.lines(command, "--format", "jsonl", *plain_flags, stdin=stdin)
        attributed = r.lines(command, "--format", "jsonl", *flags, stdin=stdin)
        check([without_time(without_attributions(x)) for x in attributed] ==
              [without_time(x) for x in plain],
              "%s: the records without \"attributions\" are those without --attribute" % label)
        for line in attributed:
            record = json.loads(line)
            if "error" in record or (command == "translate" and record["source"] == ""):
                check("attributions" not in record,
                      "%s line %d (blank or failed): no attributions" % (label, record["line"]))
            elif command == "translate" and len(source_lengths) >= record["line"]:
                check_shapes(label, record, source_lengths[record["line"] - 1], methods,
                             steps, rule)
            else:
                check_shapes(label, record, len(record["attributions"][methods[0]]["source"][0]),
                             methods, steps, rule)
    # The dump: what it held without --attribute, byte for byte once "attributions" is out.
    attributed_dump = r.path("attributed.json")
    r.ok("translate", "--dump-attention", attributed_dump, "--format", "jsonl", "--attribute",
         "all", stdin=source_bytes)
    with open(dump, "rb") as f:
        want = f.read()
    with open(attributed_dump, "rb") as f:
        got = f.read()
    if b'"attributions"' in got:
        document = json.loads(got)
        check(document.pop("attribution_compute_type", None) == "float32",
              "translate --dump-attention --attribute all: the header says float32")
        for sentence in document["sentences"]:
            sentence.pop("attributions", None)
        got, want = (json.dumps(json.loads(x), sort_keys=True) for x in (json.dumps(document),
                                                                         want))
    check(got == want, "translate --dump-attention: the dump unchanged by --attribute all")
    return "%d sources, %d pairs" % (len(sources), len(pairs))


ERRORS = [
    (["--format", "jsonl", "--attribute", "saliency,gradients"],
     "--attribute: 'gradients' is not a method: saliency, input_x_gradient, "
     "integrated_gradients, occlusion or all"),
    (["--format", "jsonl", "--attribute", "all", "--ig-steps", "0"],
     "--ig-steps: 0 is not in [1, 1024]"),
    (["--format", "jsonl", "--attribute", "all", "--ig-steps", "1025"],
     "--ig-steps: 1025 is not in [1, 1024]"),
    (["--format", "jsonl", "--attribute", "all", "--ig-rule", "simpson"],
     "--ig-rule: 'simpson' is not a rule: gauss_legendre, riemann_right"),
    (["--format", "jsonl", "--ig-steps", "8"], "--ig-steps requires --attribute"),
    (["--format", "jsonl", "--ig-rule", "riemann_right"], "--ig-rule requires --attribute"),
    (["--attribute", "saliency"],
     "--attribute writes its numbers in --format jsonl, --dump-attention or --view: give one "
     "of them"),
]

SERVER_ERRORS = [
    ({"attribute": ["saliency", "gradients"]}, "attribute",
     "attribute: 'gradients' is not a method: saliency, input_x_gradient, integrated_gradients,"
     " occlusion or all"),
    ({"attribute": "all"}, "attribute", "attribute: expected a list, got "),
    ({"attribute": ["all"], "ig_steps": 0}, "ig_steps", "ig_steps: 0 is not in [1, 1024]"),
    ({"attribute": ["all"], "ig_steps": 2000}, "ig_steps", "ig_steps: 2000 is not in [1, 1024]"),
    ({"attribute": ["all"], "ig_rule": "simpson"}, "ig_rule",
     "ig_rule: 'simpson' is not a rule: gauss_legendre, riemann_right"),
]


def errors(r):
    for command in ("translate", "score"):
        for flags, message in ERRORS:
            status, out, err = r.run(command, *flags, *(["a", "b"] if command == "score" else ["a"]))
            text = err.decode()
            check(status == 2 and message in text and out == b"",
                  "%s %s: exit 2, %r" % (command, " ".join(flags), message),
                  "exit %s, %r" % (status, text[-300:]))
    with Server(r.minimt, ["--model", MODEL, "--threads", "1"]) as server:
        for endpoint, lines in (("/v1/translate", {"text": "a"}),
                                ("/v1/score", {"source": "a", "target": "b"}),
                                ("/v1/attention", {"text": "a"})):
            for fields, field, message in SERVER_ERRORS:
                status, body = server.post(endpoint, dict(fields, **lines))
                answer = json.loads(body) if status == 400 else {}
                check(answer.get("field") == field and
                      answer.get("error", "").startswith(message),
                      "%s %s: 400 naming %s, %r" % (endpoint, json.dumps(fields), field, message),
                      "%d %r" % (status, body[:300]))
        status, body = server.post("/v1/score", {"source": "the cat", "target": "le chat",
                                                 "attribute": ["saliency"]})
        answer = json.loads(body) if status == 200 else {}
        check(list(answer.get("attributions", {})) == ["saliency"],
              "/v1/score with attribute: the record's attributions", body[:300])
    return "%d CLI errors, %d server errors" % (2 * len(ERRORS), 3 * len(SERVER_ERRORS))


def arg_max(row):
    return row.index(max(row))


def agreement_by_hand(sentences, records):
    """{(layer, head): share}, {layer: share} and every layer's share, as docs/analysis.md
    defines them: rows with two source tokens or more; the layers' means summed in float32 as
    minimt sums them."""
    agree, means, rows = {}, {}, 0
    every = 0
    for sentence, record in zip(sentences, records):
        cross = sentence["cross_attention"]  # [layer][head][t][s]
        evidence = record["attributions"]["integrated_gradients"]["source"]
        L, H = len(cross), len(cross[0])
        S = len(evidence[0])
        if S < 2:
            continue
        for t, values in enumerate(evidence):
            top = arg_max([abs(v) for v in values])
            every_mean = [0.0] * S
            for l in range(L):
                mean = [0.0] * S
                for h in range(H):
                    row = cross[l][h][t]
                    agree[(l, h)] = agree.get((l, h), 0) + (arg_max(row) == top)
                    for j in range(S):
                        mean[j] = f32(mean[j] + f32(row[j] / H))
                        every_mean[j] = f32(every_mean[j] + f32(row[j] / (L * H)))
                means[l] = means.get(l, 0) + (arg_max(mean) == top)
            every += arg_max(every_mean) == top
            rows += 1
    return ({k: v / rows for k, v in agree.items()}, {k: v / rows for k, v in means.items()},
            every / rows)


def close(got, want):
    return abs(got - want) <= 2e-6 * max(1.0, abs(want))


def heads(r):
    pairs = support.heldout_pairs(24)
    pairs_file = r.path("pairs.tsv")
    with open(pairs_file, "w", encoding="utf-8") as f:
        f.write("".join("%s\t%s\n" % p for p in pairs))
    dump = r.path("heads-dump.json")
    records = [json.loads(x) for x in r.lines("score", "-i", pairs_file, "--format", "jsonl",
                                              "--attribute", "integrated_gradients",
                                              "--dump-attention", dump, "--dump-types", "cross")]
    with open(dump, encoding="utf-8") as f:
        sentences = json.load(f)["sentences"]
    per_head, per_layer, every = agreement_by_hand(sentences, records)
    table = [json.loads(x) for x in r.lines("heads", "-i", pairs_file, "--format", "jsonl",
                                             "--attribution", "integrated_gradients")]
    for record in table:
        if record.get("type") == "cross":
            key = (record["layer"], record["head"])
            got = record.get("attribution_agreement")
            check(got is not None and close(got, per_head[key]),
                  "heads jsonl cross:%d:%d attribution_agreement %s, by hand %.6f"
                  % (key + (got, per_head[key])))
        elif "type" in record:
            check("attribution_agreement" not in record,
                  "heads jsonl %s:%d:%d: no attribution_agreement"
                  % (record["type"], record["layer"], record["head"]))
    averages = [x for x in table if x.get("average") == "cross"]
    check(len(averages) == len(per_layer) + 1, "heads jsonl: a record per layer's mean, and all")
    for record in averages:
        want = per_layer[record["layer"]] if "layer" in record else every
        check(close(record["attribution_agreement"], want) and
              record["attribution"] == "integrated_gradients",
              "heads jsonl mean of layer %s: %s, by hand %.6f"
              % (record.get("layer", "every"), record["attribution_agreement"], want))
    plain = r.lines("heads", "-i", pairs_file, "--format", "jsonl")
    check(len(plain) == 36 and all(b"attribution" not in x for x in plain),
          "heads jsonl without --attribution: no attribution field, no mean's record")
    csv = r.ok("heads", "-i", pairs_file, "--format", "csv", "--attribution",
               "integrated_gradients").decode().splitlines()
    header = csv[0].split(",")
    check(header[-1] == "attribution_agreement", "heads csv: the column", csv[0])
    for line in csv[1:]:
        cells = line.split(",")
        if cells[0] == "cross":
            want = per_head[(int(cells[1]), int(cells[2]))]
            check(abs(float(cells[-1]) - want) <= 1e-6, "heads csv %s" % line)
        else:
            check(cells[-1] == "", "heads csv %s: empty" % line)
    plain_csv = r.ok("heads", "-i", pairs_file, "--format", "csv").decode()
    check("attribution" not in plain_csv, "heads csv without --attribution: no column")
    text = r.ok("heads", "-i", pairs_file, "--attribution", "integrated_gradients").decode()
    check("attr_agree" in text.splitlines()[5] if len(text.splitlines()) > 5 else False,
          "heads text: the attr_agree column", text[:600])
    check("attr_agree  (with --attribution METHOD)" in text, "heads text: the legend")
    summary = re.search(r"attr_agree of the mean of the cross heads, with integrated_gradients "
                        r"\(32 steps, gauss_legendre rule\):"
                        r"((?: layer \d+ [0-9.]+,?)+); every layer's heads ([0-9.]+)", text)
    check(summary and all(abs(float(v) - per_layer[int(l)]) <= 5e-5 for l, v in
                          re.findall(r"layer (\d+) ([0-9.]+)", summary.group(1))) and
          abs(float(summary.group(2)) - every) <= 5e-5,
          "heads text: the summary's means", text[:500])
    for row in text.splitlines():
        cells = row.split()
        if len(cells) > 3 and cells[0] == "cross" and cells[1].isdigit():
            check(abs(float(cells[-1]) - per_head[(int(cells[1]), int(cells[2]))]) <= 0.005,
                  "heads text row %s" % row)
    # --ig-steps and --ig-rule: the agreement with the attributions score gives for them.
    integration = ["--ig-steps", "4", "--ig-rule", "riemann_right"]
    few = r.lines("score", "-i", pairs_file, "--format", "jsonl", "--attribute",
                  "integrated_gradients", *integration)
    few_head, few_layer, few_every = agreement_by_hand(sentences, [json.loads(x) for x in few])
    table = [json.loads(x) for x in r.lines("heads", "-i", pairs_file, "--format", "jsonl",
                                             "--attribution", "integrated_gradients",
                                             *integration)]
    bad = [x for x in table if x.get("type") == "cross" and not close(
        x["attribution_agreement"], few_head[(x["layer"], x["head"])])]
    check(few_head != per_head, "4 Riemann steps agree otherwise than 32 Gauss-Legendre ones here: "
          "the comparison can tell whether the flags reach the engine")
    means = [x for x in table if x.get("average") == "cross"]
    check(not bad and len(means) == len(few_layer) + 1 and
          all(close(x["attribution_agreement"], few_layer[x["layer"]] if "layer" in x else
                    few_every) for x in means),
          "heads --attribution integrated_gradients --ig-steps 4 --ig-rule riemann_right: every "
          "cross head's and layer mean's agreement by hand from score with the same steps", bad)
    text = r.ok("heads", "-i", pairs_file, "--attribution", "integrated_gradients",
                *integration).decode()
    check("attr_agree of the mean of the cross heads, with integrated_gradients (4 steps, "
          "riemann_right rule):" in text, "heads text: the summary names the steps and rule",
          text[-400:])
    status, _, err = r.run("heads", "-i", pairs_file, "--ig-steps", "4")
    check(status == 2 and "--ig-steps requires --attribution" in err.decode(),
          "heads --ig-steps without --attribution: refused", err.decode()[-300:])
    status, _, err = r.run("heads", "-i", pairs_file, "--attribution", "saliency", "--ig-steps", "4")
    check(status == 2 and "--ig-steps and --ig-rule are integrated gradients'" in err.decode(),
          "heads --attribution saliency --ig-steps 4: refused", err.decode()[-300:])
    status, _, err = r.run("heads", "-i", pairs_file, "--attribution", "integrated_gradients",
                           "--ig-rule", "simpson")
    check(status == 2 and "simpson" in err.decode(), "heads --ig-rule simpson: refused",
          err.decode()[-300:])
    status, _, err = r.run("heads", "-i", pairs_file, "--attribution", "attention")
    check(status == 2 and "--attribution" in err.decode(), "heads --attribution attention: "
          "refused", err.decode()[-300:])
    return "%d pairs; every layer's mean %.4f" % (len(pairs), every)


def main():
    minimt = support.minimt_path(__doc__)
    with support.scratch("attribute") as folder:
        r = Runner(minimt, folder)
        TALLY.case("records unchanged, attributions shaped", unchanged, r)
        TALLY.case("option errors (CLI and server)", errors, r)
        TALLY.case("heads --attribution", heads, r)
    TALLY.exit()


if __name__ == "__main__":
    main()
