"""The PyTorch reference of minimt: what the tests check the C++ engine against, written to be
read top to bottom beside docs/model-format.md (format v1) and docs/search.md.

1. model/: the format-v1 Transformer, one file a part of docs/model-format.md
     config.py      config.json: defaults, checks, head_dim, the start token
     positions.py   sinusoidal (interleaved) and learned position tables
     norms.py       LayerNorm and its place: post LN(x + f(x)), pre x + f(LN(x))
     attention.py   multi-head attention: per-head Q/K/V slices, W_O, causal and padding
                    masks on the scores before the softmax, head masks
     layers.py      encoder and decoder layers (self-attention, cross-attention, feed-forward)
     stack.py       embeddings + positions, the layers, a pre-norm stack's final LayerNorm
     transformer.py MinimtTransformer: encode, decode, logits, head masks, cached steps
     kv_cache.py    the K/V caches of a cached search
     files.py       config.json and weights (safetensors or inline) read and written
2. search/: searches over the model
     greedy.py (recording and fast), beam.py, scoring.py, sampling.py, batched_beam.py (fast)
3. marian/: Hugging Face's MarianMTModel and MarianTokenizer, on a Hugging Face directory
4. Text in and out, as minimt's commands see it:
     translator.py (Translator), attention_dump.py, head_mask_spec.py (--mask-heads SPEC)
5. For tests and benchmarks: random_model.py and sample_text.py (random model directories),
   threads.py and step_timing.py (reference.py bench-steps)

The command lines are beside this package: reference.py (translate, beam, score, distribution,
random-model, bench-steps), beam_fast.py, marian_reference.py. Callers put tools/reference on
sys.path and import from here (from pytorch_reference.model.files import load_model).
"""
import os
import sys

# The safetensors reader and writer are shared with the Marian converter (tools/common).
_COMMON = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(
    __file__)))), "common")
if _COMMON not in sys.path:
    sys.path.insert(0, _COMMON)
