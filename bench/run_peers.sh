#!/bin/sh
# bench/run_peers.sh — builds the benchmark peers and runs every kernel on each:
# the C ceiling (gcc -O3 -march=native -fopenmp), lavapipe (Vulkan on the CPU)
# and PoCL (OpenCL on the CPU).  The result lines (key=value, see
# bench/README.md) go to bench/results/peers-latest.txt, preceded by '#'
# comment lines describing the machine; a summary table goes to stdout.
#
#   bench/run_peers.sh [--threads N[,N...]] [--reps R] [--size full|small]
#                      [--kernel K] [--runners "c lavapipe pocl"] [--out FILE]
#
# Defaults: all online cores, 5 repetitions (the median is reported), full
# sizes, every kernel and runner.  BUILD (default: build) is the build folder.
# Run from anywhere; paths are relative to the source tree.
#
# Compile caches: lavapipe and PoCL keep on-disk shader/kernel caches under
# $HOME/.cache by default, which would turn build_ms into a cache lookup after
# the first run and fails where HOME is not writable.  This script points both
# at $BUILD/bench/cache and disables the persistent caches (cold compiles every
# time); set MESA_SHADER_CACHE_DISABLE=false / POCL_KERNEL_CACHE=1 to measure
# warm caches instead.
set -eu

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
THREADS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
REPS=5
SIZE=full
KERNEL=
RUNNERS="c lavapipe pocl"
OUT=bench/results/peers-latest.txt

usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
    --threads) THREADS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --kernel) KERNEL=$2; shift 2 ;;
    --runners) RUNNERS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_peers.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
if [ "$REPS" -lt 5 ] 2>/dev/null; then
    echo "run_peers.sh: note: --reps $REPS is below 5; medians of fewer runs are noisy" >&2
fi

echo "run_peers.sh: building peers into $BUILD/bench" >&2
make --no-print-directory -f bench/peers/peers.mk BUILD="$BUILD" -j2 peers >&2

CACHE=$BUILD/bench/cache
mkdir -p "$CACHE/pocl" "$CACHE/mesa"
: "${MESA_SHADER_CACHE_DISABLE:=true}"
: "${MESA_SHADER_CACHE_DIR:=$CACHE/mesa}"
: "${POCL_KERNEL_CACHE:=0}"
: "${POCL_CACHE_DIR:=$CACHE/pocl}"
: "${XDG_CACHE_HOME:=$CACHE}"
export MESA_SHADER_CACHE_DISABLE MESA_SHADER_CACHE_DIR POCL_KERNEL_CACHE POCL_CACHE_DIR XDG_CACHE_HOME

mkdir -p "$(dirname "$OUT")"
TMP=$OUT.tmp
pkg_version() {
    dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"
}
{
    echo "# spvjit benchmark peers, $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
    echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(getconf _NPROCESSORS_ONLN) cores"
    echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    echo "# gcc $(gcc -dumpfullversion 2>/dev/null), mesa-vulkan-drivers $(pkg_version mesa-vulkan-drivers), pocl $(pkg_version libpocl2)"
    echo "# size=$SIZE reps=$REPS threads=$THREADS caches: MESA_SHADER_CACHE_DISABLE=$MESA_SHADER_CACHE_DISABLE POCL_KERNEL_CACHE=$POCL_KERNEL_CACHE"
} > "$TMP"

status=0
for t in $(echo "$THREADS" | tr ',' ' '); do
    for r in $RUNNERS; do
        case "$r" in
        c) bin=c_runner; extra= ;;
        lavapipe) bin=vk_runner; extra="--spv-dir $BUILD/bench/spv" ;;
        pocl) bin=cl_runner; extra= ;;
        *) echo "run_peers.sh: unknown runner '$r' (c lavapipe pocl)" >&2; exit 2 ;;
        esac
        echo "run_peers.sh: $r, $t thread(s)" >&2
        rc=0
        # shellcheck disable=SC2086  # $extra and the kernel option are word lists
        "$BUILD/bench/$bin" --threads "$t" --reps "$REPS" --size "$SIZE" \
            ${KERNEL:+--kernel "$KERNEL"} $extra >> "$TMP" || rc=$?
        case $rc in
        0) ;;
        77) echo "# $r: skipped, no device (see stderr)" >> "$TMP" ;;
        *) echo "# $r: exit status $rc" >> "$TMP"; status=1 ;;
        esac
    done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >> "$TMP"
mv "$TMP" "$OUT"

# Summary: one row per kernel variant and thread count, one column per runner.
awk -v runners="$RUNNERS" '
    /^#/ { next }
    {
        delete f
        for (i = 1; i <= NF; ++i) { split($i, kv, "="); f[kv[1]] = kv[2] }
        key = f["kernel"] " " f["variant"] " " f["threads"]
        if (!(key in seen)) { seen[key] = 1; order[++n] = key; unit[key] = f["unit"] }
        cell[key, f["runner"]] = (f["check"] == "ok") ? f["throughput"] : "FAIL"
    }
    END {
        nr = split(runners, rs, " ")
        printf "%-10s %-8s %3s %-9s", "kernel", "variant", "thr", "unit"
        for (j = 1; j <= nr; ++j) printf " %10s", rs[j]
        printf "\n"
        for (i = 1; i <= n; ++i) {
            split(order[i], k, " ")
            printf "%-10s %-8s %3s %-9s", k[1], k[2], k[3], unit[order[i]]
            for (j = 1; j <= nr; ++j) {
                c = ((order[i], rs[j]) in cell) ? cell[order[i], rs[j]] : "-"
                printf " %10s", c
            }
            printf "\n"
        }
    }' "$OUT"
echo "run_peers.sh: results in $OUT" >&2
exit $status
