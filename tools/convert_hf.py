#!/usr/bin/python3
"""Converts a Hugging Face translator directory into a minimt model directory.

  tools/convert_hf.py HF_DIR OUT_DIR [--source-lang CODE] [--target-lang CODE]
                      [--dtype F32|F16|BF16] [--drop-missing-pieces] [--force] [--quiet]

Families (config.json's model_type): Marian / OPUS-MT ("marian", format 1, or 2 when
SentencePiece pieces that vocab.json lacks are read as <unk>), mBART-50 ("mbart"), M2M100
and NLLB ("m2m_100"; NLLB by its tokenizer) and T5 ("t5", the original and v1.1 / FLAN-T5),
format 2. HF_DIR is the directory as the Hugging Face hub ships it: config.json,
model.safetensors or pytorch_model.bin, the family's tokenizer files, tokenizer_config.json
and generation_config.json where present. Language codes (mBART-50, M2M100, NLLB) become the
source prefix and the forced first target token; T5 takes --source-lang/--target-lang as a
task of its config's task_specific_params. docs/models.md says what is converted, what is
refused and what was tested.

Exit status: 0 converted, 1 refused or failed (one line on stderr naming the file and the
key or tensor), 2 usage.

HF_DIR is read as minimt reads a model directory (docs/robustness.md, "The Hugging Face
converter"): regular files inside it only, each kind of file capped in size, strict JSON,
every config number range-checked; OUT_DIR is never a symbolic link followed or replaced, and
a conversion that fails or is interrupted leaves nothing behind.
"""
import argparse
import os
import re
import signal
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
for folder in ("common", "marian", "hf"):
    sys.path.insert(0, os.path.join(TOOLS, folder))

from errors import ConversionError  # noqa: E402
from ignored_tensors import ConverterWarning  # noqa: E402
from input_files import InputFileError  # noqa: E402
from safetensors_file import SafetensorsError  # noqa: E402

FAMILIES = ("marian", "mbart", "m2m_100", "t5")


def model_type(hf_dir):
    import hf_files
    path = os.path.join(hf_dir, "config.json")
    config = hf_files.read_json(path)
    if not isinstance(config, dict):
        raise ConversionError(path, "must hold a JSON object")
    kind = config.get("model_type")
    if kind not in FAMILIES:
        raise ConversionError(path, "key 'model_type' is %r; converted are %s"
                              % (kind, ", ".join(FAMILIES)))
    return kind


def convert(args):
    import output
    output.check_paths(args.hf_dir, args.out_dir, args.force)  # before anything is read
    if model_type(args.hf_dir) == "marian":
        if args.source_lang or args.target_lang:
            raise ConversionError(args.hf_dir, "--source-lang/--target-lang do not apply to a "
                                               "Marian model (write a >>xx<< code in the text)")
        import convert as marian
        return marian.convert(args)
    import convert_family
    return convert_family.convert(args)


def main(argv=None, prog=None):
    prog = prog or os.path.basename(sys.argv[0])
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hf_dir", metavar="HF_DIR")
    ap.add_argument("out_dir", metavar="OUT_DIR")
    ap.add_argument("--source-lang", metavar="CODE", help="source language code")
    ap.add_argument("--target-lang", metavar="CODE", help="target language code")
    ap.add_argument("--dtype", default="F32", choices=["F32", "F16", "BF16"],
                    help="weights in OUT_DIR (default F32; minimt widens F16/BF16 at load)")
    ap.add_argument("--drop-missing-pieces", action="store_true",
                    help="Marian: remove SentencePiece pieces that vocab.json lacks (default: "
                         "read them as <unk>, as MarianTokenizer does)")
    ap.add_argument("--force", action="store_true", help="replace a non-empty OUT_DIR")
    ap.add_argument("--quiet", action="store_true", help="no notes on stderr")
    args = ap.parse_args(argv)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _interrupted)
    try:
        notes = convert(args)
    except (ConversionError, InputFileError, SafetensorsError) as e:
        return _fail(prog, str(e))
    except OSError as e:  # writing OUT_DIR, mostly: name the file the system call named
        return _fail(prog, "%s: %s" % (e.filename or args.out_dir, e.strerror or e))
    except MemoryError:
        return _fail(prog, "%s: out of memory while converting it" % args.hf_dir)
    except RecursionError:
        return _fail(prog, "%s: nests too deep to convert" % args.hf_dir)
    except KeyboardInterrupt:
        return _fail(prog, "%s: interrupted; %s was not written" % (args.hf_dir, args.out_dir),
                     130)
    except Exception as e:  # a bug, or an input no check foresaw: still one line
        return _fail(prog, "%s: internal error (%s: %s)" % (args.hf_dir, type(e).__name__, e))
    for note in notes:  # a warning (ConverterWarning) shows even with --quiet
        if isinstance(note, ConverterWarning):
            print("warning: %s" % _one_line(note), file=sys.stderr)
        elif not args.quiet:
            print("note: %s" % note, file=sys.stderr)
    if not args.quiet:
        print("converted %s -> %s" % (args.hf_dir, args.out_dir), file=sys.stderr)
    return 0


def _interrupted(number, frame):
    raise KeyboardInterrupt  # unwinds through the staging folder's removal


def _one_line(message, limit=2000):
    """The message as one line of printable text: line breaks become spaces, other control
    characters (ESC, DEL, C1) \\xNN escapes, and at most `limit` characters."""
    message = re.sub(r"\s*[\r\n]+\s*", " ", message.strip())
    message = re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda m: "\\x%02x" % ord(m.group()), message)
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return message if len(message) <= limit else message[:limit] + "..."


def _fail(prog, message, status=1):
    print("%s: %s" % (prog, _one_line(message)), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
