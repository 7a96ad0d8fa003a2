#!/usr/bin/python3
"""The former name of tools/convert_hf.py, which converts Marian (OPUS-MT) models as before
and the other families too: same arguments, same output."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import convert_hf  # noqa: E402

if __name__ == "__main__":
    sys.exit(convert_hf.main(prog="convert_marian.py"))
