# mk/libs.mk — the link line of libspvjit's static library: the one place that
# lists what a program linking build/libspvjit.a needs (the top-level Makefile,
# bench/bench.mk and bench/demo.mk include it).  Deferred (=) so that a make
# started before `make deps` installed LLVM reads llvm-config afterwards.
LLVM_CONFIG ?= llvm-config-19
SPVJIT_GLSLANG_LIBS := -lglslang -lSPIRV -lMachineIndependent -lGenericCodeGen -lOGLCompiler -lOSDependent \
                       -lglslang-default-resource-limits
SPVJIT_LLVM_LIBS = $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) $(shell $(LLVM_CONFIG) --link-shared --libs 2>/dev/null)
SPVJIT_LDLIBS = $(SPVJIT_GLSLANG_LIBS) -lSPIRV-Tools-opt -lSPIRV-Tools $(SPVJIT_LLVM_LIBS) -lffi -lxxhash -ljson-c -lsodium \
                -lstdc++ -lpthread -lm -ldl
