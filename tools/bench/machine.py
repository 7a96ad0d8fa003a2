"""The machine a bench run measures: CPU, memory, OpenBLAS core, commit, load, model sizes."""
import datetime
import os
import platform
import subprocess

from child_runs import PYTHON, ROOT


def machine_info(minimt, model):
    info = {"date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
            "cpu": "unknown", "cores": os.cpu_count(), "kernel": platform.release()}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in lscpu.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Model name":
                info["cpu"] = value.strip()
            if key.strip() == "L3 cache":
                info["l3"] = value.strip()
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            info["memory_gb"] = round(int(f.readline().split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        out = subprocess.run([minimt, "info", "-m", model], capture_output=True, text=True,
                             cwd=ROOT).stdout
        for line in out.splitlines():
            if line.startswith("blas core"):
                info["blas_core"] = line[len("blas core"):].strip()
            if line.startswith("linear layers"):
                info["linear_layers"] = line[len("linear layers"):].strip()
    except OSError:
        pass
    try:
        info["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        info["worktree"] = "modified" if dirty else "clean"
    except OSError:
        pass
    info["torch"] = subprocess.run(
        [PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True,
        text=True).stdout.strip()
    return info


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return float("nan")


def model_bytes(model_dir):
    """Bytes of every file of the model directory (config, weights, tokenizers)."""
    total = 0
    for name in os.listdir(model_dir):
        path = os.path.join(model_dir, name)
        if os.path.isfile(path):
            total += os.path.getsize(path)
    return total
