"""The converted model directory is staged beside OUT_DIR and replaces it only when complete
(model.safetensors itself is written by tools/common/safetensors_file.py)."""
import json
import os
import shutil
import tempfile

import safetensors_file


def check_paths(hf_dir, out_dir):
    """OUT_DIR must not be HF_DIR or hold it: the conversion would replace its own input."""
    hf, out = os.path.realpath(hf_dir), os.path.realpath(out_dir)
    if hf == out or hf.startswith(out + os.sep):
        raise FileExistsError("%s: would replace the model being converted (%s)"
                              % (out_dir, hf_dir))


class StagedDirectory:
    """Files are written to a fresh directory beside OUT_DIR, which replaces OUT_DIR only
    when everything is written: a failed conversion leaves no half model behind."""

    def __init__(self, out_dir, force):
        self.out_dir = os.path.abspath(out_dir)
        if os.path.exists(self.out_dir) and not force and os.listdir(self.out_dir):
            raise FileExistsError("%s exists and is not empty (--force replaces it)" % out_dir)
        parent = os.path.dirname(self.out_dir)
        os.makedirs(parent, exist_ok=True)
        self.path = tempfile.mkdtemp(prefix=".convert-", dir=parent)

    def file(self, name):
        return os.path.join(self.path, name)

    def commit(self):
        os.chmod(self.path, 0o755)
        if os.path.exists(self.out_dir):
            shutil.rmtree(self.out_dir)
        os.rename(self.path, self.out_dir)

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
