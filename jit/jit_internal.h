/* jit/jit_internal.h — the back half of the JIT (optimize.c, emit.c), private to jit/. */
#ifndef SPVJIT_JIT_INTERNAL_H
#define SPVJIT_JIT_INTERNAL_H

#include <stdio.h>
#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "jit.h"
#include "spirv/diag.h"

/* The level a compile runs at (optimize.c): 0..3, the optimized tier at
 * spvjit_options.opt_level, or JIT_LEVEL_QUICK for the quick tier. */
#define JIT_LEVEL_QUICK (-1)
int jit_level(const spvjit_options *o);

/* A target machine for the host CPU (features included), generating code
 * as the level asks. */
LLVMTargetMachineRef jit_host_target_machine(int level, spv_diag *diag);
/* The calling thread's own target machine for the level, made on first use
 * and kept until the thread ends: borrowed, not disposed by the caller. */
LLVMTargetMachineRef jit_thread_target_machine(int level, spv_diag *diag);
/* Runs the level's pass pipeline on the module (optimize.c says which). */
int jit_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int level, spv_diag *diag);

/* Host assembly of a module (malloc'd text; the module is cloned, not changed). */
char *jit_emit_asm(LLVMModuleRef mod, LLVMTargetMachineRef tm, spv_diag *diag);
/* The module as LLVM IR text (malloc'd). */
char *jit_emit_ir(LLVMModuleRef mod);

/* The module as a relocatable object for the host, emitted with tm (the
 * codegen passes change the module: do not use it afterwards).  The buffer,
 * or NULL with diag filled. */
LLVMMemoryBufferRef jit_emit_object(LLVMModuleRef mod, LLVMTargetMachineRef tm, spv_diag *diag);

/* One object's code in the process's JIT (emit.c). */
typedef struct jit_code jit_code;
/* Links an object (the buffer is consumed) into the process's JIT, with the
 * runtime symbols of jit/ and the process's own, and resolves `n` (at most 8)
 * symbols (a NULL name gives NULL).  Returns the code, or NULL with diag
 * filled. */
jit_code *jit_link_object(LLVMMemoryBufferRef obj, const char *const *names, void **addrs, unsigned n, spv_diag *diag);
/* Takes the code out of the JIT (NULL: nothing). */
void jit_code_free(jit_code *code);

#endif
