"""Shared paths and helpers of the Python package's tests.

The tests import the package from this source tree (python/) and the library
from $SPVJIT_LIBRARY when set (`make test` sets it), else build/libspvjit.so."""

import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_ROOT = os.environ.get("SPVJIT_SRC_ROOT") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

KERNELS = os.path.join(SRC_ROOT, "testdata", "kernels")


def kernel_path(name):
    return os.path.join(KERNELS, name)


def glsl(tmp_path, source, name="k.comp"):
    """Compiles GLSL compute source with glslangValidator into a .spv path."""
    exe = shutil.which("glslangValidator")
    if exe is None:
        pytest.fail("glslangValidator (Debian glslang-tools) is needed")
    src = tmp_path / name
    src.write_text(source)
    out = tmp_path / (name + ".spv")
    subprocess.run([exe, "-V", "--target-env", "vulkan1.1", "-o", str(out), str(src)], check=True,
                   capture_output=True)
    return str(out)


@pytest.fixture(scope="session")
def ctx():
    """A context without the disk cache, so compile statistics are this process's."""
    import spvjit

    return spvjit.Context(disk_cache_dir="")
