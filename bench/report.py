#!/usr/bin/env python3
"""bench/report.py — runs the benchmark runners and reports (`make bench`).

Runs every runner (spvjit, spvjit-unspec, spvjit-unchecked, c, lavapipe,
pocl) on every kernel at all cores, then spvjit and c at the other thread
counts of the scaling table; collects their result lines (key=value, see
bench/README.md); prints the main table (median, spread, throughput, build
time, the ratio of spvjit to each runner with noise marked), the
compile-latency table and the thread scaling table; writes OUT.txt (the raw
lines after '#' lines describing the machine), OUT.csv, OUT.json and the
chart OUT.png (gnuplot).

    bench/report.py [--build DIR] [--size full|small] [--threads 1,2,4]
                    [--reps R] [--runners "spvjit c ..."] [--kernel K]
                    [--out bench/results/latest] [--from FILE.txt [--markdown]]

--from re-reports an earlier OUT.txt without running anything (for example
the results of another machine), writing OUT.csv, OUT.json and OUT.png
beside it unless --out says elsewhere; with --markdown it prints only the
compact markdown table of README.md's Performance section.  Exit status: 0 all checks ok, 1 a runner
failed or a check failed.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys

KERNELS = ["mm", "conv3x3", "reduce", "saxpy", "scan", "sgreduce"]
RUNNERS = ["spvjit", "spvjit-unspec", "spvjit-unchecked", "c", "lavapipe", "pocl"]
# spvjit's own variants, run in one process (their repetitions taking turns):
# what specializing buys, what the default memory mode robust costs.
SPVJIT_RUNNERS = ["spvjit", "spvjit-unspec", "spvjit-unchecked"]
SCALING_RUNNERS = ["spvjit", "c"]
# The peers the headline ratios compare spvjit with, in the table's order.
PEERS = ["lavapipe", "pocl", "c"]
NUMERIC = ["threads", "median_ms", "spread_pct", "build_ms", "throughput", "first_ms", "min_ms",
           "lower_ms", "passes_ms", "codegen_ms", "quick_ms", "hit_us", "disk_ms", "auto_first_ms",
           "auto_first_small_ms", "fresh_first_ms", "fresh_first_small_ms"]
CSV_FIELDS = ["kernel", "variant", "runner", "threads", "median_ms", "spread_pct", "min_ms", "first_ms",
              "throughput", "unit", "check", "build_ms", "lower_ms", "passes_ms", "codegen_ms", "quick_ms",
              "hit_us", "disk_ms", "auto_first_ms", "auto_first_small_ms", "fresh_first_small_ms", "reps"]


def log(msg):
    print("report: " + msg, file=sys.stderr, flush=True)


# --- running -------------------------------------------------------------------

def runner_command(build, runner, kernel, threads, reps, size):
    """The command line of one runner process (one kernel, one thread count)."""
    bench = os.path.join(build, "bench")
    spv = ["--spv-dir", os.path.join(bench, "spv")]
    if runner in SPVJIT_RUNNERS or "," in runner:  # one or several in one process
        cmd = [os.path.join(bench, "spvjit_runner"), "--runner", runner] + spv
    elif runner == "c":
        cmd = [os.path.join(bench, "c_runner")]
    elif runner == "lavapipe":
        cmd = [os.path.join(bench, "vk_runner")] + spv
    elif runner == "pocl":
        cmd = [os.path.join(bench, "cl_runner")]
    else:
        raise SystemExit("report: unknown runner '%s' (%s)" % (runner, " ".join(RUNNERS)))
    return cmd + ["--threads", str(threads), "--reps", str(reps), "--size", size, "--kernel", kernel]


def reps_for(runner, kernel, size, base):
    """Timed repetitions: `base`, except where one run takes seconds (lavapipe's
    and PoCL's matrix multiply at full size: 1-6 s a run), which get 3, so the
    whole benchmark stays within a few minutes on two cores."""
    if size == "full" and kernel == "mm" and runner in ("lavapipe", "pocl"):
        return min(base, 3)
    return base


def runner_env(build):
    """The peers' compile caches off and out of $HOME (as bench/run_peers.sh)."""
    cache = os.path.abspath(os.path.join(build, "bench", "cache"))
    os.makedirs(os.path.join(cache, "pocl"), exist_ok=True)
    os.makedirs(os.path.join(cache, "mesa"), exist_ok=True)
    env = dict(os.environ)
    env.setdefault("MESA_SHADER_CACHE_DISABLE", "true")
    env.setdefault("MESA_SHADER_CACHE_DIR", os.path.join(cache, "mesa"))
    env.setdefault("POCL_KERNEL_CACHE", "0")
    env.setdefault("POCL_CACHE_DIR", os.path.join(cache, "pocl"))
    env.setdefault("XDG_CACHE_HOME", cache)
    return env


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
        return out.splitlines()[0] if out else "?"
    except OSError:
        return "?"


def deb_version(pkg):
    return tool_version(["dpkg-query", "-W", "-f=${Version}", pkg])


def run_all(args, runners, kernels, scaling_threads, all_cores):
    """Runs everything; returns (header lines, result lines, ok)."""
    env = runner_env(args.build)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    header = {
        "date": started,
        "cpu": cpu_name(),
        "cores": str(all_cores),
        "load_start": loadavg(),
        "kernel": platform.release(),
        "source": os.environ.get("BENCH_SOURCE") or tool_version(["git", "describe", "--always", "--dirty"]),
        "gcc": tool_version(["gcc", "-dumpfullversion"]),
        "llvm": tool_version(["llvm-config-19", "--version"]),
        "mesa": deb_version("mesa-vulkan-drivers"),
        "pocl": deb_version("libpocl2"),
        "size": args.size,
        "reps": str(args.reps),
        "threads": str(all_cores),
        "scaling_threads": ",".join(str(t) for t in scaling_threads),
    }
    plan = []  # (runner, kernel, threads)
    main_runners = list(runners)
    together = [r for r in SPVJIT_RUNNERS if r in runners]
    if len(together) > 1:
        # measured side by side, so their ratios (headlines) see the same load
        i = min(main_runners.index(r) for r in together)
        main_runners = [r for r in main_runners if r not in together]
        main_runners.insert(i, ",".join(together))
    # kernel by kernel, every runner in turn: a ratio compares runs minutes
    # apart at most, not a whole pass of the other runners (this VM's load,
    # and the C ceiling with it, moves 2x within minutes)
    for k in kernels:
        for r in main_runners:
            plan.append((r, k, all_cores))
    for t in scaling_threads:
        if t == all_cores:
            continue  # the main pass measured it
        for k in kernels:
            for r in SCALING_RUNNERS:
                if r in runners:
                    plan.append((r, k, t))
    lines, ok = [], True
    skipped = set()
    for i, (r, k, t) in enumerate(plan):
        if r in skipped:
            continue
        reps = reps_for(r, k, args.size, args.reps)
        cmd = runner_command(args.build, r, k, t, reps, args.size)
        log("[%d/%d] %s %s, %d thread(s), %d reps" % (i + 1, len(plan), r, k, t, reps))
        lines.append("#! load %s before %s %s threads=%d" % (loadavg(), r, k, t))
        p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, check=False)
        got = [ln for ln in p.stdout.splitlines() if ln.startswith("kernel=")]
        lines += [ln + " reps=%d" % reps for ln in got]
        if p.returncode == 77:
            log("%s: no device, skipped" % r)
            skipped.add(r)
            lines.append("#! %s: skipped, no device" % r)
        elif p.returncode != 0:
            ok = False
            lines.append("#! %s %s threads=%d: exit status %d" % (r, k, t, p.returncode))
    if args.size == "full" and together:
        ok = add_small_first_results(args, env, kernels, all_cores, lines, ",".join(together)) and ok
    header["load_end"] = loadavg()
    return header, lines, ok


