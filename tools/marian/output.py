"""The converted model directory is staged beside OUT_DIR and replaces it only when complete
(model.safetensors itself is written by tools/common/safetensors_file.py)."""
import os
import shutil
import tempfile


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
