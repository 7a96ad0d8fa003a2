"""A PyTorch implementation of Hugging Face's MarianMTModel and MarianTokenizer, written from the
transformers source (models/marian/modeling_marian.py, tokenization_marian.py; for the 3.x
pre-norm keys, models/bart/modeling_bart.py of transformers 3.x). transformers is not installed
here: this is what tests/marian compares minimt's converted models against.

It reads a Hugging Face model directory as it is (not a converted one): config.json,
generation_config.json, tokenizer_config.json, model.safetensors or pytorch_model.bin,
source.spm, target.spm, vocab.json (target_vocab.json with separate vocabularies).

    hf_files.py    the directory's JSON files and its state dict
    tokenizer.py   MarianTokenizerRef
    model.py       MarianRef (the forward pass and greedy search), translate()

Its attention, positions and norm placement are in ../model (attention.scaled_query_attention,
positions.sinusoidal_halves, norms.residual), beside minimt's own.
"""