def add_small_first_results(args, env, kernels, all_cores, lines, spvjit_runners):
    """The time to a first result with the auto tier at the small sizes (a
    first dispatch the quick code runs at once), added to the full-size lines
    of the spvjit runners as auto_first_small_ms; and the same in a fresh
    process linked with libspvjit.so (the spvjit runner's 5 such), as
    fresh_first_small_ms."""
    ok = True
    for k in kernels:
        cmd = runner_command(args.build, spvjit_runners, k, all_cores, 1, "small") + ["--fresh-samples", "5"]
        log("latency: %s at the small size" % k)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, check=False)
        ok = ok and p.returncode == 0
        _, small = parse_lines(ln for ln in p.stdout.splitlines() if ln.startswith("kernel="))
        for s in small:
            key = "kernel=%s variant=%s runner=%s threads=%d " % (s["kernel"], s["variant"], s["runner"], all_cores)
            extra = "".join(" %s=%s" % (name, "%.2f" % s[field] if s.get(field) is not None else "n/a")
                            for name, field in (("auto_first_small_ms", "auto_first_ms"),
                                                ("fresh_first_small_ms", "fresh_first_ms")))
            for i, ln in enumerate(lines):
                if ln.startswith(key):
                    lines[i] = ln + extra
    return ok


# --- parsing -------------------------------------------------------------------

