# mk/libs.mk — the link line of libspvjit's static library: the one place that
# lists what a program linking build/libspvjit.a needs (the top-level Makefile,
# bench/bench.mk and bench/demo.mk include it).  Deferred (=) so that a make
# started before `make deps` installed LLVM reads llvm-config afterwards.
LLVM_CONFIG ?= llvm-config-19
SPVJIT_GLSLANG_LIBS := -lglslang -lSPIRV -lMachineIndependent -lGenericCodeGen -lOGLCompiler -lOSDependent \
                       -lglslang-default-resource-limits
SPVJIT_LLVM_LIBS = $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) $(shell $(LLVM_CONFIG) --link-shared --libs 2>/dev/null)
SPVJIT_OTHER_LIBS := -lffi -lxxhash -ljson-c -lsodium -lstdc++ -lpthread -lm -ldl
SPVJIT_LDLIBS = $(SPVJIT_GLSLANG_LIBS) -lSPIRV-Tools-opt -lSPIRV-Tools $(SPVJIT_LLVM_LIBS) $(SPVJIT_OTHER_LIBS)

# The same with LLVM's static libraries, for the `spvjit` command and
# libspvjit.so: a process linked with libLLVM.so spends about 20 ms before main
# (ld.so binding and relocating libLLVM's symbols), and every run of the
# command, every program embedding the library, pays it; linked statically
# (still position-independent), about 5 ms.  The components are those libspvjit calls;
# --as-needed keeps LLVM's system libraries (z3, libxml2) that none of them
# uses out of the program; zlib and zstd it does use (LLVM's Support), so
# `make deps` installs zlib1g-dev and libzstd-dev.
SPVJIT_LLVM_COMPONENTS := core passes orcjit native
SPVJIT_LLVM_STATIC_LIBS = $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) \
                          $(shell $(LLVM_CONFIG) --link-static --libs $(SPVJIT_LLVM_COMPONENTS) 2>/dev/null) \
                          -Wl,--as-needed $(shell $(LLVM_CONFIG) --link-static --system-libs 2>/dev/null) -Wl,--no-as-needed
SPVJIT_STATIC_LLVM_LDLIBS = $(SPVJIT_GLSLANG_LIBS) -lSPIRV-Tools-opt -lSPIRV-Tools $(SPVJIT_LLVM_STATIC_LIBS) \
                            $(SPVJIT_OTHER_LIBS)
