"""Converts an mBART-50, M2M100, NLLB or T5 directory (convert_hf.py's families besides
Marian): config, tokenizer, weights, then the staged output directory."""
import json
import os

import fairseq_family
import generation_settings
import hf_files
import hf_keys
import ignored_tensors
import output
import spm_layout
import t5_family
import tokenizer_check
import tokenizer_layouts
from errors import ConversionError


def _read_object(path, required):
    value = hf_files.read_json(path, required)
    if value is not None and not isinstance(value, dict):
        raise ConversionError(path, "must hold a JSON object")
    return value or {}


def _generation_block(inputs, generation, vocab_size, notes):
    """The "generation" block of the converted config (generation_settings.py)."""
    block = generation_settings.read(inputs["config"], inputs["config_path"], generation,
                                     inputs["generation_path"], vocab_size)
    shown = ", ".join("%s %s" % (k, json.dumps(v)) for k, v in sorted(block.items())
                      if k not in ("from", "search_rules", "bad_words"))
    notes.append("generation settings from %s (minimt translate's defaults): %s"
                 % (block["from"], shown))
    return block


def _fairseq(args, inputs, notes):
    family = inputs["config"]["model_type"]
    p = fairseq_family.plan_architecture(family, inputs["config"], inputs["config_path"])
    kind = fairseq_family.tokenizer_kind(family, args.hf_dir, inputs["tokenizer"])
    spm_path, layout, code_ids, vocab, codes = fairseq_family.layouts(
        kind, args.hf_dir, p, inputs["tokenizer"], notes)
    default_source = inputs["tokenizer"].get("src_lang") or \
        {"mbart50": "en_XX", "nllb": "eng_Latn", "m2m100": "en"}[kind]
    source = hf_keys.choose_language(kind, codes, args.source_lang, default_source,
                                     inputs["config_path"], "--source-lang")
    target = hf_keys.choose_language(kind, codes, args.target_lang,
                                     inputs["tokenizer"].get("tgt_lang"), inputs["config_path"],
                                     "--target-lang")
    token = (lambda c: "__%s__" % c) if kind == "m2m100" else (lambda c: c)
    unk = layout.entries.index(("unk", "<unk>"))
    data, aliases = spm_layout.rewrite(spm_path, layout, {"unk": unk, "bos": 0, "eos": 2,
                                                          "pad": 1}, True)
    checked = tokenizer_check.check("m2m100" if kind == "m2m100" else "fairseq", spm_path, data,
                                    p.vocab_size, unk, vocab)
    notes.append("%s: %d sample texts tokenized as the %s tokenizer does" % (spm_path, checked,
                                                                            kind))
    if aliases:
        notes.append("%s: %d pieces that vocab.json lacks are read as <unk>, as M2M100Tokenizer "
                     "does" % (spm_path, aliases))
    weights_path, tensors = hf_files.read_weights(args.hf_dir)
    notes += ignored_tensors.leave_out(inputs["config"]["model_type"], tensors, weights_path)
    out = fairseq_family.map_weights(tensors, weights_path, p, notes)
    config = fairseq_family.minimt_config(p, unk, [code_ids[token(source)]],
                                          code_ids[token(target)], aliases)
    config["generation"] = _generation_block(inputs, inputs["generation"], p.vocab_size, notes)
    notes.append("source language %s, target language %s (forced first token %d)"
                 % (source, target, code_ids[token(target)]))
    return config, out, data