def parse_lines(lines):
    header, results = {}, []
    for ln in lines:
        ln = ln.strip()
        if ln.startswith("#!"):
            continue  # a note (a skipped runner, an exit status)
        if ln.startswith("#"):
            body = ln[1:].strip()
            if ":" in body and " " not in body.split(":", 1)[0]:
                key, val = body.split(":", 1)
                header[key.strip()] = val.strip()
            continue
        if not ln.startswith("kernel="):
            continue
        rec = {}
        for field in ln.split():
            if "=" in field:
                key, val = field.split("=", 1)
                rec[key] = val
        for key in NUMERIC:
            if key in rec:
                try:
                    rec[key] = float(rec[key])
                except ValueError:
                    rec[key] = None  # "n/a"
        rec["threads"] = int(rec.get("threads") or 0)
        results.append(rec)
    return header, results


def write_txt(path, header, lines):
    with open(path, "w") as f:
        for key, val in header.items():
            f.write("# %s: %s\n" % (key, val))
        for ln in lines:
            f.write(ln + "\n")


# --- analysis ------------------------------------------------------------------

def index_results(results):
    by = {}
    for r in results:
        by[(r["kernel"], r["variant"], r["runner"], r["threads"])] = r
    return by


def case_order(results):
    seen, order = set(), []
    for k in KERNELS:
        for r in results:
            key = (r["kernel"], r["variant"])
            if r["kernel"] == k and key not in seen:
                seen.add(key)
                order.append(key)
    return order


def ratio(a, b):
    """Throughput of a over b (>1: a is faster), with its noise verdict: the
    ratio is noise when its distance from 1 (either way) is within the larger
    spread of the two runners' repetitions."""
    if not a or not b or a.get("check") != "ok" or b.get("check") != "ok":
        return None
    ta, tb = a.get("throughput") or 0, b.get("throughput") or 0
    if ta <= 0 or tb <= 0:
        return None
    x = ta / tb
    spread = max(a.get("spread_pct") or 0, b.get("spread_pct") or 0) / 100.0
    gap = max(x, 1 / x) - 1
    return {"ratio": x, "spread": spread, "noise": gap <= spread}


def fmt_ratio(rv):
    if rv is None:
        return "-"
    s = "%.2fx" % rv["ratio"] if rv["ratio"] < 100 else "%.0fx" % rv["ratio"]
    return "~" + s if rv["noise"] else s


def fmt_num(x, width=0):
    if x is None:
        return "n/a"
    if x == 0:
        s = "0"
    elif abs(x) >= 100:
        s = "%.0f" % x
    elif abs(x) >= 10:
        s = "%.1f" % x
    elif abs(x) >= 1:
        s = "%.2f" % x
    else:
        s = "%.3g" % x
    return s.rjust(width) if width else s


