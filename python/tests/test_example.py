"""examples/mm_sweep.py, the specialization sweep, in its table mode: every
block size specialized and not, results checked against numpy by the script
(its exit status) and the table's error column checked here."""

import os
import subprocess
import sys

from conftest import SRC_ROOT


def test_mm_sweep_table():
    script = os.path.join(SRC_ROOT, "examples", "mm_sweep.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(SRC_ROOT, "python"))
    p = subprocess.run([sys.executable, script, "--table", "--n", "72", "--sizes", "4,8,16", "--repeat", "2"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = [line.split() for line in p.stdout.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
    assert [(int(r[0]), r[1]) for r in rows] == [(bs, kind) for bs in (4, 8, 16)
                                                  for kind in ("specialized", "unspecialized")], p.stdout
    for r in rows:
        compile_ms, dispatch_ms, gflops, err = map(float, r[2:])
        assert compile_ms > 0 and dispatch_ms > 0 and gflops > 0 and err < 1e-4 * 72, r
    assert "matplotlib" not in p.stdout and "plot:" not in p.stdout  # --table: no plot attempted
    assert p.stdout.count("specializing is") == 3
