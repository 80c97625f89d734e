# bench/peers/peers.mk — the benchmark peers: the lavapipe (Vulkan) runner, the
# PoCL (OpenCL) runner and the C ceiling runner, plus the .spv they load.
#
#   make -f bench/peers/peers.mk BUILD=build            all peers into build/bench/
#   make -f bench/peers/peers.mk peers-deps             apt-get the Debian packages if missing
#   make -f bench/peers/peers.mk BUILD=build/san SAN=1  ASan + UBSan build
#   make -f bench/peers/peers.mk peers-kernels          rebuild bench/kernels/{scan,sgreduce}.{comp,cl}.spv
#
# Can also be included from another makefile (all names are PEERS_* / peers-*).

BUILD ?= build
SAN   ?= 0
CC    ?= cc

PEERS_DEB := mesa-vulkan-drivers libvulkan-dev pocl-opencl-icd ocl-icd-opencl-dev opencl-headers gnuplot-nox

PEERS_OUT := $(BUILD)/bench
PEERS_OBJ := $(PEERS_OUT)/obj

ifeq ($(SAN),1)
PEERS_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
PEERS_OPT := -O1 -g
PEERS_CEIL_OPT := -O1 -g -march=native
else
PEERS_SAN :=
PEERS_OPT := -O2 -g
PEERS_CEIL_OPT := -O3 -march=native
endif

PEERS_CFLAGS := -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -I. $(PEERS_SAN)
# The reference is plain C: no -march=native, no FP contraction, so it shares no
# code generation with the ceiling it checks.
PEERS_REF_CFLAGS := $(PEERS_CFLAGS) $(PEERS_OPT) -ffp-contract=off
PEERS_CEIL_CFLAGS := $(PEERS_CFLAGS) $(PEERS_CEIL_OPT) -fopenmp
PEERS_RUN_CFLAGS := $(PEERS_CFLAGS) $(PEERS_OPT) -DCL_TARGET_OPENCL_VERSION=120

PEERS_COMMON_OBJS := $(PEERS_OBJ)/problems.o $(PEERS_OBJ)/reference.o $(PEERS_OBJ)/bench_util.o
PEERS_CEIL_OBJS := $(PEERS_OBJ)/ceiling.o $(PEERS_OBJ)/ceiling_mm.o $(PEERS_OBJ)/ceiling_conv3x3.o \
                   $(PEERS_OBJ)/ceiling_vector.o

# The kernels lavapipe runs, built from the same GLSL as testdata/ (the .spv
# there is copied when it exists, so both load the very same module).
PEERS_TESTDATA_KERNELS := mm conv3x3 reduce saxpy
# The kernels that live in bench/kernels/.
PEERS_BENCH_KERNELS := scan sgreduce
PEERS_SPV := $(patsubst %,$(PEERS_OUT)/spv/%.spv,$(PEERS_TESTDATA_KERNELS) $(PEERS_BENCH_KERNELS))
PEERS_GLSLANG ?= glslangValidator

.PHONY: peers peers-deps peers-spv peers-kernels peers-clean

peers: $(PEERS_OUT)/c_runner $(PEERS_OUT)/vk_runner $(PEERS_OUT)/cl_runner $(PEERS_SPV)

peers-spv: $(PEERS_SPV)

peers-deps:
	@missing=""; for p in $(PEERS_DEB); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "peers-deps: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi

$(PEERS_OBJ)/problems.o: bench/c/problems.c bench/c/problems.h bench/c/reference.h
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_REF_CFLAGS) -c $< -o $@

$(PEERS_OBJ)/reference.o: bench/c/reference.c bench/c/reference.h
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_REF_CFLAGS) -c $< -o $@

$(PEERS_OBJ)/bench_util.o: bench/peers/bench_util.c bench/peers/bench_util.h bench/c/problems.h
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_RUN_CFLAGS) -c $< -o $@

$(PEERS_CEIL_OBJS): $(PEERS_OBJ)/%.o: bench/c/%.c bench/c/ceiling.h bench/c/problems.h
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_CEIL_CFLAGS) -c $< -o $@

$(PEERS_OBJ)/c_runner.o: bench/peers/c_runner.c bench/peers/bench_util.h bench/c/problems.h bench/c/ceiling.h
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_RUN_CFLAGS) -fopenmp -c $< -o $@

$(PEERS_OBJ)/vk_runner.o $(PEERS_OBJ)/cl_runner.o: $(PEERS_OBJ)/%.o: bench/peers/%.c bench/peers/bench_util.h bench/c/problems.h
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_RUN_CFLAGS) -c $< -o $@

