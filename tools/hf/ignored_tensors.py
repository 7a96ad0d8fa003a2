"""Tensors a published checkpoint holds that its model never uses, and that transformers leaves
out on load without complaint (the classes' _keys_to_ignore_on_load_unexpected, and the
fairseq `version` buffers of _keys_to_ignore_on_load_missing when a checkpoint has them):

  T5            decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight
                (t5-small, t5-base: cross-attention has no position bias, the tensor is unread)
  M2M100, NLLB  model.{encoder,decoder}.version (fairseq's format number)
  mBART, Marian model.{encoder,decoder}.version

The converter leaves them out too, each named in one warning line (never silently); any other
tensor the format cannot hold is still refused. M2M100's stored sinusoidal tables
(model.*.embed_positions.weights) are compared with the computed ones in fairseq_family.py.
"""
import re

PATTERNS = {
    "t5": [r"decoder\.block\.0\.layer\.1\.EncDecAttention\.relative_attention_bias\.weight"],
    "m2m_100": [r"model\.(encoder|decoder)\.version"],
    "mbart": [r"model\.(encoder|decoder)\.version"],
    "marian": [r"model\.(encoder|decoder)\.version"],
}

MODEL_CLASSES = {"t5": "T5ForConditionalGeneration", "m2m_100": "M2M100ForConditionalGeneration",
                 "mbart": "MBartForConditionalGeneration", "marian": "MarianMTModel"}


class ConverterWarning(str):
    """A message the converter prints as 'warning: ...', even with --quiet."""


def leave_out(family, tensors, path):
    """Removes the tensors transformers ignores from `tensors`; -> one ConverterWarning per tensor."""
    warnings = []
    for name in sorted(tensors):
        if any(re.fullmatch(p, name) for p in PATTERNS.get(family, [])):
            shape = list(getattr(tensors[name], "shape", []))
            del tensors[name]
            warnings.append(ConverterWarning(
                "%s: tensor %s %s is left out: %s never reads it (transformers ignores it on "
                "load)" % (path, name, shape, MODEL_CLASSES[family])))
    return warnings
