# spvjit — build, test, demo, bench.
#
#   make            build/libspvjit.so, build/libspvjit.a, build/spvjit
#   make test       build and run every test            (SAN=1: ASan + UBSan build)
#   make demo       the seed matrix multiply, specialized vs not
#   make bench      benchmarks (bench/)
#   make deps       apt-get what is missing (no-op when all is present)
#   make testdata   rebuild testdata/*.spv from their sources
#   make fuzz       run the loader+specializer fuzzer for FUZZ_SECONDS
#   make install    PREFIX=/usr/local DESTDIR= (the command, libraries, header, pkg-config file,
#                   man page, bash completion and the Python package for /usr/bin/python3)
#   make format     clang-format every C source and header (.clang-format)
#
# Outputs go to build/ (build/san/ for SAN=1).

VERSION      := 0.1.0
PREFIX       ?= /usr/local
DESTDIR      ?=
LLVM_CONFIG  ?= llvm-config-19
CC           ?= cc
PYTHON       ?= python3
SAN          ?= 0
FUZZ_SECONDS ?= 60

ifeq ($(SAN),1)
BUILD    := build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPTFLAGS := -O1 -g
else
BUILD    := build
SANFLAGS :=
OPTFLAGS := -O2 -g
endif

# The Debian 12 packages the build, the tests, the demo and the benchmarks need.
DEB_BUILD := make gcc g++ python3 pkg-config spirv-headers spirv-tools llvm-19-dev libzstd-dev zlib1g-dev libffi-dev libxxhash-dev \
             libjson-c-dev libsodium-dev python3-cffi python3-numpy python3-pytest \
             glslang-tools glslang-dev clang-15 llvm-spirv-15 groff-base
DEB_FUZZ  := clang-19 libclang-rt-19-dev
DEB_BENCH := mesa-vulkan-drivers libvulkan-dev pocl-opencl-icd ocl-icd-opencl-dev opencl-headers gnuplot-nox

GRAMMAR_DIR := /usr/include/spirv/unified1

# Deferred (=) so that a sub-make started after `make deps` sees the fresh install.
LLVM_CFLAGS = $(shell $(LLVM_CONFIG) --includedir 2>/dev/null | sed 's/^/-isystem /')

CFLAGS_BASE = -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC -fvisibility=hidden \
               $(OPTFLAGS) $(SANFLAGS) -I. -I$(BUILD)/gen $(LLVM_CFLAGS)
override CFLAGS = $(CFLAGS_BASE) $(EXTRA_CFLAGS)
include mk/libs.mk
LDLIBS = $(SPVJIT_LDLIBS)

