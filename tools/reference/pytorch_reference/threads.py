"""Thread counts for timed runs: torch's and the BLAS library's under it."""
import ctypes
import os

import torch


def set_threads(threads):
    """torch.set_num_threads(threads), and the same for the BLAS library under torch.

    Debian's torch runs its matrix products in the system OpenBLAS (pthread build), which
    torch.set_num_threads does not reach: left alone, OpenBLAS uses every core in each
    product, and under torch's own threads it oversubscribes the machine."""
    torch.set_num_threads(threads)
    for name in ("libopenblas.so.0", "libopenblasp.so.0", "libblas.so.3"):
        try:
            setter = getattr(ctypes.CDLL(name, mode=os.RTLD_NOLOAD), "openblas_set_num_threads")
        except (OSError, AttributeError):
            continue
        setter(ctypes.c_int(threads))
        return
