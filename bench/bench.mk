# bench/bench.mk — `make bench` (the top-level Makefile runs
#   $(MAKE) -f bench/bench.mk BUILD=$(BUILD)
# after building $(BUILD)/libspvjit.a and installing the peers' packages):
# builds the peers (bench/peers/peers.mk) and spvjit's own runner, runs every
# runner on every kernel, prints the tables and writes bench/results/latest.*
# (bench/report.py does the running and the report).
#
#   BENCH_SIZE=small        quick mode: the small sizes (seconds; checks only),
#                           reported into $(BUILD)/bench/small/
#   BENCH_THREADS=1,2,4     thread counts of the scaling table (spvjit and C);
#                           default 1, 2, 4, ... and all cores
#   BENCH_REPS=5            timed repetitions per case (median reported)
#   BENCH_RUNNERS="spvjit spvjit-unspec spvjit-unchecked c lavapipe pocl"
#   BENCH_OUT=bench/results/latest   where latest.{txt,csv,json,png} go (full size)
#
# Can be included from another makefile (all names are BENCH_* / bench-*).

BUILD       ?= build
SAN         ?= 0
CC          ?= cc
PYTHON      ?= python3
LLVM_CONFIG ?= llvm-config-19

BENCH_SIZE    ?= full
BENCH_THREADS ?=
BENCH_REPS    ?=
BENCH_RUNNERS ?=
# Quick runs (small sizes) report into the build folder, not over the results.
BENCH_OUT     ?= $(if $(filter small,$(BENCH_SIZE)),$(BUILD)/bench/small/latest,bench/results/latest)

include bench/peers/peers.mk

# peers.mk's first target would otherwise be the default
.DEFAULT_GOAL := bench

# The static library's link line.
include mk/libs.mk
BENCH_LDLIBS = $(SPVJIT_LDLIBS)
# A sanitizer build of the library (make SAN=1) needs the same runtime here.
bench_comma := ,
BENCH_LIB_SAN = $(if $(shell nm $(BUILD)/libspvjit.a 2>/dev/null | grep -m1 __asan_init),\
                  -fsanitize=address$(bench_comma)undefined -fno-omit-frame-pointer)

BENCH_SPVJIT_RUNNER := $(PEERS_OUT)/spvjit_runner
# The same runner linked with libspvjit.so, as a program embedding the library:
# the first one starts it for the first results in fresh processes.
BENCH_SPVJIT_RUNNER_SHARED := $(PEERS_OUT)/spvjit_runner_shared

.PHONY: bench bench-build bench-clean

BENCH_REPORT_ARGS = --build $(BUILD) --size $(BENCH_SIZE) --out $(BENCH_OUT) \
  $(if $(BENCH_THREADS),--threads $(BENCH_THREADS)) $(if $(BENCH_REPS),--reps $(BENCH_REPS)) \
  $(if $(BENCH_RUNNERS),--runners "$(BENCH_RUNNERS)")

bench: bench-build
	$(PYTHON) bench/report.py $(strip $(BENCH_REPORT_ARGS))

bench-build: peers $(BENCH_SPVJIT_RUNNER) $(BENCH_SPVJIT_RUNNER_SHARED)

$(PEERS_OBJ)/spvjit_runner.o: bench/peers/spvjit_runner.c bench/peers/bench_util.h bench/c/problems.h lib/spvjit.h
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_RUN_CFLAGS) -c $< -o $@

$(BENCH_SPVJIT_RUNNER): $(PEERS_OBJ)/spvjit_runner.o $(PEERS_COMMON_OBJS) $(BUILD)/libspvjit.a
	$(CC) $(PEERS_SAN) $(BENCH_LIB_SAN) -o $@ $^ $(BENCH_LDLIBS)

$(BENCH_SPVJIT_RUNNER_SHARED): $(PEERS_OBJ)/spvjit_runner.o $(PEERS_COMMON_OBJS) $(BUILD)/libspvjit.so
	$(CC) $(PEERS_SAN) $(BENCH_LIB_SAN) -o $@ $(filter %.o,$^) -L$(BUILD) -lspvjit -Wl,-rpath,$(abspath $(BUILD)) -lm

bench-clean: peers-clean
	rm -f $(BENCH_SPVJIT_RUNNER) $(BENCH_SPVJIT_RUNNER_SHARED) $(PEERS_OBJ)/spvjit_runner.o