$(PEERS_OUT)/c_runner: $(PEERS_OBJ)/c_runner.o $(PEERS_CEIL_OBJS) $(PEERS_COMMON_OBJS)
	$(CC) $(PEERS_SAN) -fopenmp -o $@ $^ -lm

$(PEERS_OUT)/vk_runner: $(PEERS_OBJ)/vk_runner.o $(PEERS_COMMON_OBJS)
	$(CC) $(PEERS_SAN) -o $@ $^ -lvulkan -lm

$(PEERS_OUT)/cl_runner: $(PEERS_OBJ)/cl_runner.o $(PEERS_COMMON_OBJS)
	$(CC) $(PEERS_SAN) -o $@ $^ -lOpenCL -lm

# testdata's X.comp.spv when it is up to date (the very module spvjit's tests
# load), else the same GLSL compiled here with testdata.mk's command.
PEERS_GLSLANG_FLAGS := -V --target-env vulkan1.1

$(PEERS_OUT)/spv/%.spv: testdata/kernels/%.comp
	@mkdir -p $(dir $@)
	@if [ -f testdata/kernels/$*.comp.spv ] && [ ! testdata/kernels/$*.comp.spv -ot $< ]; then \
	  echo "cp testdata/kernels/$*.comp.spv $@"; cp testdata/kernels/$*.comp.spv $@; \
	else \
	  echo "$(PEERS_GLSLANG) $(PEERS_GLSLANG_FLAGS) $< -o $@"; $(PEERS_GLSLANG) $(PEERS_GLSLANG_FLAGS) $< -o $@ >/dev/null || exit 1; \
	fi

$(PEERS_OUT)/spv/%.spv: bench/kernels/%.comp
	@mkdir -p $(dir $@)
	@if [ -f bench/kernels/$*.comp.spv ] && [ ! bench/kernels/$*.comp.spv -ot $< ]; then \
	  echo "cp bench/kernels/$*.comp.spv $@"; cp bench/kernels/$*.comp.spv $@; \
	else \
	  echo "$(PEERS_GLSLANG) $(PEERS_GLSLANG_FLAGS) $< -o $@"; $(PEERS_GLSLANG) $(PEERS_GLSLANG_FLAGS) $< -o $@ >/dev/null || exit 1; \
	fi

# The committed modules of bench/kernels/ (scan), built like testdata.mk builds
# testdata's: for spvjit's own runner, which takes .spv only.  Validated before
# they replace the committed files.
PEERS_SPIRV_VAL ?= spirv-val
PEERS_CLANG ?= clang-15
PEERS_LLVM_SPIRV ?= llvm-spirv-15
PEERS_CLFLAGS := -cc1 -triple spir64-unknown-unknown -cl-std=CL2.0 -finclude-default-header -O2 \
                 -ffp-contract=off -cl-ext=+cl_khr_subgroups -emit-llvm-bc

peers-kernels:
	@mkdir -p $(PEERS_OBJ)
	@set -e; for k in $(PEERS_BENCH_KERNELS); do \
	  echo "$(PEERS_GLSLANG) $(PEERS_GLSLANG_FLAGS) -o bench/kernels/$$k.comp.spv bench/kernels/$$k.comp"; \
	  $(PEERS_GLSLANG) $(PEERS_GLSLANG_FLAGS) -o bench/kernels/$$k.comp.spv.tmp bench/kernels/$$k.comp >/dev/null; \
	  $(PEERS_SPIRV_VAL) --target-env vulkan1.1 bench/kernels/$$k.comp.spv.tmp; \
	  mv bench/kernels/$$k.comp.spv.tmp bench/kernels/$$k.comp.spv; \
	  echo "$(PEERS_CLANG) ... bench/kernels/$$k.cl | $(PEERS_LLVM_SPIRV) -o bench/kernels/$$k.cl.spv"; \
	  $(PEERS_CLANG) $(PEERS_CLFLAGS) -o $(PEERS_OBJ)/$$k.cl.bc bench/kernels/$$k.cl; \
	  $(PEERS_LLVM_SPIRV) --spirv-max-version=1.2 $(PEERS_OBJ)/$$k.cl.bc -o bench/kernels/$$k.cl.spv.tmp; \
	  $(PEERS_SPIRV_VAL) --target-env opencl2.2 bench/kernels/$$k.cl.spv.tmp; \
	  mv bench/kernels/$$k.cl.spv.tmp bench/kernels/$$k.cl.spv; \
	done

peers-clean:
	rm -rf $(PEERS_OUT)/obj $(PEERS_OUT)/spv $(PEERS_OUT)/c_runner $(PEERS_OUT)/vk_runner $(PEERS_OUT)/cl_runner