LIB_SRCS  := $(wildcard util/*.c) $(wildcard spirv/*.c) $(wildcard jit/*.c) $(wildcard jit/*.S) $(wildcard lib/*.c) $(wildcard lib/*.S)
GEN_SRCS  := $(BUILD)/gen/spirv_grammar.c
LIB_OBJS  := $(patsubst %,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(BUILD)/obj/gen/spirv_grammar.c.o
# cmd/*.cpp: C shims over C++-only APIs (SPIRV-Tools' optimizer), built with $(CXX).
CMD_SRCS  := $(wildcard cmd/*.c) $(wildcard cmd/*.cpp)
CMD_OBJS  := $(patsubst %,$(BUILD)/obj/%.o,$(CMD_SRCS))
# The command's pieces (all but main.c) are linked into the test runner too.
CMD_PARTS := $(filter-out $(BUILD)/obj/cmd/main.c.o,$(CMD_OBJS))
TEST_SRCS := $(wildcard testdata/tests/*.c)
TEST_OBJS := $(patsubst %,$(BUILD)/obj/%.o,$(TEST_SRCS))

.PHONY: all deps deps-bench build test run-tests demo bench testdata fuzz install clean format

# The public targets install dependencies first, then build in a sub-make, so
# that tool paths probed with $(shell ...) are read after the install.  The
# sub-make runs a job per core unless the command line gave -j (make shows
# that in MAKEFLAGS where a recipe runs, not where the makefile is read).
JOBS = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(shell nproc))

all: deps
	@$(MAKE) --no-print-directory $(JOBS) build

build: $(BUILD)/libspvjit.so $(BUILD)/libspvjit.a $(BUILD)/spvjit

# --- dependencies ---------------------------------------------------------
# Installs only what dpkg says is missing; as root directly, otherwise via sudo.
deps:
	@missing=""; for p in $(DEB_BUILD) $(DEB_EXTRA); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi

deps-bench:
	@$(MAKE) --no-print-directory deps DEB_EXTRA="$(DEB_BENCH)"

# --- generated grammar tables ----------------------------------------------
$(BUILD)/gen/spirv_grammar.c $(BUILD)/gen/spirv_grammar.h &: spirv/gen_grammar.py
	@mkdir -p $(BUILD)/gen
	$(PYTHON) spirv/gen_grammar.py $(GRAMMAR_DIR) $(BUILD)/gen

# --- objects ----------------------------------------------------------------
$(BUILD)/obj/%.c.o: %.c $(BUILD)/gen/spirv_grammar.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# In-process GLSL compilation for `spvjit amber`; tests use the linked cmd/ parts.
$(BUILD)/obj/cmd/%.c.o: EXTRA_CFLAGS += -DSPVJIT_HAVE_GLSLANG
$(BUILD)/obj/testdata/tests/%.c.o: EXTRA_CFLAGS += -DSPVJIT_TESTS_LINK_CMD

CXXFLAGS_BASE = -std=c++17 -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC -fvisibility=hidden $(OPTFLAGS) $(SANFLAGS) -I.
$(BUILD)/obj/%.cpp.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_BASE) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -fPIC -c $< -o $@

$(BUILD)/obj/gen/spirv_grammar.c.o: $(BUILD)/gen/spirv_grammar.c $(BUILD)/gen/spirv_grammar.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# --- libraries and the command ---------------------------------------------------
$(BUILD)/libspvjit.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# Only spvjit_* symbols are exported (sources use -fvisibility=hidden; the public
# API marks itself visible), and the version script hides what static libs bring,
# LLVM's among them (mk/libs.mk: a process loads it in a third of the time).
# -z nodelete: dlclose leaves the library mapped, since its worker threads and
# exit handlers live there (a plugin host that unloads it would crash or hang).
$(BUILD)/libspvjit.so: $(LIB_OBJS) lib/spvjit.map
	$(CC) -shared $(SANFLAGS) -Wl,--version-script=lib/spvjit.map -Wl,-soname,libspvjit.so.0 -Wl,-z,nodelete \
	  -o $@ $(LIB_OBJS) $(SPVJIT_STATIC_LLVM_LDLIBS)
	ln -sf libspvjit.so $(BUILD)/libspvjit.so.0

$(BUILD)/spvjit: $(CMD_OBJS) $(BUILD)/libspvjit.a
	$(CC) $(SANFLAGS) -o $@ $^ $(SPVJIT_STATIC_LLVM_LDLIBS)

# --- tests ----------------------------------------------------------------------
$(BUILD)/run_tests: $(TEST_OBJS) $(CMD_PARTS) $(BUILD)/libspvjit.a
	$(CC) $(SANFLAGS) -o $@ $^ $(LDLIBS)

test: deps
	@$(MAKE) --no-print-directory $(JOBS) run-tests

# The Python package's tests and the command's numpy/JSON/man-page tests are
# pytest suites run by testdata/tests/test_python.c with /usr/bin/python3.  In
# the SAN=1 build they run too: the package loads build/san/libspvjit.so with
# the ASan and UBSan runtimes preloaded and leak checking off for the Python
# process only (the interpreter keeps allocations to its end).
#
# The suite runs on each compile tier ($SPVJIT_TIER; tests about one tier or
# about auto ask for it): all of it on the optimized, then on the quick the
# tests a tier can change (`--tier-dependent`: the tier-free ones, which
# compile nothing or name their tier, would do the same work twice;
# testdata/tests/harness.h).
TEST_ENV = SPVJIT_SRC_ROOT=$(CURDIR) SPVJIT_BIN=$(CURDIR)/$(BUILD)/spvjit XDG_CACHE_HOME=$(CURDIR)/$(BUILD)/cache \
           ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

run-tests: build $(BUILD)/run_tests
	@echo "optimized tier:"
	$(TEST_ENV) SPVJIT_TIER=opt ./$(BUILD)/run_tests
	@echo "quick tier, the tier-dependent tests:"
	$(TEST_ENV) SPVJIT_TIER=quick ./$(BUILD)/run_tests --tier-dependent

# --- test kernels ------------------------------------------------------------------
-include testdata/testdata.mk

# --- fuzzing (clang-19 libFuzzer) ---------------------------------------------------
fuzz: deps
	@$(MAKE) --no-print-directory deps DEB_EXTRA="$(DEB_FUZZ)"
	@$(MAKE) --no-print-directory $(BUILD)/gen/spirv_grammar.h
	@$(MAKE) --no-print-directory -f testdata/fuzz/fuzz.mk BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) run

# --- demo and benchmarks -------------------------------------------------------------
demo: all
	@$(MAKE) --no-print-directory -f bench/demo.mk BUILD=$(BUILD)

bench: deps-bench all
	@$(MAKE) --no-print-directory -f bench/bench.mk BUILD=$(BUILD)

# --- install -----------------------------------------------------------------------------
# The Python package goes where /usr/bin/python3 looks under PREFIX: Debian's
# /usr/lib/python3/dist-packages for PREFIX=/usr, PREFIX/lib/python3.N/dist-packages
# otherwise (on the path for /usr/local); it loads the installed library through
# a link next to it.
PYTHON_SITE ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(shell \
                 /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)/dist-packages)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(BUILD)/spvjit $(DESTDIR)$(PREFIX)/bin/spvjit
	install -m 644 $(BUILD)/libspvjit.a $(DESTDIR)$(PREFIX)/lib/libspvjit.a
	install -m 755 $(BUILD)/libspvjit.so $(DESTDIR)$(PREFIX)/lib/libspvjit.so.$(VERSION)
	ln -sf libspvjit.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libspvjit.so.0
	ln -sf libspvjit.so.0 $(DESTDIR)$(PREFIX)/lib/libspvjit.so
	install -m 644 lib/spvjit.h $(DESTDIR)$(PREFIX)/include/spvjit.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' lib/spvjit.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/spvjit.pc
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PYTHON_SITE)/spvjit
	sed -e 's|@VERSION@|$(VERSION)|' cmd/spvjit.1 > $(DESTDIR)$(PREFIX)/share/man/man1/spvjit.1
	install -m 644 cmd/spvjit.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/spvjit
	install -m 644 python/spvjit/*.py $(DESTDIR)$(PYTHON_SITE)/spvjit/
	ln -sf $(PREFIX)/lib/libspvjit.so.$(VERSION) $(DESTDIR)$(PYTHON_SITE)/spvjit/libspvjit.so.0

format:
	git ls-files '*.c' '*.h' '*.cpp' | xargs clang-format -i

clean:
	rm -rf build
