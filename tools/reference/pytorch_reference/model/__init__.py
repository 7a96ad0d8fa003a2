"""Format v1's encoder-decoder Transformer (docs/model-format.md); ../__init__.py gives the
reading order of its files."""
