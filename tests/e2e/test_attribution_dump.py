#!/usr/bin/env python3
"""The dump's "attributions" key (--attribute with --dump-attention): each sentence holds the
same object as its JSON Lines record (equal as JSON), the header says "attribution_compute_type":
"float32" (gradients are float32 whatever the compute type), the rest of the dump is the dump
without --attribute, minimt view reads it back, the Python module gives the same numbers
as float32 arrays, and a dump whose attributions break the format is refused with a message
naming the key and the index (a target cell after its row's token not null, a row of the wrong
length, an unknown method, integrated gradients without its gap, a string for a number, an
attribution compute type other than float32).

    test_attribution_dump.py --minimt build/minimt
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import support  # noqa: E402

PAIRS = [("I am a student.", "Je suis étudiant."), ("the wolves are not sad", "les loups ne sont pas tristes"),
         ("", "")]
FAILING = "a line with no tab"  # score fails it: no attributions


def main():
    minimt = support.minimt_path(__doc__)
    t = support.Tally()
    with support.scratch("attribution-dump") as scratch:
        inp = os.path.join(scratch, "pairs.tsv")
        with open(inp, "w", encoding="utf-8") as f:
            f.write("".join("%s\t%s\n" % p for p in PAIRS) + FAILING + "\n")
        common = [minimt, "score", "-i", inp, "-q", "--format", "jsonl", "--dump-scores"]
        plain, with_attr = (os.path.join(scratch, n) for n in ("plain.json", "attr.json"))
        a = support.run(common + ["--dump-attention", plain, "-o", os.path.join(scratch, "a.jsonl")], text=True)
        b = support.run(common + ["--dump-attention", with_attr, "--attribute", "all", "--ig-steps", "8",
                                  "-o", os.path.join(scratch, "b.jsonl")], text=True)
        t.check(a.status == 1 and b.status == 1, "score with and without --attribute: exit status 1 (the failed line)", a.err + b.err)
        with open(plain, encoding="utf-8") as f:
            plain_text = f.read()
        with open(with_attr, encoding="utf-8") as f:
            attr_text = f.read()
        document = json.loads(attr_text)
        without = [{k: v for k, v in s.items() if k != "attributions"} for s in document["sentences"]]
        t.equal("the rest of the dump is the dump without --attribute", without,
                json.loads(plain_text)["sentences"])
        plain_document = json.loads(plain_text)
        t.equal("the header says the attributions are float32, the header without them does not",
                (document.get("attribution_compute_type"),
                 "attribution_compute_type" in plain_document), ("float32", False))
        t.equal("the rest of the header is the header without --attribute",
                {k: v for k, v in document.items()
                 if k not in ("sentences", "attribution_compute_type")},
                {k: v for k, v in plain_document.items() if k != "sentences"})
        t.equal("every scored pair holds attributions (the empty one too), the failed line none",
                [("attributions" in s) for s in document["sentences"]], [True, True, True, False])
        with open(os.path.join(scratch, "b.jsonl"), encoding="utf-8") as f:
            records = [json.loads(line) for line in f]
        for i, (record, sentence) in enumerate(zip(records, document["sentences"])):
            t.equal("sentence %d: the dump's attributions are the record's" % (i + 1),
                    sentence.get("attributions"), record.get("attributions"))
        view = support.run([minimt, "view", with_attr, "-o", os.path.join(scratch, "p.html")], text=True)
        t.equal("minimt view reads it", view.status, 0)

        def broken(name, change, message):
            doc = json.loads(attr_text)
            change(doc["sentences"][0]["attributions"])
            path = os.path.join(scratch, name + ".json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            done = support.run([minimt, "view", path, "-o", path + ".html"], text=True)
            t.check(done.status != 0 and message in done.err, "refused: " + name, done.err.strip())

        broken("a target cell after its token", lambda a: a["saliency"]["target"][0].__setitem__(1, 0.5),
               "attributions.saliency.target[0][1] should be null")
        broken("a short source row", lambda a: a["occlusion"]["source"][2].pop(),
               "attributions.occlusion.source[2] should be a list of 6 numbers")
        broken("an unknown method", lambda a: a.__setitem__("gradients", {}),
               "attributions has 'gradients', not one of saliency, input_x_gradient, "
               "integrated_gradients, occlusion")
        broken("integrated gradients without its gap",
               lambda a: a["integrated_gradients"].pop("completeness_gap"),
               "attributions.integrated_gradients has no completeness_gap")
        doc = json.loads(attr_text)
        doc["attribution_compute_type"] = "int8"
        path = os.path.join(scratch, "int8-gradients.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        done = support.run([minimt, "view", path, "-o", path + ".html"], text=True)
        t.check(done.status != 0 and "\"attribution_compute_type\" is \"int8\" (attributions are "
                "computed in float32)" in done.err, "refused: an attribution compute type of int8",
                done.err.strip())
        broken("a string for a number", lambda a: a["input_x_gradient"]["source"][0].__setitem__(0, "1"),
               "attributions.input_x_gradient.source[0][0] is not a finite float32 number")
        broken("a number past float32", lambda a: a["integrated_gradients"]["source"][0].__setitem__(1, 1e39),
               "attributions.integrated_gradients.source[0][1] is not a finite float32 number")

    sys.path.insert(0, os.path.join(os.path.dirname(minimt), "python"))
    try:
        import minimt as module  # before numpy: it sets OpenBLAS up as the CLI does
        import numpy as np
    except ImportError as e:
        t.check(False, "the Python module is built (tools/setup.sh --tests): %s" % e)
        return t.finish()
    result = module.Model(support.SHIPPED).score(PAIRS[1][0], PAIRS[1][1], attribute=["all"],
                                                 ig_steps=8, attention=True)
    record = records[1]["attributions"]
    for method, maps in result.attributions.items():
        for part in ("source", "target", "completeness_gap"):
            if part not in record[method]:
                continue
            want = np.array([[np.nan if x is None else x for x in row] if isinstance(row, list) else row
                             for row in record[method][part]], dtype=np.float64).astype(np.float32)
            got = maps[part]
            t.check(got.dtype == np.float32 and np.array_equal(got, want, equal_nan=True),
                    "python: %s %s equals the CLI's bit for bit" % (method, part))
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
