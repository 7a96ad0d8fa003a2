"""The converted model directory is staged beside OUT_DIR and replaces it only when complete
(model.safetensors itself is written by tools/common/safetensors_file.py).

OUT_DIR is never followed or removed when it is a symbolic link or not a directory: both are
refused, naming the path, before anything is read. A failed or interrupted conversion leaves
neither a half model nor its staging folder behind; with --force, the old OUT_DIR is moved
aside, the new one renamed into place, and only then the old one removed."""
import json
import os
import shutil
import stat
import tempfile

import safetensors_file
from errors import ConversionError


def check_out(out_dir, force):
    """OUT_DIR: absent, or a real (not linked) directory that is empty or --force'd."""
    try:
        info = os.lstat(out_dir)
    except FileNotFoundError:
        return
    except OSError as e:
        raise ConversionError(out_dir, "cannot be examined (%s)" % (e.strerror or e))
    if stat.S_ISLNK(info.st_mode):
        raise ConversionError(out_dir, "is a symbolic link (to %s); the converter neither "
                                       "follows nor replaces one: name a directory"
                              % os.readlink(out_dir))
    if not stat.S_ISDIR(info.st_mode):
        raise ConversionError(out_dir, "exists and is not a directory; the converter does not "
                                       "replace it")
    if not force and os.listdir(out_dir):
        raise ConversionError(out_dir, "exists and is not empty (--force replaces it)")


def check_paths(hf_dir, out_dir, force=False):
    """OUT_DIR must not be HF_DIR or hold it: the conversion would replace its own input."""
    check_out(out_dir, force)
    hf, out = os.path.realpath(hf_dir), os.path.realpath(out_dir)
    if hf == out or hf.startswith(out + os.sep):
        raise ConversionError(out_dir, "would replace the model being converted (%s)" % hf_dir)


class StagedDirectory:
    """Files are written to a fresh directory beside OUT_DIR, which replaces OUT_DIR only
    when everything is written: a failed conversion leaves no half model behind."""

    def __init__(self, out_dir, force):
        check_out(out_dir, force)
        self.out_dir, self.force = os.path.abspath(out_dir), force
        parent = os.path.dirname(self.out_dir)
        os.makedirs(parent, exist_ok=True)
        self.path = tempfile.mkdtemp(prefix=".convert-", dir=parent)

    def file(self, name):
        return os.path.join(self.path, name)

    def commit(self):
        check_out(self.out_dir, self.force)  # again: it may have changed while we read
        os.chmod(self.path, 0o755)
        old = None
        if os.path.lexists(self.out_dir):
            old = tempfile.mkdtemp(prefix=".convert-old-", dir=os.path.dirname(self.out_dir))
            os.rename(self.out_dir, os.path.join(old, "model"))
        try:
            os.rename(self.path, self.out_dir)
        except BaseException:
            if old:
                os.rename(os.path.join(old, "model"), self.out_dir)
                os.rmdir(old)
            raise
        if old:
            shutil.rmtree(old, ignore_errors=True)

    def abandon(self):
        shutil.rmtree(self.path, ignore_errors=True)


def write_weights_and_config(stage, tensors, config, args):
    """model.safetensors (final_logits_bias kept F32: -1e9 does not fit F16) and config.json."""
    safetensors_file.write_safetensors(
        stage.file("model.safetensors"), tensors, args.dtype, keep_f32={"final_logits_bias"},
        metadata={"converted_from": os.path.abspath(args.hf_dir),
                  "converter": "tools/convert_hf.py"})
    with open(stage.file("config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1)
        f.write("\n")
