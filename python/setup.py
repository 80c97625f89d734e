"""Build hooks of the spvjit package (metadata: pyproject.toml).

The version is the C API's (lib/spvjit.h, mirrored in spvjit/_cdef.py, which
tests keep equal).  The library is bundled as spvjit/libspvjit.so.0 when one is
found: $SPVJIT_LIBRARY, else the source tree's build/libspvjit.so (run `make`
first).  Without it the package still installs and loads libspvjit.so.0 from
the dynamic linker's path at import (see spvjit/_native.py).
"""

import os
import re
import shutil

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(HERE, "spvjit", "_cdef.py")) as f:
        text = f.read()
    parts = [re.search(r"#define SPVJIT_VERSION_%s (\d+)" % p, text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def built_library():
    env = os.environ.get("SPVJIT_LIBRARY")
    for path in ([env] if env else []) + [os.path.join(os.path.dirname(HERE), "build", "libspvjit.so")]:
        if os.path.isfile(path):
            return os.path.realpath(path)
    return None


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        lib = built_library()
        if lib is None:
            print("spvjit: no built libspvjit.so found (run `make` first to bundle it); "
                  "the package will load libspvjit.so.0 from the system at import")
            return
        dest = os.path.join(self.build_lib, "spvjit", "libspvjit.so.0")
        self.mkpath(os.path.dirname(dest))
        shutil.copyfile(lib, dest)
        os.chmod(dest, 0o755)
        print("spvjit: bundled %s" % lib)


class Distribution_(Distribution):
    """With the library bundled the wheel is specific to this platform."""

    def has_ext_modules(self):
        return built_library() is not None


setup(version=version(), cmdclass={"build_py": BuildPyWithLibrary}, distclass=Distribution_)
