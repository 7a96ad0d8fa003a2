"""The pattern statistics `minimt heads` reports for one head, computed from an attention dump's
matrices (the tests' own computation of the definitions in docs/analysis.md).

pattern(sentences, kind, layer, head): means over the query rows of every sentence, pooled,
of the rows with two keys or more (one_key=True: every row; a row with one key, such as
decoder position 0 under the causal mask, has weight 1 whatever the head does):
  entropy      -sum p log p of the row
  max_weight   its largest weight
  first        the weight on key 0
  same         the weight on the query's own position (self-attention)
  previous     the weight on position i - 1, over the rows with i > 0 (self-attention)
  eos          the weight on the last key, the source's </s> (encoder and cross)
  alignment_agreement  whether the row's arg-max is the arg-max of the layer's average over
               heads (cross), the average summed in float32 as minimt sums it
"""
import math
import struct

KEYS = {"encoder": "encoder_self_attention", "decoder": "decoder_self_attention",
        "cross": "cross_attention"}


def f32(x):
    """x rounded to float32, as minimt's float arithmetic rounds it."""
    return struct.unpack("f", struct.pack("f", x))[0]


def pattern(sentences, kind, layer, head, one_key=False):
    """{statistic: value} of one head ("previous" None when no row has i > 0)."""
    sums = dict.fromkeys(("entropy", "max_weight", "same", "previous", "first", "eos",
                          "alignment_agreement"), 0.0)
    rows = previous_rows = 0
    for sentence in sentences:
        heads = sentence[KEYS[kind]][layer]
        for i, row in enumerate(heads[head]):
            if kind == "decoder":
                row = row[:i + 1]  # keys 0..i; the rest is the causal mask
            if len(row) < 2 and not one_key:
                continue  # weight 1 on the one key, whatever the head does
            sums["entropy"] -= sum(p * math.log(p) for p in row if p > 0)
            sums["max_weight"] += max(row)
            sums["first"] += row[0]
            if kind != "cross":
                sums["same"] += row[i]
                if i > 0:
                    sums["previous"] += row[i - 1]
                    previous_rows += 1
            if kind != "decoder":
                sums["eos"] += row[-1]  # the source's </s>
            if kind == "cross":
                average = [0.0] * len(row)  # as minimt sums it: float, w / heads each
                for h in range(len(heads)):
                    for j in range(len(row)):
                        average[j] = f32(average[j] + f32(heads[h][i][j] / len(heads)))
                sums["alignment_agreement"] += row.index(max(row)) == average.index(max(average))
            rows += 1
    stats = {k: v / rows for k, v in sums.items()}
    stats["previous"] = sums["previous"] / previous_rows if previous_rows else None
    for absent in {"encoder": ["alignment_agreement"], "decoder": ["eos", "alignment_agreement"],
                   "cross": ["same", "previous"]}[kind]:
        del stats[absent]
    return stats
