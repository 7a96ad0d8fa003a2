"""generate()'s settings of a checkpoint -> the "generation" block of minimt's config.json
(docs/model-format.md, "Generation settings"): generation_config.json, or in older checkpoints
the generation keys of config.json; T5's task_specific_params become tasks (--task NAME).

transformers' max_length counts the decoder's start token, minimt's --max-length does not: one
less is written (max_new_tokens, where set, is taken as it is). max_length, length_penalty and
early_stopping are written with generate()'s defaults (20, so 19 output tokens; 1.0; false) when
the checkpoint leaves them out, since minimt's own (256, 0, its own stopping rule) are not
generate()'s. Every value is
range-checked as minimt's config reader checks it; a refusal names the file and the key.
"""
import json

from errors import ConversionError

GENERATE_DEFAULTS = {"max_length": 19, "length_penalty": 1.0, "early_stopping": False}
MAX_BEAMS, MAX_PENALTY, MAX_LENGTH, MAX_NGRAM = 256, 10.0, 1 << 20, 1024
MAX_BAD_WORDS, MAX_WORD_TOKENS, MAX_TASKS = 4096, 64, 64


def _shown(value):
    return json.dumps(value)[:80]


def _int(path, key, value, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConversionError(path, "key '%s' is %s, not an integer from %d to %d"
                              % (key, _shown(value), low, high))
    return value


def _number(path, key, value, low, high, low_open=False):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and \
        (value > low if low_open else value >= low) and value <= high
    if not ok:
        raise ConversionError(path, "key '%s' is %s, not a number %s %g and at most %g"
                              % (key, _shown(value), "above" if low_open else "from", low, high))
    return float(value)


def settings(source, path):
    """The keys a request may override, from one dict (a config or a task)."""
    out = {}
    if source.get("num_beams") is not None:
        out["beam_size"] = _int(path, "num_beams", source["num_beams"], 1, MAX_BEAMS)
    if source.get("length_penalty") is not None:
        out["length_penalty"] = _number(path, "length_penalty", source["length_penalty"],
                                        -MAX_PENALTY, MAX_PENALTY)
    if source.get("early_stopping") is not None:
        value = source["early_stopping"]
        if not isinstance(value, bool) and value != "never":
            raise ConversionError(path, "key 'early_stopping' is %s, not true, false or "
                                        "\"never\"" % _shown(value))
        out["early_stopping"] = value
    if source.get("max_new_tokens") is not None:
        out["max_length"] = _int(path, "max_new_tokens", source["max_new_tokens"], 1, MAX_LENGTH)
    elif source.get("max_length") is not None:
        out["max_length"] = _int(path, "max_length", source["max_length"], 2, MAX_LENGTH + 1) - 1
    if source.get("no_repeat_ngram_size") is not None:
        out["no_repeat_ngram_size"] = _int(path, "no_repeat_ngram_size",
                                           source["no_repeat_ngram_size"], 0, MAX_NGRAM)
    if source.get("repetition_penalty") is not None:
        out["repetition_penalty"] = _number(path, "repetition_penalty",
                                            source["repetition_penalty"], 0, 100, True)
    return out


def _bad_words(path, value, vocab_size):
    if not isinstance(value, list) or len(value) > MAX_BAD_WORDS:
        raise ConversionError(path, "key 'bad_words_ids' is not a list of at most %d token "
                                    "sequences" % MAX_BAD_WORDS)
    for word in value:
        if not isinstance(word, list) or not 1 <= len(word) <= MAX_WORD_TOKENS:
            raise ConversionError(path, "key 'bad_words_ids' holds %s, not a list of 1 to %d "
                                        "token ids" % (_shown(word), MAX_WORD_TOKENS))
        for token in word:
            _int(path, "bad_words_ids", token, 0, vocab_size - 1)
    return [list(word) for word in value]


def read(config, config_path, generation, generation_path, vocab_size):
    """-> (the block without tasks, the dict its settings came from, its path)."""
    source, path, origin = (generation, generation_path, "generation_config.json") \
        if generation else (config, config_path, "config.json")
    block = {"from": origin, "search_rules": "transformers"}
    block.update({k: v for k, v in GENERATE_DEFAULTS.items()})
    block.update(settings(source, path))
    eos = source.get("forced_eos_token_id")
    if isinstance(eos, list) and len(eos) == 1:  # newer transformers allow a list
        eos = eos[0]
    if eos is not None:
        block["forced_last_token"] = _int(path, "forced_eos_token_id", eos, 0, vocab_size - 1)
    if source.get("bad_words_ids") is not None:
        block["bad_words"] = _bad_words(path, source["bad_words_ids"], vocab_size)
    return block


def t5_tasks(config, path, encode):
    """task_specific_params' translation tasks -> {name: {source_prefix_tokens, settings}}."""
    tasks = config.get("task_specific_params") or {}
    if not isinstance(tasks, dict) or len(tasks) > MAX_TASKS:
        raise ConversionError(path, "key 'task_specific_params' is not a JSON object of at "
                                    "most %d tasks" % MAX_TASKS)
    out = {}
    for name, task in sorted(tasks.items()):
        if not isinstance(task, dict) or len(name) > 100 or not name.isprintable() or not name:
            raise ConversionError(path, "key 'task_specific_params' holds %s: %s, not a task "
                                        "name and an object" % (_shown(name), _shown(task)))
        prefix = task.get("prefix", "")
        if not isinstance(prefix, str) or len(prefix) > 1000:
            raise ConversionError(path, "key 'task_specific_params.%s.prefix' is not a string "
                                        "of at most 1000 characters" % name)
        ids = encode(prefix.rstrip()) if prefix.strip() else []
        if len(ids) > 64:
            raise ConversionError(path, "key 'task_specific_params.%s.prefix' is %d tokens; "
                                        "minimt takes at most 64" % (name, len(ids)))
        out[name] = dict(settings(task, "%s: task_specific_params.%s" % (path, name)),
                         source_prefix_tokens=ids)
    return out