def table(rows, headers, aligns):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]

    def line(cells):
        out = []
        for c, w, a in zip(cells, widths, aligns):
            out.append(str(c).ljust(w) if a == "l" else str(c).rjust(w))
        return "  ".join(out).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def main_table(results, all_cores):
    by = index_results(results)
    rows, ratios = [], []
    for kernel, variant in case_order(results):
        spv = by.get((kernel, variant, "spvjit", all_cores))
        first = True
        for runner in RUNNERS:
            r = by.get((kernel, variant, runner, all_cores))
            if not r:
                continue
            if runner == "spvjit":
                rv, what = None, ""
            elif runner == "spvjit-unspec":
                rv, what = ratio(spv, r), "spec/unspec"
            elif runner == "spvjit-unchecked":
                rv, what = ratio(spv, r), "robust/unchecked"
            else:
                rv, what = ratio(spv, r), "spvjit/" + runner
            if rv:
                ratios.append(dict(kernel=kernel, variant=variant, versus=runner, what=what, **rv))
            ok = r.get("check") == "ok"
            rows.append([
                kernel if first else "", variant if first else "", runner,
                fmt_num(r.get("median_ms")) if ok else ("n/a" if r.get("check") == "skip" else "FAIL"),
                "%.0f%%" % (r.get("spread_pct") or 0) if ok else "",
                fmt_num(r.get("throughput")) if ok else "",
                r.get("unit", "") if first else "",
                fmt_num(r.get("build_ms")),
                fmt_ratio(rv) + ("  " + what if rv else "") if runner != "spvjit" else "",
            ])
            first = False
    headers = ["kernel", "variant", "runner", "median ms", "spread", "throughput", "unit", "build ms",
               "spvjit / runner"]
    return table(rows, headers, "lllrrrlrl"), ratios


def compile_table(results, all_cores):
    """Compile latency per kernel: the cold quick and optimized builds (fresh
    context, empty disk cache, module load included; the optimized one split
    into lowering, passes and code generation), a memory-cache hit, a disk-cache
    load, and the time to a first result with the auto tier (build + first
    dispatch) at the benchmark's size and at the small size, and at the small
    size in a fresh process (its start included); each the median of the
    runner's 5 (a hit: of 201)."""
    by = index_results(results)
    rows = []
    for kernel, variant in case_order(results):
        for runner in SPVJIT_RUNNERS:
            r = by.get((kernel, variant, runner, all_cores))
            if not r:
                continue
            rows.append([kernel, variant, runner, fmt_num(r.get("quick_ms")), fmt_num(r.get("build_ms")),
                         fmt_num(r.get("lower_ms")), fmt_num(r.get("passes_ms")), fmt_num(r.get("codegen_ms")),
                         fmt_num(r.get("hit_us")), fmt_num(r.get("disk_ms")), fmt_num(r.get("auto_first_ms")),
                         fmt_num(r.get("auto_first_small_ms")), fmt_num(r.get("fresh_first_small_ms"))])
    headers = ["kernel", "variant", "runner", "quick ms", "opt ms", "lower ms", "passes ms", "codegen ms",
               "hit us", "disk ms", "first auto ms", "first auto ms (small)", "first, new process ms (small)"]
    return table(rows, headers, "lllrrrrrrrrrr")


def scaling_rows(results, threads_list):
    by = index_results(results)
    out = []
    for kernel, variant in case_order(results):
        for runner in SCALING_RUNNERS:
            pts = {}
            for t in threads_list:
                r = by.get((kernel, variant, runner, t))
                if r and r.get("check") == "ok" and r.get("throughput"):
                    pts[t] = r["throughput"]
            if not pts:
                continue
            base = pts.get(1)
            tmax = max(pts)
            eff = pts[tmax] / (tmax * base) if base and tmax > 1 else None
            out.append(dict(kernel=kernel, variant=variant, runner=runner, unit=by_unit(results, kernel),
                            throughput=pts, efficiency_at_max=eff, max_threads=tmax))
    return out


def by_unit(results, kernel):
    for r in results:
        if r["kernel"] == kernel:
            return r.get("unit", "")
    return ""


