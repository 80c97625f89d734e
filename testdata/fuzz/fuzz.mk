# testdata/fuzz/fuzz.mk — build and run the libFuzzer target (clang-19).
#   make fuzz FUZZ_SECONDS=1800
# Invoked by the top-level Makefile with BUILD set; the corpus lives in
# build/fuzz/corpus, seeded from testdata/**/*.spv; crashes go to build/fuzz/.

FUZZ_CC    := clang-19
FUZZ_DIR   := $(BUILD)/fuzz
FUZZ_FLAGS := -std=c17 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -I. -I$(BUILD)/gen
FUZZ_SRCS  := $(wildcard util/*.c) $(wildcard spirv/*.c) $(BUILD)/gen/spirv_grammar.c testdata/fuzz/fuzz_loader.c
FUZZ_JOBS  ?= 1

$(FUZZ_DIR)/fuzz_loader: $(FUZZ_SRCS)
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SRCS) -lSPIRV-Tools-opt -lSPIRV-Tools -lxxhash -lstdc++ -lm -o $@

run: $(FUZZ_DIR)/fuzz_loader
	@mkdir -p $(FUZZ_DIR)/corpus
	@find testdata -name '*.spv' -exec cp {} $(FUZZ_DIR)/corpus/ \;
	cd $(FUZZ_DIR) && ./fuzz_loader -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=20 \
	  -rss_limit_mb=4096 -jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS) -print_final_stats=1 corpus

.DEFAULT_GOAL := run
