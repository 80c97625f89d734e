/* cmd/spirv_optimize.h — SPIRV-Tools' optimizer for Amber's SHADER_OPTIMIZATION.
 *
 * SPIRV-Tools (2023.1) offers its optimizer only in C++ (spvtools::Optimizer);
 * spirv_optimize.cpp is the small shim that gives C this one call. */
#ifndef SPVJIT_CMD_SPIRV_OPTIMIZE_H
#define SPVJIT_CMD_SPIRV_OPTIMIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the passes named by `flags` (as spirv-opt takes them: "--inline-entry-
 * points-exhaustive", "-O", "--graphics-robust-access" ...) over the module,
 * for SPIR-V environment `target_env` (a spv_target_env).  On success *out
 * (malloc'd, free() it) holds *nout words and 0 is returned; on failure -1 with
 * SPIRV-Tools' message, on one line, in err. */
int spirv_optimize(int target_env, const uint32_t *words, size_t nwords, const char *const *flags, size_t nflags,
                   uint32_t **out, size_t *nout, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