def scaling_table(srows, threads_list):
    rows = []
    for s in srows:
        cells = [s["kernel"], s["variant"], s["runner"], s["unit"]]
        cells += [fmt_num(s["throughput"].get(t)) if t in s["throughput"] else "-" for t in threads_list]
        base = s["throughput"].get(1)
        tmax = s["max_threads"]
        cells.append("%.2fx" % (s["throughput"][tmax] / base) if base else "-")
        cells.append("%.0f%%" % (100 * s["efficiency_at_max"]) if s["efficiency_at_max"] else "-")
        rows.append(cells)
    tmax = max(threads_list)
    headers = ["kernel", "variant", "runner", "unit"] + ["%d thr" % t for t in threads_list] + \
              ["speedup %d/1" % tmax, "efficiency %d" % tmax]
    return table(rows, headers, "llll" + "r" * (len(threads_list) + 2))


def markdown_table(results, all_cores):
    """The README's compact table: throughput per runner, then the ratios."""
    by = index_results(results)
    present = [r for r in RUNNERS if any(x["runner"] == r and x["threads"] == all_cores for x in results)]
    head = ["kernel", "unit"] + present + ["spec / unspec", "robust / unchecked"] + \
        ["spvjit / " + p for p in PEERS if p in present]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for kernel, variant in case_order(results):
        spv = by.get((kernel, variant, "spvjit", all_cores))
        cells = ["%s %s" % (kernel, variant), by_unit(results, kernel)]
        for r in present:
            x = by.get((kernel, variant, r, all_cores))
            ok = x and x.get("check") == "ok"
            cells.append(fmt_num(x.get("throughput")) if ok else
                         ("n/a" if x and x.get("check") == "skip" else "FAIL" if x else "-"))
        cells.append(fmt_ratio(ratio(spv, by.get((kernel, variant, "spvjit-unspec", all_cores)))))
        cells.append(fmt_ratio(ratio(spv, by.get((kernel, variant, "spvjit-unchecked", all_cores)))))
        for p in PEERS:
            if p in present:
                cells.append(fmt_ratio(ratio(spv, by.get((kernel, variant, p, all_cores)))))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


# --- outputs -------------------------------------------------------------------

def write_csv(path, results):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in results:
            row = dict(r)
            for k in CSV_FIELDS:
                if row.get(k) is None and k in r:
                    row[k] = "n/a"
            w.writerow(row)


def write_json(path, header, results, ratios, srows):
    doc = {
        "machine": header,
        "results": results,
        "ratios": ratios,
        "scaling": [dict(s, throughput={str(t): v for t, v in s["throughput"].items()}) for s in srows],
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")


def write_chart(path, header, results, all_cores):
    """Clustered bars: throughput per kernel variant per runner, log scale
    (the units differ per kernel, and the runners span three decades)."""
    if not shutil.which("gnuplot"):
        log("gnuplot not found: no chart (apt-get install gnuplot-nox)")
        return False
    by = index_results(results)
    cases = case_order(results)
    runners = [r for r in RUNNERS if any(by.get((k, v, r, all_cores)) for k, v in cases)]
    dat = path + ".dat"
    with open(dat, "w") as f:
        f.write("case " + " ".join('"%s"' % r for r in runners) + "\n")
        for k, v in cases:
            unit = by_unit(results, k)
            cells = []
            for r in runners:
                x = by.get((k, v, r, all_cores))
                tp = x.get("throughput") if x and x.get("check") == "ok" else None
                cells.append("%.6g" % tp if tp else "NaN")
            f.write('"%s %s\\n(%s)" %s\n' % (k, v, unit, " ".join(cells)))
    title = "spvjit benchmark: %s, %s threads, load %s" % (header.get("cpu", "?"), all_cores,
                                                          header.get("load_start", "?"))
    script = """
set terminal pngcairo size 1400,600 noenhanced font ",10"
set output '{png}'
set title "{title}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set grid ytics mytics
set ylabel "throughput (unit per kernel, log scale; higher is better)"
set key outside right top
set xtics scale 0
set bmargin 4
plot for [i=2:{ncol}] '{dat}' using i:xtic(1) title columnheader(i)
""".format(png=path, title=title.replace('"', "'"), ncol=len(runners) + 1, dat=dat)
    p = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True, check=False)
    os.remove(dat)
    if p.returncode != 0:
        log("gnuplot failed: " + p.stderr.strip())
        return False
    return True


