#!/usr/bin/python3
"""A specialization sweep: the seed matrix multiply (testdata/kernels/mm.comp.spv)
at each block size, specialized (the block size a literal in the code) and
unspecialized (read at run time), timed and checked against numpy.

    examples/mm_sweep.py                    n=512, block sizes 4 8 16 32
    examples/mm_sweep.py --n 1024 --sizes 8,16 --repeat 10
    examples/mm_sweep.py --table            no plot even if matplotlib is there

Prints a table; with matplotlib installed it also plots GFLOP/s against the
block size into mm_sweep.png (--plot FILE to choose the name).
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import spvjit
except ImportError:  # running from a source checkout: the package is in python/
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    import spvjit


def sweep(module, n, sizes, repeat):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    rows = []
    for bs in sizes:
        for specialized in (True, False):
            c = np.zeros((n, n), np.float32)
            k = module.kernel(specs={0: bs}, unspecialized=not specialized)
            groups = ((n + bs - 1) // bs, (n + bs - 1) // bs)
            k.bind(buffers={(0, 0): a, (0, 1): b, (0, 2): c}, push=np.uint32(n))
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                k(groups=groups)
                times.append(time.perf_counter() - t)
            ms = float(np.median(times)) * 1e3
            rows.append({
                "bs": bs,
                "specialized": specialized,
                "compile_ms": k.stats.total_ms,
                "dispatch_ms": ms,
                "gflops": 2.0 * n ** 3 / (ms * 1e6),
                "max_error": float(np.abs(c - want).max()),
            })
    return rows


def print_table(rows, n):
    print("mm %dx%d: median of the dispatch times, compile = specialize + lower + LLVM" % (n, n))
    print("%6s  %-13s %11s %12s %9s %10s" % ("BS", "kernel", "compile ms", "dispatch ms", "GFLOP/s", "max error"))
    for r in rows:
        print("%6d  %-13s %11.1f %12.3f %9.2f %10.2e" % (r["bs"], "specialized" if r["specialized"] else
                                                          "unspecialized", r["compile_ms"], r["dispatch_ms"],
                                                          r["gflops"], r["max_error"]))
    for bs in sorted({r["bs"] for r in rows}):
        s, u = (next(r for r in rows if r["bs"] == bs and r["specialized"] == x) for x in (True, False))
        print("BS %d: specializing is %.2fx the unspecialized speed" % (bs, s["gflops"] / u["gflops"]))


def plot(rows, n, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for specialized, style in ((True, "o-"), (False, "s--")):
        pts = [(r["bs"], r["gflops"]) for r in rows if r["specialized"] == specialized]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                label="specialized" if specialized else "unspecialized")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("block size (spec constant 0)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("spvjit mm %dx%d" % (n, n))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    print("plot: %s" % path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=512, help="matrix size (default 512)")
    ap.add_argument("--sizes", default="4,8,16,32", help="block sizes (default 4,8,16,32)")
    ap.add_argument("--repeat", type=int, default=5, help="timed dispatches per kernel (default 5)")
    ap.add_argument("--module", default=os.path.join(os.path.dirname(HERE), "testdata", "kernels", "mm.comp.spv"))
    ap.add_argument("--table", action="store_true", help="print the table only, no plot")
    ap.add_argument("--plot", default="mm_sweep.png", help="where the plot goes (default mm_sweep.png)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = sweep(spvjit.Module(args.module), args.n, sizes, args.repeat)
    print_table(rows, args.n)
    bad = [r for r in rows if not r["max_error"] <= 1e-4 * args.n]
    if not args.table:
        try:
            plot(rows, args.n, args.plot)
        except ImportError:
            print("(matplotlib is not installed: table only)")
    if bad:
        print("wrong results: %s" % bad, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
