"""Typed reading of Hugging Face config.json keys, with the family's defaults; every refusal
names the file and the key."""
import json

import hf_config
from errors import ConversionError

# transformers' ACT2FN names -> minimt's activations; "gelu" is the erf form in both.
ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "swish": "silu", "silu": "silu",
               "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh"}


class Keys:
    def __init__(self, config, path, defaults):
        self.config, self.path, self.defaults = config, path, defaults

    def value(self, key):
        value = self.config.get(key)
        return self.defaults.get(key) if value is None else value

    def int(self, key, low=0):
        return hf_config.int_value(self.value(key), self.path, key, low)

    def bool(self, key):
        value = self.value(key)
        if not isinstance(value, bool):
            raise ConversionError(self.path, "key '%s' is %r, not true or false" % (key, value))
        return value

    def float(self, key):
        value = self.value(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or \
                not 0 < value < 1:
            raise ConversionError(self.path, "key '%s' is %s, not a number between 0 and 1"
                                  % (key, json.dumps(value)[:80]))
        return float(value)

    def same(self, key_a, key_b):
        a, b = self.int(key_a, 1), self.int(key_b, 1)
        if a != b:
            raise ConversionError(self.path, "key '%s' is %d but '%s' is %d; minimt's format has "
                                             "one value for both stacks" % (key_b, b, key_a, a))
        return a

    def activation(self, key):
        name = self.value(key)
        if not isinstance(name, str) or name not in ACTIVATIONS:
            raise ConversionError(self.path, "key '%s' is %r; minimt has %s"
                                  % (key, name, ", ".join(sorted(ACTIVATIONS))))
        return ACTIVATIONS[name]

    def refuse_unless(self, key, allowed, why):
        value = self.config.get(key)
        if value is not None and value != allowed:
            raise ConversionError(self.path, "key '%s' is %r: %s, which minimt's format cannot "
                                             "hold" % (key, value, why))


def choose_language(kind, codes, asked, default, path, option):
    """The code asked for (or the tokenizer's default), refused with the known list."""
    code = asked if asked is not None else default
    if code is None:
        raise ConversionError(path, "%s is needed for this multilingual model; its codes are: %s"
                              % (option, ", ".join(codes)))
    if code not in codes:
        raise ConversionError(path, "%s %r is not a language code of this model; its codes "
                                    "are: %s" % (option, code, ", ".join(codes)))
    return code
