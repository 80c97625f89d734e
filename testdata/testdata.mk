# testdata/testdata.mk — rebuilds the test kernels' .spv from their sources.
#
# Included by the top-level Makefile (`make testdata`); also usable alone:
#   make -f testdata/testdata.mk testdata
#
#   testdata/kernels/X.comp    -> X.comp.spv  glslangValidator, Vulkan 1.1 (SPIR-V 1.3)
#   testdata/kernels/X.cl      -> X.cl.spv    clang-15 (OpenCL C 2.0, spir64) + llvm-spirv-15
#   testdata/kernels/X.spvasm  -> X.spv       spirv-as; the target env is the file's
#                                             "; target-env: ENV" line
#   spec_*.spvasm with "; slot" comments -> X.expected  (spec_expected.py)
#   testdata/malformed/*.spv   <- make_malformed.py, from saxpy.comp.spv
#
# Every module is checked with spirv-val before it replaces the old one, so a
# failing build leaves the committed file alone.  The .spv files are committed:
# `make test` never needs these tools.  Only TESTDATA_* names are defined here.

TESTDATA_GLSLANG    ?= glslangValidator
TESTDATA_CLANG      ?= clang-15
TESTDATA_LLVM_SPIRV ?= llvm-spirv-15
TESTDATA_SPIRV_AS   ?= spirv-as
TESTDATA_SPIRV_VAL  ?= spirv-val
TESTDATA_PYTHON     ?= python3

TESTDATA_KDIR := testdata/kernels
TESTDATA_MDIR := testdata/malformed
TESTDATA_TMP  := build/testdata-tmp

# Vulkan flavour: SPIR-V 1.3, validated under Vulkan 1.1 rules.
TESTDATA_VK_ENV := vulkan1.1
# Kernel flavour: llvm-spirv-15 picks the lowest version the module needs (1.0
# or 1.1 here; its default maximum is 1.4); capped at 1.2 so that spirv-val's
# OpenCL 2.2 environment (SPIR-V <= 1.2) applies its OpenCL rules.
TESTDATA_CL_MAXVER := 1.2
TESTDATA_CL_ENV    := opencl2.2
# -ffp-contract=off: a * b + c stays an FMul and an FAdd (no OpenCL.std mad),
# and the module gets ExecutionMode ContractionOff, so results match the plain
# C references in kernels/reference.h exactly.
TESTDATA_CLFLAGS := -cc1 -triple spir64-unknown-unknown -cl-std=CL2.0 \
                    -finclude-default-header -O2 -ffp-contract=off -emit-llvm-bc

TESTDATA_COMP_SPV := $(patsubst %.comp,%.comp.spv,$(wildcard $(TESTDATA_KDIR)/*.comp))
TESTDATA_CL_SPV   := $(patsubst %.cl,%.cl.spv,$(wildcard $(TESTDATA_KDIR)/*.cl))
TESTDATA_ASM_SPV  := $(patsubst %.spvasm,%.spv,$(wildcard $(TESTDATA_KDIR)/*.spvasm))
# Modules whose expected outputs spec_expected.py computes from "; slot" comments.
TESTDATA_EXPECTED := $(patsubst %,$(TESTDATA_KDIR)/%.expected,spec_ops_shader spec_ops_kernel spec_composite spec_bool)
TESTDATA_MALFORMED_BASE := $(TESTDATA_KDIR)/saxpy.comp.spv

.PHONY: testdata TESTDATA_ALL TESTDATA_MALFORMED

# `make testdata` rebuilds everything, whatever the timestamps say (a fresh
# checkout gives sources and outputs arbitrary relative times).
testdata:
	@$(MAKE) --no-print-directory -B -f testdata/testdata.mk TESTDATA_ALL

TESTDATA_ALL: $(TESTDATA_COMP_SPV) $(TESTDATA_CL_SPV) $(TESTDATA_ASM_SPV) $(TESTDATA_EXPECTED) \
              TESTDATA_MALFORMED

$(TESTDATA_KDIR)/%.comp.spv: $(TESTDATA_KDIR)/%.comp
	$(TESTDATA_GLSLANG) -V --target-env $(TESTDATA_VK_ENV) -o $@.tmp $< >/dev/null
	$(TESTDATA_SPIRV_VAL) --target-env $(TESTDATA_VK_ENV) $@.tmp
	mv $@.tmp $@

$(TESTDATA_KDIR)/%.cl.spv: $(TESTDATA_KDIR)/%.cl
	@mkdir -p $(TESTDATA_TMP)
	$(TESTDATA_CLANG) $(TESTDATA_CLFLAGS) -o $(TESTDATA_TMP)/$*.cl.bc $<
	$(TESTDATA_LLVM_SPIRV) --spirv-max-version=$(TESTDATA_CL_MAXVER) $(TESTDATA_TMP)/$*.cl.bc -o $@.tmp
	$(TESTDATA_SPIRV_VAL) --target-env $(TESTDATA_CL_ENV) $@.tmp
	mv $@.tmp $@

$(TESTDATA_KDIR)/%.spv: $(TESTDATA_KDIR)/%.spvasm
	@env=$$(sed -n 's/^; target-env: *//p' $< | head -n 1); \
	if [ -z "$$env" ]; then echo "$<: no '; target-env: ENV' line" >&2; exit 1; fi; \
	echo "$(TESTDATA_SPIRV_AS) --target-env $$env -o $@ $<"; \
	$(TESTDATA_SPIRV_AS) --target-env $$env -o $@.tmp $< && \
	$(TESTDATA_SPIRV_VAL) --target-env $$env $@.tmp && mv $@.tmp $@

$(TESTDATA_EXPECTED): $(TESTDATA_KDIR)/%.expected: $(TESTDATA_KDIR)/%.spvasm $(TESTDATA_KDIR)/spec_expected.py
	$(TESTDATA_PYTHON) $(TESTDATA_KDIR)/spec_expected.py $< > $@.tmp
	mv $@.tmp $@

TESTDATA_MALFORMED: $(TESTDATA_MALFORMED_BASE)
	$(TESTDATA_PYTHON) $(TESTDATA_MDIR)/make_malformed.py $(TESTDATA_MALFORMED_BASE) $(TESTDATA_MDIR) \
	  --spirv-val $(TESTDATA_SPIRV_VAL)
