"""bench/report.py --from, the benchmark's re-report: it writes OUT.csv and
OUT.json beside the file it reads (or where --out says), never over
bench/results/latest.* (the committed run the README quotes), and its CSV
holds one row per result line of the file."""

import csv
import hashlib
import os
import shutil
import subprocess
import sys

ROOT = os.environ.get("SPVJIT_SRC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.path.join(ROOT, "bench", "report.py")
LATEST = os.path.join(ROOT, "bench", "results", "latest")


def digests():
    out = {}
    for ext in ("txt", "csv", "json", "png"):
        path = "%s.%s" % (LATEST, ext)
        if os.path.exists(path):
            with open(path, "rb") as f:
                out[ext] = hashlib.sha256(f.read()).hexdigest()
    return out


def result_lines(path):
    with open(path) as f:
        return [ln for ln in f.read().splitlines() if ln.strip() and not ln.startswith("#")]


def report(*args):
    p = subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_re_report_writes_beside_its_file(tmp_path):
    before = digests()
    assert "txt" in before, "bench/results/latest.txt is committed"
    run = tmp_path / "run.txt"
    shutil.copy(LATEST + ".txt", run)
    text = report("--from", str(run))
    assert "compile latency" in text
    with open(tmp_path / "run.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(result_lines(run))
    assert (tmp_path / "run.json").exists()
    elsewhere = tmp_path / "other" / "x"
    report("--from", str(run), "--out", str(elsewhere))
    assert (tmp_path / "other" / "x.csv").exists() and (tmp_path / "other" / "x.txt").exists()
    report("--from", str(run), "--markdown")
    assert digests() == before, "a re-report wrote over bench/results/latest.*"
