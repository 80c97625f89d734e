#!/usr/bin/python3
"""Runs the compute-only Amber scripts of public conformance suites through
`spvjit amber` and prints pass / fail / skip tables.

    bench/conformance.py --vkcts ~/src/VK-GL-CTS --amber ~/src/amber [-j 2] [--markdown]

Each suite is given as the path of a checkout (or of its script directory):
  --vkcts   VK-GL-CTS: scripts under external/vulkancts/data/vulkan/amber/
  --amber   google/amber: scripts under tests/cases/
  --piglit  piglit: the OpenCL C program tests under tests/cl/program/execute/,
            translated into Amber scripts in a temporary directory by
            bench/piglit_amber.py (one script per piglit file; the files it
            cannot translate are listed as skips with the reason)
Nothing is copied: the scripts are run where they are.

Which scripts count ("compute-only"), decided from the script text alone:
  * AmberScript (`#!amber`): at least one `PIPELINE compute` and no
    `PIPELINE graphics` / `PIPELINE raytracing`.
  * VkScript (anything else ending in .amber or .vkscript): a
    `[compute shader ...]` section and no other shader section
    (`[vertex shader]`, `[fragment shader]`, ...).
Among those, two groups are counted apart from the goal:
  * "not a test": a template (NOT_TESTS below).
  * "images": the script declares an IMAGE or SAMPLER, binds a SAMPLER, or
    binds a buffer AS storage_image / sampled_image / combined_image_sampler /
    uniform_texel_buffer / storage_texel_buffer (spvjit runs no images).
Everything else is "goal": the scripts the conformance goal is measured on.

`spvjit amber -j N --timeout S --json FILE` runs them (one process per
script: a crash or hang is that script's result).  The kernel cache is a
fresh temporary directory unless --cache-dir is given, so the wall time is
that of a cold run.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SUITES = {
    "vkcts": "external/vulkancts/data/vulkan/amber",
    "amber": "tests/cases",
}

# Files that look like compute scripts but are not tests, with the reason.
NOT_TESTS = [
    ("vkcts", "ldexp/template.amber",
     "the template ldexp/gen_shaders.py fills in: its statements are {placeholders}"),
]

IMAGE_RE = re.compile(
    r"^\s*(IMAGE|SAMPLER)\b|^\s*BIND\s+SAMPLER|"
    r"\bAS\s+(storage_image|sampled_image|combined_image_sampler|uniform_texel_buffer|storage_texel_buffer)\b",
    re.M)


def classify_text(text):
    """'compute', 'other' for a script text (the rule in the module docstring)."""
    if text.lstrip().startswith("#!amber"):
        compute = re.search(r"^\s*PIPELINE\s+compute\b", text, re.M)
        other = re.search(r"^\s*PIPELINE\s+(graphics|raytracing)\b", text, re.M)
    else:
        compute = re.search(r"^\s*\[compute shader[^\]]*\]", text, re.M)
        other = re.search(r"^\s*\[(?!compute shader)[^\]]*shader[^\]]*\]", text, re.M)
    return "compute" if compute and not other else "other"


def script_dir(kind, path):
    sub = os.path.join(path, SUITES[kind])
    return sub if os.path.isdir(sub) else path


def select(kind, base):
    """[(path, rel, group)] of the compute-only scripts under base."""
    out = []
    for d, dirs, files in os.walk(base):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".amber", ".vkscript")):
                continue
            p = os.path.join(d, f)
            with open(p, errors="replace") as fh:
                text = fh.read()
            if classify_text(text) != "compute":
                continue
            rel = os.path.relpath(p, base)
            if any(k == kind and rel == path for k, path, _ in NOT_TESTS):
                group = "not a test"
            elif IMAGE_RE.search(text):
                group = "images"
            else:
                group = "goal"
            out.append((p, rel, group))
    return out


def normalize(msg):
    """A failure message with what varies per script taken out."""
    m = re.sub(r"^\S+?\.(amber|vkscript):\d+:\s*", "", msg)
    m = re.sub(r"/\S+/", "", m)
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r'"[^"]*"', '"…"', m)
    m = re.sub(r"\b(shader|BUFFER|buffer|EXPECT|PIPELINE|entry point|pipeline) [A-Za-z_][\w.]*", r"\1 X", m)
    m = re.sub(r"0x[0-9a-fA-F]+", "N", m)
    m = re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "N", m)
    m = re.sub(r"\s+", " ", m).strip()
    return m[:110]


def table(rows, header, markdown):
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    numeric = [all(isinstance(r[i], int) for r in rows) for i in range(len(header))]
    lines = []
    if markdown:
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---:" if numeric[i] else "---" for i in range(len(header))) + "|")
        for r in rows:
            lines.append("| " + " | ".join(str(c) for c in r) + " |")
    else:
        fmt = "  ".join("{:>%d}" % w if numeric[i] else "{:<%d}" % w for i, w in enumerate(widths))
        lines.append(fmt.format(*header))
        for r in rows:
            lines.append(fmt.format(*[str(c) for c in r]))
    return "\n".join(lines)


STATUSES = ["pass", "fail", "skip", "crash", "timeout"]


def count_rows(results, key):
    agg = collections.OrderedDict()
    for r in results:
        c = agg.setdefault(key(r), collections.Counter())
        c[r["status"]] += 1
    rows = []
    for k in sorted(agg):
        c = agg[k]
        rows.append([k] + [c[s] for s in STATUSES] + [sum(c.values())])
    return rows


def dir_key(r, depth):
    parts = r["rel"].split("/")[:-1]
    return r["suite"] + "/" + ("/".join(parts[:depth]) if parts else ".")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vkcts", help="VK-GL-CTS checkout (or its external/vulkancts/data/vulkan/amber)")
    ap.add_argument("--amber", help="google/amber checkout (or its tests/cases)")
    ap.add_argument("--piglit", help="piglit checkout (or its tests/cl/program/execute): its OpenCL program tests, "
                    "translated into Amber by bench/piglit_amber.py")
    ap.add_argument("--spvjit", default=os.path.join(ROOT, "build", "spvjit"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per script (default 60)")
    ap.add_argument("--depth", type=int, default=2, help="directory levels in the table (default 2)")
    ap.add_argument("--cache-dir", help="kernel cache (XDG_CACHE_HOME); default: a fresh temporary one")
    ap.add_argument("--json", help="also write spvjit's per-script JSON records (with group and suite) here")
    ap.add_argument("--markdown", action="store_true", help="tables in Markdown")
    ap.add_argument("--list", action="store_true", help="only list the selected scripts with their group")
    ap.add_argument("--show", default="fail,crash,timeout",
                    help="statuses whose scripts are listed one per line (default fail,crash,timeout; '' for none)")
    a = ap.parse_args()
    if not a.vkcts and not a.amber and not a.piglit:
        ap.error("give --vkcts, --amber and/or --piglit")

    scripts = []
    for kind in ("vkcts", "amber"):
        path = getattr(a, kind)
        if not path:
            continue
        base = script_dir(kind, os.path.abspath(path))
        if not os.path.isdir(base):
            sys.exit(f"conformance.py: {path}: not a directory")
        sel = select(kind, base)
        scripts += [dict(path=p, rel=rel, group=g, suite=kind) for p, rel, g in sel]
    tmp_obj = tempfile.TemporaryDirectory(prefix="spvjit-conformance-")
    tmp = tmp_obj.name
    if a.piglit:
        outdir = os.path.join(tmp, "piglit")
        g = subprocess.run([sys.executable, os.path.join(HERE, "piglit_amber.py"), a.piglit, outdir],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if g.returncode:
            sys.exit(f"conformance.py: piglit_amber.py failed: {g.stdout.strip()}")
        for f in sorted(os.listdir(outdir)):
            if f.endswith(".amber"):
                rel = f.replace("__", "/")[: -len(".amber")]  # the piglit file it came from
                scripts.append(dict(path=os.path.join(outdir, f), rel=rel, group="goal", suite="piglit"))
        with open(os.path.join(outdir, "SKIPPED.txt")) as fh:
            for line in fh:
                rel, why = line.rstrip("\n").split("\t", 1)
                scripts.append(dict(path=None, rel=rel, group="not translated", suite="piglit", why=why))
    if a.list:
        for s in scripts:
            print(f"{s['group']:<14} {s['suite']}/{s['rel']}")
        return 0
    if not scripts:
        sys.exit("conformance.py: no compute-only scripts found")

    out_json = os.path.join(tmp, "results.json")
    env = dict(os.environ, XDG_CACHE_HOME=a.cache_dir or os.path.join(tmp, "cache"))
    cmd = [a.spvjit, "amber", "-q", "-j", str(a.jobs), "--timeout", str(a.timeout), "--json", out_json]
    wall = {}
    res = {"scripts": []}
    for suite in ("vkcts", "amber", "piglit"):  # one run per suite, timed apart
        paths = [s["path"] for s in scripts if s["suite"] == suite and s["path"]]
        if not paths:
            continue
        t0 = time.monotonic()
        p = subprocess.run(cmd + ["--"] + paths, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, errors="replace")
        wall[suite] = time.monotonic() - t0
        if not os.path.exists(out_json):
            sys.exit(f"conformance.py: spvjit amber wrote no results (exit {p.returncode}): {p.stderr.strip()[-2000:]}")
        with open(out_json) as f:
            res["scripts"] += json.load(f)["scripts"]
        os.remove(out_json)
    tmp_obj.cleanup()
    by_path = {r["script"]: r for r in res["scripts"]}
    results = []
    for s in scripts:
        if s["path"] is None:
            results.append(dict(s, status="skip", message=f"not translated: {s['why']}", time=0))
            continue
        r = by_path.get(s["path"])
        if r is None:
            r = dict(status="crash", message="no result (the run was cut short)", time=0)
        results.append(dict(s, status=r["status"], message=r.get("message", ""), time=r.get("time", 0)))

    md = a.markdown
    times = ", ".join(f"{k} {v:.1f} s" for k, v in wall.items())
    print(f"# spvjit amber, compute-only scripts ({len(results)}), "
          f"-j {a.jobs}, timeout {a.timeout:g} s, cold kernel cache: wall time {times}\n")
    print(table(count_rows(results, lambda r: f"{r['suite']}: {r['group']}"),
                ["suite: group"] + STATUSES + ["total"], md))
    print()
    print(table(count_rows(results, lambda r: dir_key(r, a.depth)), ["directory"] + STATUSES + ["total"], md))
    for status in ("fail", "crash", "timeout", "skip"):
        reasons = collections.Counter(normalize(r["message"]) for r in results if r["status"] == status)
        if not reasons:
            continue
        print(f"\n{status}: by first reason")
        rows = [[n, m] for m, n in reasons.most_common()]
        print(table(rows, ["scripts", "reason (normalized)"], md))
    for suite in ("vkcts", "amber", "piglit"):
        goal = [r for r in results if r["suite"] == suite and r["group"] == "goal"]
        if goal:
            n = sum(r["status"] == "pass" for r in goal)
            print(f"\n{suite}: {n} of {len(goal)} goal scripts pass ({100.0 * n / len(goal):.1f}%)")
    shown = [s for s in a.show.split(",") if s]
    listed = [r for r in results if r["status"] in shown]
    if listed:
        print()
        for r in listed:
            print(f"{r['status']}: {r['suite']}/{r['rel']}: {r['message']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(wall_time=wall, jobs=a.jobs, timeout=a.timeout, scripts=results), f, indent=1)
    bad = sum(r["status"] in ("crash", "timeout") for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