def _t5(args, inputs, notes):
    p = t5_family.plan_architecture(inputs["config"], inputs["config_path"])
    spm_path = os.path.join(args.hf_dir, "spiece.model")
    if not hf_files.present(spm_path):
        raise ConversionError(spm_path, "is missing")
    extra = hf_keys.Keys(inputs["tokenizer"], inputs["tokenizer_path"], {"extra_ids": 100})
    layout = tokenizer_layouts.t5_pieces(spm_path, extra.int("extra_ids"), p.vocab_size)
    unk = next(i for i, (role, _) in enumerate(layout.entries) if role == "unk")
    data, _ = spm_layout.rewrite(spm_path, layout, {"unk": unk, "bos": -1, "eos": p.eos,
                                                    "pad": p.pad}, True)
    checked = tokenizer_check.check("t5", spm_path, data, p.vocab_size, unk)
    notes.append("%s: %d sample texts tokenized as T5Tokenizer does" % (spm_path, checked))
    prefix = []
    if args.source_lang or args.target_lang:
        prefix = _t5_task_prefix(args, inputs, data, notes)
    weights_path, tensors = hf_files.read_weights(args.hf_dir)
    notes += ignored_tensors.leave_out("t5", tensors, weights_path)
    config = t5_family.minimt_config(p, unk, prefix)
    config["generation"] = _t5_generation(args, inputs, data, p.vocab_size, notes)
    return config, t5_family.map_weights(tensors, weights_path, p), data


def _t5_generation(args, inputs, data, vocab_size, notes):
    """The block, every task of task_specific_params (--task NAME), and the chosen
    translation task's settings over the block's, as pipeline("translation") applies them."""
    import sentencepiece
    processor = sentencepiece.SentencePieceProcessor(model_proto=data)
    block = _generation_block(inputs, inputs["generation"], vocab_size, notes)
    tasks = generation_settings.t5_tasks(inputs["config"], inputs["config_path"],
                                         processor.encode)
    if tasks:
        block["tasks"] = tasks
        notes.append("tasks (minimt translate --task NAME): %s" % ", ".join(sorted(tasks)))
    if args.source_lang or args.target_lang:
        name = "translation_%s_to_%s" % (args.source_lang, args.target_lang)
        chosen = {k: v for k, v in tasks[name].items() if k != "source_prefix_tokens"}
        block.update(chosen)
        block["from"] += " and config.json task_specific_params %s" % name
    return block


def _t5_task_prefix(args, inputs, data, notes):
    """config.json's task_specific_params: "translate English to German: " as source ids."""
    tasks = inputs["config"].get("task_specific_params") or {}
    if not isinstance(tasks, dict):
        raise ConversionError(inputs["config_path"], "key 'task_specific_params' is not a JSON "
                                                     "object")
    known = sorted(k[len("translation_"):] for k in tasks if k.startswith("translation_"))
    task = "translation_%s_to_%s" % (args.source_lang, args.target_lang)
    if task not in tasks or not isinstance(tasks[task], dict) or "prefix" not in tasks[task]:
        raise ConversionError(inputs["config_path"], "has no task %r in task_specific_params; "
                                                     "its translations are: %s"
                              % (task, ", ".join(known) or "none"))
    import sentencepiece
    processor = sentencepiece.SentencePieceProcessor(model_proto=data)
    text = str(tasks[task]["prefix"])
    notes.append("source prefix %r (task_specific_params %s)" % (text, task))
    return processor.encode(text.rstrip())


def convert(args):
    output.check_paths(args.hf_dir, args.out_dir, args.force)
    if args.drop_missing_pieces:
        raise ConversionError(args.hf_dir, "--drop-missing-pieces applies to Marian's unigram "
                                           "models only: without the pieces a BPE model cuts "
                                           "text differently, and M2M100Tokenizer reads them as "
                                           "<unk>, as the converter does by default")
    inputs = {"config_path": os.path.join(args.hf_dir, "config.json"),
              "tokenizer_path": os.path.join(args.hf_dir, "tokenizer_config.json")}
    inputs["config"] = _read_object(inputs["config_path"], True)
    inputs["tokenizer"] = _read_object(inputs["tokenizer_path"], False)
    inputs["generation_path"] = os.path.join(args.hf_dir, "generation_config.json")
    inputs["generation"] = _read_object(inputs["generation_path"], False)
    notes = []
    if inputs["config"].get("model_type") == "t5":
        config, tensors, spm = _t5(args, inputs, notes)
    else:
        config, tensors, spm = _fairseq(args, inputs, notes)
    stage = output.StagedDirectory(args.out_dir, args.force)
    try:
        with open(stage.file("tokenizer.spm"), "wb") as f:
            f.write(spm)
        output.write_weights_and_config(stage, tensors, config, args)
        stage.commit()
    except BaseException:
        stage.abandon()
        raise
    return notes