# --- main ----------------------------------------------------------------------

def default_scaling_threads(cores):
    ts, t = [], 1
    while t < cores:
        ts.append(t)
        t *= 2
    return ts + [cores]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--size", default="full", choices=["full", "small"])
    ap.add_argument("--threads", default="", help="scaling thread counts, e.g. 1,2,4,8,16")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--runners", default=" ".join(RUNNERS))
    ap.add_argument("--kernel", default="", help="only this kernel")
    ap.add_argument("--out", default=None, help="default: bench/results/latest, or with --from beside FILE")
    ap.add_argument("--from", dest="from_file", default="", help="re-report an earlier OUT.txt")
    ap.add_argument("--markdown", action="store_true",
                    help="with --from: print only the README's markdown table")
    args = ap.parse_args()
    if args.out is None:  # a re-report must not write over the latest run
        stem = args.from_file[:-4] if args.from_file.endswith(".txt") else args.from_file
        args.out = stem or "bench/results/latest"
    if not args.reps:
        args.reps = 5 if args.size == "full" else 3

    ok = True
    if args.from_file:
        with open(args.from_file) as f:
            raw = f.read().splitlines()
        header, results = parse_lines(raw)
        all_cores = int(header.get("threads") or max(r["threads"] for r in results))
        scaling_threads = [int(t) for t in header.get("scaling_threads", str(all_cores)).split(",")]
        lines = [ln for ln in raw if not ln.startswith("#") or ln.startswith("#!")]
        ok = not any(ln.startswith("#!") and "exit status" in ln for ln in raw)
    else:
        all_cores = os.cpu_count() or 1
        runners = args.runners.split()
        kernels = [args.kernel] if args.kernel else KERNELS
        if args.threads:
            scaling_threads = sorted({int(t) for t in args.threads.split(",")})
            all_cores = max(scaling_threads)  # the main pass runs at the largest count
        else:
            scaling_threads = default_scaling_threads(all_cores)
        header, lines, ok = run_all(args, runners, kernels, scaling_threads, all_cores)
        _, results = parse_lines(lines)

    if args.markdown:
        print(markdown_table(results, all_cores))
        return 0
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    if os.path.abspath(args.from_file or "") != os.path.abspath(args.out + ".txt"):
        write_txt(args.out + ".txt", header, lines)
    ok &= all(r.get("check") in ("ok", "skip") for r in results)

    mt, ratios = main_table(results, all_cores)
    srows = scaling_rows(results, scaling_threads)
    print("spvjit benchmark — %s, %s cores; size=%s; load average %s at start, %s at end" %
          (header.get("cpu", "?"), header.get("cores", "?"), header.get("size", "?"),
           header.get("load_start", "?"), header.get("load_end", "?")))
    print("median of the timed runs after one warm-up; spread = (max-min)/median; "
          "spvjit / runner = throughput ratio (>1: spvjit faster), '~' = within the spread (noise)\n")
    print(mt)
    print("\ncompile latency (spvjit, medians of 5; cold = fresh context + empty disk cache, module load included; "
          "first auto = build + first dispatch with the auto tier; new process = the same in a fresh process "
          "linked with libspvjit.so, its start included; goals: first result < 10 ms, "
          "optimized cold build < 50 ms, hit < 1 us, disk load < 1 ms):\n")
    print(compile_table(results, all_cores))
    if len(scaling_threads) > 1 or scaling_threads[0] != all_cores:
        print("\nthread scaling (throughput; efficiency = throughput(N) / (N * throughput(1))):\n")
        print(scaling_table(srows, scaling_threads))
    write_csv(args.out + ".csv", results)
    write_json(args.out + ".json", header, results, ratios, srows)
    chart = write_chart(args.out + ".png", header, results, all_cores)
    print("\nresults: %s.{txt,csv,json%s}" % (args.out, ",png" if chart else ""))
    if not ok:
        log("some runner failed or a check failed (see above and %s.txt)" % args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
