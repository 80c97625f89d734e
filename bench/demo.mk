# bench/demo.mk — `make demo` (the top-level Makefile runs
#   $(MAKE) -f bench/demo.mk BUILD=$(BUILD)
# after building $(BUILD)/libspvjit.a): builds bench/demo.c against the static
# library and runs the seed matrix multiply, specialized vs not.
#
#   DEMO_N=1024 DEMO_RUNS=3   matrix size and timed runs (median reported)

BUILD       ?= build
CC          ?= cc
LLVM_CONFIG ?= llvm-config-19
DEMO_N      ?= 1024
DEMO_RUNS   ?= 3

include mk/libs.mk
LDLIBS = $(SPVJIT_LDLIBS)
# A sanitizer build of the library (make SAN=1) needs the same runtime in the demo.
SANFLAGS := $(if $(shell nm $(BUILD)/libspvjit.a 2>/dev/null | grep -m1 __asan_init),\
              -fsanitize=address$(comma)undefined -fno-omit-frame-pointer)
comma := ,

.PHONY: run
run: $(BUILD)/demo
	$(BUILD)/demo testdata/kernels/mm.comp.spv $(DEMO_N) $(DEMO_RUNS)

$(BUILD)/demo: bench/demo.c lib/spvjit.h testdata/kernels/reference.h $(BUILD)/libspvjit.a
	$(CC) -std=c17 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I. $(SANFLAGS) -o $@ bench/demo.c \
	  $(BUILD)/libspvjit.a $(LDLIBS)
