"""Run a process as if on an x86-64 CPU with AVX2 alone (no AVX-512, no VNNI), whatever
this machine's CPU has: ``cpuid_avx2.c`` beside this file, built with the C compiler and
loaded with ``LD_PRELOAD``.  ``python -m tests.support.cpu`` builds it and prints its
path (``./dev test`` does so when ``MEMOIR_CPU=avx2``)."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_name("cpuid_avx2.c")
#: What a process under the library prints for the features numpy found.
PROBE = ("import numpy._core._multiarray_umath as m; f = m.__cpu_features__; "
         "print(int(f['AVX2']), int(f['AVX512F']), int(f['AVX512VNNI']))")


def build(folder: Path | None = None) -> Path | None:
    """The shared library, built into ``folder`` (a new temporary one by default), or
    None where it cannot be made here: not Linux on x86-64, or no C compiler."""
    if sys.platform != "linux" or platform.machine() not in {"x86_64", "AMD64"}:
        return None
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    folder = folder or Path(tempfile.mkdtemp(prefix="memoir-cpu-"))
    target = folder / "cpuid_avx2.so"
    # Not under the library itself: the compiler sets a SIGSEGV handler of its own, which
    # would take the trapped CPUID instructions (so does Python's faulthandler: pytest
    # runs under it with ``-p no:faulthandler``).
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(target), str(SOURCE)],
                   check=True, capture_output=True, env=env)
    return target


if __name__ == "__main__":
    built = build()
    if built is None:
        sys.exit("tests.support.cpu: needs Linux on x86-64 and a C compiler")
    print(built)
