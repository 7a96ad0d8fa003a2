"""--mask-heads SPEC for the PyTorch reference, written from `minimt translate --help` (not from
minimt's source): a comma-separated list of TYPE:LAYER:HEAD, TYPE encoder, decoder or cross,
LAYER and HEAD numbers (negative counts from the end) or *.

    parse(spec, config) -> {"encoder": [Le, H], "decoder": [Ld, H], "cross": [Ld, H]} float
                           tensors (1 keeps a head, 0 masks it): MinimtTransformer.set_head_mask
    describe(head_mask) -> "encoder:0:1,cross:2:3": the masked heads in order of type, layer
                           and head (the top-level "masked_heads" of an attention dump)

A wrong SPEC raises ValueError saying which item is wrong and why.
"""

import re

import torch

TYPES = ("encoder", "decoder", "cross")
_NUMBER = re.compile(r"-?[0-9]+\Z")


def layer_count(config, kind):
    return int(config["encoder_layers"] if kind == "encoder" else config["decoder_layers"])


def _indices(field, count, what, item):
    """The indices a LAYER or HEAD field names: all for *, else one (negative from the end)."""
    if field == "*":
        return list(range(count))
    if not _NUMBER.match(field):
        raise ValueError("%r: the %s %r is not a number or *" % (item, what, field))
    value = int(field)
    if not -count <= value < count:
        raise ValueError("%r: there is no %s %s (%d of them, numbered from 0; negative counts "
                         "from the end)" % (item, what, field, count))
    return [value % count]


def parse(spec, config):
    heads = int(config["num_heads"])
    mask = {kind: torch.ones(layer_count(config, kind), heads) for kind in TYPES}
    items = [item for item in spec.split(",") if item]
    if not items:
        raise ValueError("%r names no head (e.g. cross:-1:0,encoder:*:2)" % spec)
    for item in items:
        fields = item.split(":")
        if len(fields) != 3:
            raise ValueError("%r is not TYPE:LAYER:HEAD (e.g. cross:-1:0 or encoder:*:2)" % item)
        kind, layer, head = fields
        if kind not in TYPES:
            raise ValueError("%r: the type %r is not encoder, decoder or cross" % (item, kind))
        for l in _indices(layer, layer_count(config, kind), "layer", item):
            for h in _indices(head, heads, "head", item):
                mask[kind][l, h] = 0.0
    return mask


def describe(head_mask):
    """The masked (value 0) heads of a parse() result as TYPE:LAYER:HEAD, comma-separated."""
    names = []
    for kind in TYPES:
        if kind in head_mask and head_mask[kind] is not None:
            for l, h in (head_mask[kind] == 0).nonzero().tolist():
                names.append("%s:%d:%d" % (kind, l, h))
    return ",".join(names)
