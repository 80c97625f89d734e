"""`make install PREFIX=...` into a temporary prefix: the command, the man page
(with the version), the bash completion and the Python package, which
/usr/bin/python3 imports from the installed site directory and which runs a
kernel through the installed library (checked against numpy)."""

import os
import subprocess

import numpy as np

ROOT = os.environ.get("SPVJIT_SRC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SPVJIT_BIN") or os.path.join(ROOT, "build", "spvjit")
SAN = os.path.basename(os.path.dirname(os.path.realpath(BIN))) == "san"


def test_make_install(tmp_path):
    prefix = tmp_path / "prefix"
    # a make started by the test runner's make must not inherit its jobserver
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    p = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "install", "PREFIX=%s" % prefix,
                        "SAN=%d" % SAN], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    version = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.split()[1]
    for rel in ("bin/spvjit", "include/spvjit.h", "lib/libspvjit.so.0", "lib/pkgconfig/spvjit.pc",
                "share/man/man1/spvjit.1", "share/bash-completion/completions/spvjit"):
        assert (prefix / rel).exists(), rel
    man = (prefix / "share/man/man1/spvjit.1").read_text()
    assert '"spvjit %s"' % version in man and "@VERSION@" not in man
    site = next(prefix.glob("lib/python3*/dist-packages"))
    assert (site / "spvjit" / "__init__.py").exists()

    script = """
import numpy as np, spvjit
print(spvjit.library_path)
n = 1000
x = np.arange(n, dtype=np.float32)
y = np.ones(n, np.float32)
spvjit.Module(%r).kernel(specs={0: 0.5})(groups=(n + 63) // 64, buffers={(0, 0): x, (0, 1): y}, push=np.uint32(n))
np.save(%r, y)
""" % (os.path.join(ROOT, "testdata", "kernels", "saxpy.comp.spv"), str(tmp_path / "y.npy"))
    penv = dict(env, PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path / "cache"))
    penv.pop("SPVJIT_LIBRARY", None)
    if SAN:  # the installed library is the sanitizer build (see test_python.c)
        rt = [subprocess.run(["cc", "-print-file-name=lib%s.so" % r], capture_output=True, text=True).stdout.strip()
              for r in ("asan", "ubsan")]
        penv.update(LD_PRELOAD=" ".join(rt), ASAN_OPTIONS="detect_leaks=0")
    p = subprocess.run(["/usr/bin/python3", "-c", script], capture_output=True, text=True, env=penv, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(site / "spvjit" / "libspvjit.so.0")  # the installed library, not the tree's
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), 0.5 * np.arange(1000, dtype=np.float32) + 1, rtol=1e-6)
