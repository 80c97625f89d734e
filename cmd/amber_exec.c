/* cmd/amber_exec.c — `spvjit amber SCRIPT...`: compile the shaders of parsed
 * Amber scripts, run their commands through the public spvjit API, and report
 * pass / fail / skip per script.
 *
 * Shaders: SPIRV-ASM through SPIRV-Tools' spvTextToBinary, SPIRV-HEX decoded
 * here, GLSL through glslang's C interface when built with
 * SPVJIT_HAVE_GLSLANG (else the glslangValidator program), OPENCL-C through
 * clang-15 + llvm-spirv-15 when they are installed (else skipped).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* libspirv.h defines (not declares) a const in C; rename our copy so it does not
 * collide with the one spirv/validate.c already brings into the link. */
#define kDefaultMaxIdBound amber_exec_kDefaultMaxIdBound
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound

#ifdef SPVJIT_HAVE_GLSLANG
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
#endif

#include "amber.h"
#include "cli.h"
#include "spirv_optimize.h"
#include "util/timer.h"

static int msgf(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int msgf(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* --- device features ------------------------------------------------------------------- */

/* What a CPU running SPIR-V through LLVM provides: every scalar width, 8/16-bit
 * storage, variable pointers, subgroup operations in compute, 64-bit atomics. */
static const char *const supported_features[] = {
    "shaderFloat64",
    "shaderInt64",
    "shaderInt16",
    "robustBufferAccess",
    "vertexPipelineStoresAndAtomics",
    "fragmentStoresAndAtomics",
    "shaderStorageBufferArrayDynamicIndexing",
    "shaderUniformBufferArrayDynamicIndexing",
    "Float16Int8Features.shaderFloat16",
    "Float16Int8Features.shaderInt8",
    "Storage16BitFeatures.storageBuffer16BitAccess",
    "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "Storage16BitFeatures.storagePushConstant16",
    "Storage8BitFeatures.storageBuffer8BitAccess",
    "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "Storage8BitFeatures.storagePushConstant8",
    "VariablePointerFeatures.variablePointers",
    "VariablePointerFeatures.variablePointersStorageBuffer",
    "VariablePointerFeaturesKHR.variablePointers",
    "VariablePointerFeaturesKHR.variablePointersStorageBuffer",
    "ShaderSubgroupExtendedTypesFeatures.shaderSubgroupExtendedTypes",
    "SubgroupSupportedOperations.basic",
    "SubgroupSupportedOperations.vote",
    "SubgroupSupportedOperations.arithmetic",
    "SubgroupSupportedOperations.ballot",
    "SubgroupSupportedOperations.shuffle",
    "SubgroupSupportedOperations.shuffleRelative",
    "SubgroupSupportedOperations.clustered",
    "SubgroupSupportedOperations.quad",
    "SubgroupSupportedStages.compute",
    "ShaderAtomicInt64Features.shaderBufferInt64Atomics",
    "ShaderAtomicInt64Features.shaderSharedInt64Atomics",
    "VulkanMemoryModelFeatures.vulkanMemoryModel",
    "VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope",
    "UniformBufferStandardLayoutFeatures.uniformBufferStandardLayout",
    "ScalarBlockLayoutFeatures.scalarBlockLayout",
    "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory",
    "WorkgroupMemoryExplicitLayoutFeatures.workgroupMemoryExplicitLayout",
    "WorkgroupMemoryExplicitLayoutFeatures.workgroupMemoryExplicitLayoutScalarBlockLayout",
    "WorkgroupMemoryExplicitLayoutFeatures.workgroupMemoryExplicitLayout8BitAccess",
    "WorkgroupMemoryExplicitLayoutFeatures.workgroupMemoryExplicitLayout16BitAccess",
    /* descriptor arrays of buffers take any index, uniform or not (not: partially bound, runtime-sized) */
    "DescriptorIndexingFeatures.shaderStorageBufferArrayNonUniformIndexing",
    "DescriptorIndexingFeatures.shaderUniformBufferArrayNonUniformIndexing",
    /* sub-groups of 1 or of 4 to 64 SIMD lanes (SUBGROUP blocks, cmd/amber_parse.c) */
    "SubgroupSizeControl.subgroupSizeControl",
    "SubgroupSizeControl.computeFullSubgroups",
    NULL,
};

static const char *const supported_extensions[] = {
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_variable_pointers",
    "VK_KHR_16bit_storage",
    "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_shader_subgroup_extended_types",
    "VK_KHR_get_physical_device_properties2",
    "VK_KHR_shader_atomic_int64",
    "VK_KHR_vulkan_memory_model",
    "VK_KHR_shader_float_controls",
    "VK_EXT_scalar_block_layout",
    "VK_KHR_spirv_1_4",
    "VK_KHR_shader_non_semantic_info",
    "VK_KHR_uniform_buffer_standard_layout",
    "VK_KHR_relaxed_block_layout",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_shader_terminate_invocation",
    "VK_KHR_zero_initialize_workgroup_memory",
    "VK_KHR_workgroup_memory_explicit_layout",
    "VK_EXT_subgroup_size_control",
    "VK_EXT_descriptor_indexing",
    NULL,
};

/* Boolean device properties that hold: LLVM's default floating-point
 * environment keeps denormals (no flush-to-zero is set), signed zeros,
 * infinities and NaNs, and rounds to nearest even, at every width. */
static const char *const supported_properties[] = {
    "FloatControlsProperties.shaderDenormPreserveFloat16",
    "FloatControlsProperties.shaderDenormPreserveFloat32",
    "FloatControlsProperties.shaderDenormPreserveFloat64",
    "FloatControlsProperties.shaderSignedZeroInfNanPreserveFloat16",
    "FloatControlsProperties.shaderSignedZeroInfNanPreserveFloat32",
    "FloatControlsProperties.shaderSignedZeroInfNanPreserveFloat64",
    "FloatControlsProperties.shaderRoundingModeRTEFloat16",
    "FloatControlsProperties.shaderRoundingModeRTEFloat32",
    "FloatControlsProperties.shaderRoundingModeRTEFloat64",
    NULL,
};

static bool in_list(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (!strcmp(*list, name))
            return true;
    return false;
}

bool amber_feature_supported(const char *name)
{
    return in_list(supported_features, name);
}
bool amber_extension_supported(const char *name)
{
    return in_list(supported_extensions, name);
}
bool amber_property_supported(const char *name)
{
    return in_list(supported_properties, name);
}

/* --- shader compilation ------------------------------------------------------------------ */

typedef struct words {
    uint32_t *w;
    size_t n;
} words;

static int assemble(const amber_shader *sh, const char *env_name, words *out, char *msg, size_t len)
{
    spv_target_env env = SPV_ENV_UNIVERSAL_1_0; /* Amber's default */
    if (env_name && !spvParseTargetEnv(env_name, &env))
        return msgf(msg, len, "shader %s: unknown TARGET_ENV '%s'", sh->name, env_name);
    spv_context ctx = spvContextCreate(env);
    spv_binary bin = NULL;
    spv_diagnostic diag = NULL;
    spv_result_t r = spvTextToBinary(ctx, sh->source, sh->source_len, &bin, &diag);
    int rc = 0;
    if (r != SPV_SUCCESS) {
        rc = msgf(msg, len, "shader %s (line %d): SPIR-V assembly, line %zu: %s", sh->name, sh->line,
                  diag ? diag->position.line + 1 : 0, diag && diag->error ? diag->error : "error");
    } else if (!(out->w = malloc(bin->wordCount * 4))) {
        rc = msgf(msg, len, "out of memory");
    } else {
        memcpy(out->w, bin->code, bin->wordCount * 4);
        out->n = bin->wordCount;
    }
    spvBinaryDestroy(bin);
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return rc;
}

/* Hex text: bytes ("03 02 23 07", Amber) or 32-bit words ("07230203", VkRunner). */
static int decode_hex(const amber_shader *sh, words *out, char *msg, size_t len)
{
    size_t cap = sh->source_len / 2 + 8, nb = 0;
    uint8_t *b = malloc(cap);
    if (!b)
        return msgf(msg, len, "out of memory");
    const char *p = sh->source, *end = p + sh->source_len;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ','))
            p++;
        if (p < end && *p == '#') { /* comment */
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (p >= end)
            break;
        const char *s = p;
        if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
            s = p += 2;
        uint32_t v = 0;
        while (p < end) {
            int d = *p >= '0' && *p <= '9'   ? *p - '0'
                    : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                    : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                             : -1;
            if (d < 0)
                break;
            v = v << 4 | (uint32_t)d;
            p++;
        }
        size_t digits = (size_t)(p - s);
        if (!digits || digits > 8 || (p < end && !strchr(" \t\r\n,#", *p))) {
            free(b);
            return msgf(msg, len, "shader %s (line %d): SPIRV-HEX: bad hex '%.*s'", sh->name, sh->line,
                        (int)(digits + 1 < 16 ? digits + 1 : 16), s);
        }
        size_t k = digits <= 2 ? 1 : 4; /* a byte or a little-endian word */
        if (nb + k > cap) {
            cap = cap * 2 + 8;
            uint8_t *nbuf = realloc(b, cap);
            if (!nbuf) {
                free(b);
                return msgf(msg, len, "out of memory");
            }
            b = nbuf;
        }
        memcpy(b + nb, &v, k);
        nb += k;
    }
    if (nb % 4 || nb < 20) {
        free(b);
        return msgf(msg, len, "shader %s (line %d): SPIRV-HEX holds %zu bytes, not a SPIR-V module", sh->name, sh->line,
                    nb);
    }
    out->w = (uint32_t *)(void *)b;
    out->n = nb / 4;
    return 0;
}

static int from_bytes(const char *bytes, size_t n, words *out, char *msg, size_t len, const char *name)
{
    if (n % 4 || n < 20)
        return msgf(msg, len, "shader %s: %zu bytes is not a SPIR-V module", name, n);
    if (!(out->w = malloc(n)))
        return msgf(msg, len, "out of memory");
    memcpy(out->w, bytes, n);
    out->n = n / 4;
    return 0;
}

static bool have_program(const char *name)
{
    const char *path = getenv("PATH");
    char buf[4096];
    if (!path)
        path = "/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *c = strchr(p, ':');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)l, p, name);
        if (access(buf, X_OK) == 0)
            return true;
        p += l + (c ? 1 : 0);
    }
    return false;
}

/* Runs `cmd` (a shell line); returns its exit status and its output in out. */
static int run_capture(const char *cmd, char *out, size_t len)
{
    char full[8192];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *f = popen(full, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, len - 1, f);
    out[n] = 0;
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int read_words(const char *path, words *out, char *msg, size_t len, const char *name)
{
    fill_data fd;
    char spec[4200], e[512];
    snprintf(spec, sizeof spec, "@%s", path);
    if (fill_parse(spec, &fd, e, sizeof e))
        return msgf(msg, len, "shader %s: %s", name, e);
    int r = from_bytes((const char *)fd.bytes, fd.size, out, msg, len, name);
    fill_free(&fd);
    return r;
}

/* Skips return 1 (with the reason in msg), errors -1. */
static int compile_external(const amber_shader *sh, const char *target_env, const char *options, words *out, char *msg,
                            size_t len)
{
    char dir[] = "/tmp/spvjit-amber-XXXXXX";
    if (!mkdtemp(dir))
        return msgf(msg, len, "cannot create a temporary directory: %s", strerror(errno));
    char src[64], bc[64], spv[64], cmd[2048], log[4096];
    bool cl = sh->format == AMBER_OPENCL_C;
    snprintf(src, sizeof src, "%s/shader.%s", dir, cl ? "cl" : "comp");
    snprintf(bc, sizeof bc, "%s/shader.bc", dir);
    snprintf(spv, sizeof spv, "%s/shader.spv", dir);
    int rc = 0;
    if (write_file(src, sh->source, sh->source_len)) {
        rc = msgf(msg, len, "cannot write %s", src);
        goto done;
    }
    if (cl) {
        /* Unoptimized (the JIT optimizes) and SPIR-V 1.3 at most: llvm-spirv-15 turns
         * LLVM's vector reductions and some -O2 code into invalid SPIR-V, and
         * leaves variables out of 1.4 entry-point interfaces.  -D/-U/-cl-std
         * options from COMPILE_OPTIONS carry over; clspv-only ones do not. */
        char opts[1024] = "";
        if (options) {
            char *copy = strdup(options), *save = NULL;
            for (char *t = copy ? strtok_r(copy, " ", &save) : NULL; t; t = strtok_r(NULL, " ", &save))
                if ((!strncmp(t, "-D", 2) || !strncmp(t, "-cl-std=", 8) || !strncmp(t, "-U", 2)) &&
                    !strpbrk(t, "'\"\\$`;&|<>") && strlen(opts) + strlen(t) + 2 < sizeof opts) {
                    strcat(opts, " ");
                    strcat(opts, t);
                }
            free(copy);
        }
        snprintf(cmd, sizeof cmd,
                 "clang-15 -target spir64-unknown-unknown -cl-std=CL2.0 -Xclang -finclude-default-header "
                 "-fno-discard-value-names -O0 -Xclang -disable-O0-optnone -c -emit-llvm%s -o '%s' '%s' && "
                 "llvm-spirv-15 --spirv-max-version=1.3 '%s' -o '%s'",
                 opts, bc, src, bc, spv);
    } else {
        const char *env = target_env ? target_env : "vulkan1.0";
        if (strpbrk(env, "'\"\\$`;&|<> ")) {
            rc = msgf(msg, len, "shader %s: bad TARGET_ENV '%s'", sh->name, env);
            goto done;
        }
        snprintf(cmd, sizeof cmd, "glslangValidator -V --target-env %s -S comp -o '%s' '%s'", env, spv, src);
    }
    if (run_capture(cmd, log, sizeof log) != 0) {
        char *nl;
        while ((nl = strchr(log, '\n')))
            *nl = ' ';
        rc = msgf(msg, len, "shader %s (line %d) does not compile: %.900s", sh->name, sh->line, log);
        goto done;
    }
    rc = read_words(spv, out, msg, len, sh->name);
done:
    unlink(src);
    unlink(bc);
    unlink(spv);
    rmdir(dir);
    return rc;
}

#ifdef SPVJIT_HAVE_GLSLANG
static void glslang_once(void)
{
    static bool initialized;
    if (!initialized) {
        glslang_initialize_process();
        initialized = true;
    }
}

static int compile_glsl(const amber_shader *sh, const char *target_env, words *out, char *msg, size_t len)
{
    glslang_once();
    /* TARGET_ENV: vulkan1.0..1.3 (SPIR-V 1.0/1.3/1.5/1.6) or spv1.0..1.6 */
    const char *env = target_env ? target_env : "vulkan1.0";
    glslang_target_client_version_t client = GLSLANG_TARGET_VULKAN_1_0;
    glslang_target_language_version_t spv = GLSLANG_TARGET_SPV_1_0;
    if (!strcmp(env, "vulkan1.1")) {
        client = GLSLANG_TARGET_VULKAN_1_1;
        spv = GLSLANG_TARGET_SPV_1_3;
    } else if (!strcmp(env, "vulkan1.2")) {
        client = GLSLANG_TARGET_VULKAN_1_2;
        spv = GLSLANG_TARGET_SPV_1_5;
    } else if (!strcmp(env, "vulkan1.3")) {
        client = GLSLANG_TARGET_VULKAN_1_3;
        spv = GLSLANG_TARGET_SPV_1_6;
    } else if (!strncmp(env, "spv1.", 5) && env[5] >= '0' && env[5] <= '6' && !env[6]) {
        spv = (glslang_target_language_version_t)((1 << 16) | ((env[5] - '0') << 8));
        client = env[5] >= '6'   ? GLSLANG_TARGET_VULKAN_1_3
                 : env[5] >= '5' ? GLSLANG_TARGET_VULKAN_1_2
                 : env[5] >= '3' ? GLSLANG_TARGET_VULKAN_1_1
                                 : GLSLANG_TARGET_VULKAN_1_0;
    } else if (strcmp(env, "vulkan1.0")) {
        return msgf(msg, len, "shader %s: unknown TARGET_ENV '%s'", sh->name, env);
    }
    glslang_input_t in = {
        .language = GLSLANG_SOURCE_GLSL,
        .stage = GLSLANG_STAGE_COMPUTE,
        .client = GLSLANG_CLIENT_VULKAN,
        .client_version = client,
        .target_language = GLSLANG_TARGET_SPV,
        .target_language_version = spv,
        .code = sh->source,
        .default_version = 100,
        .default_profile = GLSLANG_NO_PROFILE,
        .messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
        .resource = glslang_default_resource(),
    };
    glslang_shader_t *s = glslang_shader_create(&in);
    glslang_program_t *p = NULL;
    int rc = 0;
    if (!s)
        return msgf(msg, len, "out of memory");
    if (!glslang_shader_preprocess(s, &in) || !glslang_shader_parse(s, &in)) {
        rc = msgf(msg, len, "shader %s (line %d) does not compile: %.900s", sh->name, sh->line,
                  glslang_shader_get_info_log(s));
        goto done;
    }
    p = glslang_program_create();
    glslang_program_add_shader(p, s);
    if (!glslang_program_link(p, GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT)) {
        rc = msgf(msg, len, "shader %s (line %d) does not link: %.900s", sh->name, sh->line,
                  glslang_program_get_info_log(p));
        goto done;
    }
    glslang_program_SPIRV_generate(p, GLSLANG_STAGE_COMPUTE);
    out->n = glslang_program_SPIRV_get_size(p);
    if (!(out->w = malloc(out->n * 4 + 4))) {
        rc = msgf(msg, len, "out of memory");
        goto done;
    }
    glslang_program_SPIRV_get(p, out->w);
done:
    if (p)
        glslang_program_delete(p);
    glslang_shader_delete(s);
    for (char *c = msg; rc && *c; c++)
        if (*c == '\n')
            *c = ' ';
    return rc;
}
#endif

/* The "#version ..." lines of the scripts, each with how many scripts use it. */
typedef struct version_use {
    char text[32];
    unsigned scripts;
} version_use;

static unsigned script_versions(char *const *paths, unsigned n, version_use *v, unsigned cap)
{
    unsigned nv = 0;
    for (unsigned i = 0; i < n; i++) {
        FILE *f = fopen(paths[i], "r");
        char line[256];
        bool counted[16] = { false }; /* a script counts once per version */
        while (f && fgets(line, sizeof line, f)) {
            const char *p = line + strspn(line, " \t");
            char text[32];
            if (strncmp(p, "#version", 8) || sscanf(p + 8, " %31[^\r\n]", text) != 1)
                continue;
            unsigned k = 0;
            while (k < nv && strcmp(v[k].text, text))
                k++;
            if (k == nv && nv < cap && nv < 16)
                snprintf(v[nv++].text, sizeof v[0].text, "%s", text);
            if (k < nv && !counted[k]) {
                counted[k] = true;
                v[k].scripts++;
            }
        }
        if (f)
            fclose(f);
    }
    return nv;
}

void amber_warm_compilers(char *const *paths, unsigned n)
{
#ifdef SPVJIT_HAVE_GLSLANG
    version_use v[16] = { 0 };
    unsigned nv = script_versions(paths, n, v, 16);
    for (unsigned i = 0; i < nv; i++) {
        if (v[i].scripts < 2)
            continue; /* building the tables here would cost what it saves */
        char src[sizeof v[i].text + 64];
        snprintf(src, sizeof src, "#version %.31s\nlayout(local_size_x = 1) in;\nvoid main() {}\n", v[i].text);
        amber_shader sh = { .name = "warm-up", .format = AMBER_GLSL, .source = src, .source_len = strlen(src) };
        words w = { 0 };
        char msg[1024];
        (void)compile_glsl(&sh, NULL, &w, msg, sizeof msg); /* a version that fails has built its tables too */
        free(w.w);
    }
#else
    (void)paths;
    (void)n;
#endif
}

static spvjit_tier tier; /* spvjit amber --tier */

void amber_set_tier(spvjit_tier t)
{
    tier = t;
}

static const char *default_target_env; /* spvjit amber --target-env */

void amber_set_default_target_env(const char *env)
{
    default_target_env = env;
}

/* The environment a shader is built for: its TARGET_ENV, else --target-env,
 * else SPIR-V 1.4 when the script requires an extension that needs it
 * (VK_KHR_spirv_1_4: 1.4 instructions on a Vulkan 1.1 device;
 * VK_KHR_workgroup_memory_explicit_layout: its SPIR-V extension requires
 * 1.4), else the tool's default (NULL: SPIR-V 1.0, as Amber assembles;
 * Vulkan 1.0 for GLSL). */
static const char *target_env_of(const amber_script *s, const amber_shader *sh)
{
    static const char *const needs_1_4[] = { "VK_KHR_spirv_1_4", "VK_KHR_workgroup_memory_explicit_layout" };
    if (sh->target_env)
        return sh->target_env;
    if (default_target_env)
        return default_target_env;
    for (unsigned i = 0; i < s->nextensions; i++)
        for (size_t k = 0; k < sizeof needs_1_4 / sizeof needs_1_4[0]; k++)
            if (!strcmp(s->extensions[i], needs_1_4[k]))
                return "spv1.4";
    return NULL;
}

/* 0: compiled; 1: skipped (reason in msg); -1: error. */
static int compile_shader(const amber_script *s, const amber_pipeline *pl, words *out, char *msg, size_t len)
{
    const amber_shader *sh = &s->shaders[pl->shader];
    const char *env = target_env_of(s, sh);
    switch (sh->format) {
    case AMBER_SPIRV_ASM:
        return assemble(sh, env, out, msg, len);
    case AMBER_SPIRV_HEX:
        return decode_hex(sh, out, msg, len);
    case AMBER_SPIRV_BIN:
        return from_bytes(sh->source, sh->source_len, out, msg, len, sh->name);
    case AMBER_GLSL:
#ifdef SPVJIT_HAVE_GLSLANG
        return compile_glsl(sh, env, out, msg, len);
#else
        if (!have_program("glslangValidator"))
            return msgf(msg, len, "GLSL shaders need glslang (glslangValidator not found)"), 1;
        return compile_external(sh, env, pl->compile_options, out, msg, len);
#endif
    case AMBER_OPENCL_C:
        if (!have_program("clang-15") || !have_program("llvm-spirv-15"))
            return msgf(msg, len, "OPENCL-C shaders need clang-15 and llvm-spirv-15"), 1;
        return compile_external(sh, env, pl->compile_options, out, msg, len);
    case AMBER_HLSL:
        return msgf(msg, len, "HLSL shaders"), 1;
    default:
        return msgf(msg, len, "shader format of %s", sh->name), 1;
    }
}

/* --- running ------------------------------------------------------------------------------- */

typedef struct exec {
    amber_script *s;
    spvjit_context *ctx;
    spvjit_module **pmods;   /* per pipeline, loaded on first use; shared by pipelines that build the same */
    bool *pmod_owned;        /* the pipeline that loaded it destroys it */
    spvjit_kernel **kernels; /* per pipeline, ready at its first RUN */
    struct pending {         /* per pipeline: its build on the thread pool (prebuild_kernels) */
        spvjit_build_event *ev;
        bool check_ls; /* a Kernel of a fixed local size: must match SPECIALIZE's */
        uint32_t cl_ls[3];
        spvjit_build_options bo; /* what it was built with */
        spvjit_specs *specs;     /* and its values, while SUBGROUP FULLY_POPULATED may build again */
    } * pending;
    char *msg;
    size_t len;
    bool skipped;
    bool timed_out;       /* a dispatch passed the script's time limit */
    double deadline_ms;   /* util_now_ms() at the time limit, 0: none */
    spvjit_memory memory; /* the kernels' memory mode (0: the run's) */
} exec;

/* A script that needs more than spvjit's limits (a work-group size, work-group
 * or private memory) is skipped, as a device without a feature skips it. */
static int api_fail(exec *X, int line, const char *what, spvjit_status st)
{
    const char *e = spvjit_last_error();
    X->skipped = st == SPVJIT_ERROR_LIMIT;
    msgf(X->msg, X->len, "line %d: %s: %s%s%s", line, what, spvjit_status_name(st), e && *e ? ": " : "", e ? e : "");
    /* one line per script: fold a multi-line library message */
    size_t n = strlen(X->msg);
    while (n && (X->msg[n - 1] == '\n' || X->msg[n - 1] == ' '))
        X->msg[--n] = 0;
    for (char *c = X->msg; *c; c++)
        if (*c == '\n')
            *c = ' ';
    return -1;
}

static spvjit_module *mod_of(exec *X, const amber_pipeline *pl)
{
    return X->pmods[pl - X->s->pipelines];
}

/* SHADER_OPTIMIZATION: SPIRV-Tools' passes over the shader's words, in place. */
static int optimize_shader(exec *X, const amber_pipeline *pl, words *w)
{
    const amber_shader *sh = &X->s->shaders[pl->shader];
    const char *env_name = target_env_of(X->s, sh);
    spv_target_env env = SPV_ENV_UNIVERSAL_1_0;
    if (env_name && !spvParseTargetEnv(env_name, &env))
        return msgf(X->msg, X->len, "shader %s: unknown TARGET_ENV '%s'", sh->name, env_name);
    uint32_t *out;
    size_t nout;
    char err[1024];
    if (spirv_optimize((int)env, w->w, w->n, (const char *const *)pl->opt_flags, pl->nopt_flags, &out, &nout, err,
                       sizeof err))
        return msgf(X->msg, X->len, "line %d: SHADER_OPTIMIZATION of %s: %s", pl->line, sh->name, err);
    free(w->w);
    w->w = out;
    w->n = nout;
    return 0;
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Whether pipelines a and b build the same module: same shader, compile
 * options and SHADER_OPTIMIZATION passes. */
static bool same_module(const amber_pipeline *a, const amber_pipeline *b)
{
    if (a->shader != b->shader || !same_str(a->compile_options, b->compile_options) || a->nopt_flags != b->nopt_flags)
        return false;
    for (unsigned i = 0; i < a->nopt_flags; i++)
        if (strcmp(a->opt_flags[i], b->opt_flags[i]))
            return false;
    return true;
}

/* Compiles and loads the module pipeline pi runs, or shares the one an
 * earlier pipeline built the same way (X->pmod_owned marks the owner). */
static int load_module(exec *X, unsigned pi, int line)
{
    const amber_pipeline *pl = &X->s->pipelines[pi];
    if (X->pmods[pi])
        return 0;
    for (unsigned j = 0; j < X->s->npipelines; j++)
        if (j != pi && X->pmods[j] && same_module(&X->s->pipelines[j], pl)) {
            X->pmods[pi] = X->pmods[j];
            return 0;
        }
    const amber_shader *sh = &X->s->shaders[pl->shader];
    words w = { 0 };
    int r = compile_shader(X->s, pl, &w, X->msg, X->len);
    if (r) {
        X->skipped = r > 0;
        return -1;
    }
    if (pl->nopt_flags && optimize_shader(X, pl, &w)) {
        free(w.w);
        return -1;
    }
    spvjit_module *m = NULL;
    spvjit_status st = spvjit_module_load(X->ctx, w.w, w.n * 4, sh->name, &m);
    free(w.w);
    if (st)
        return api_fail(X, line, "loading the shader", st);
    X->pmods[pi] = m;
    X->pmod_owned[pi] = true;
    return 0;
}

/* Finds kernel argument `name` (or number) among the entry's resources. */
static int find_arg(exec *X, const amber_pipeline *pl, const char *name, uint32_t number, int line,
                    spvjit_resource_info *ri)
{
    spvjit_module *m = mod_of(X, pl);
    unsigned n = spvjit_module_resource_count(m, pl->entry);
    for (unsigned i = 0; i < n; i++) {
        if (spvjit_module_resource_info(m, pl->entry, i, ri))
            continue;
        bool arg =
            ri->kind == SPVJIT_RES_ARG_POINTER || ri->kind == SPVJIT_RES_ARG_LOCAL || ri->kind == SPVJIT_RES_ARG_VALUE;
        if (arg && (name ? ri->name && !strcmp(ri->name, name) : ri->index == number))
            return 0;
    }
    if (name)
        return msgf(X->msg, X->len, "line %d: entry %s has no kernel argument named '%s'", line, pl->entry, name);
    return msgf(X->msg, X->len, "line %d: entry %s has no kernel argument %u", line, pl->entry, number);
}

/* VkScript buffers the shader declares but the script never sized: grow to the declared size. */
static int fit_vkscript_buffers(exec *X, const amber_pipeline *pl)
{
    spvjit_module *m = mod_of(X, pl);
    unsigned n = spvjit_module_resource_count(m, pl->entry);
    for (unsigned i = 0; i < n; i++) {
        spvjit_resource_info ri;
        if (spvjit_module_resource_info(m, pl->entry, i, &ri))
            continue;
        for (unsigned k = 0; k < pl->nbinds; k++) {
            const amber_binding *b = &pl->binds[k];
            bool match = (b->kind == AMBER_BIND_PUSH_CONSTANT && ri.kind == SPVJIT_RES_PUSH_CONSTANTS) ||
                         (b->kind != AMBER_BIND_PUSH_CONSTANT && ri.kind != SPVJIT_RES_PUSH_CONSTANTS &&
                          b->set == ri.set && b->binding == ri.binding);
            if (match && amber_buffer_reserve(&X->s->buffers[b->buffer], (size_t)ri.size))
                return msgf(X->msg, X->len, "out of memory");
        }
    }
    return 0;
}

/* The module's spec constant with this SpecId, or false. */
static bool module_spec(spvjit_module *m, uint32_t id, spvjit_spec_info *out)
{
    unsigned n = spvjit_module_spec_count(m);
    for (unsigned i = 0; i < n; i++)
        if (!spvjit_module_spec_info(m, i, out) && out->spec_id == id)
            return true;
    return false;
}

static int settle_build(exec *X, unsigned pi, int line);

/* Builds pipeline pi: its module compiled and loaded, its spec values, its
 * options; on the thread pool when async (X->pending[pi]: its own errors come
 * from finish_build), else here into X->kernels[pi].  -1 with the message. */
static int start_build(exec *X, unsigned pi, int line, bool async)
{
    amber_pipeline *pl = &X->s->pipelines[pi];
    struct pending *pb = &X->pending[pi];
    if (load_module(X, pi, line))
        return -1;
    spvjit_module *m = mod_of(X, pl);
    spvjit_specs *specs = NULL;
    spvjit_status st = spvjit_specs_create(&specs);
    /* clspv gives an OpenCL C kernel's work-group size spec ids 0, 1, 2, so
     * Amber scripts SPECIALIZE them; llvm-spirv's modules have no such ids */
    uint32_t cl_ls[3] = { 1, 1, 1 };
    bool cl_ls_set = false, opencl_c = X->s->shaders[pl->shader].format == AMBER_OPENCL_C;
    for (unsigned i = 0; !st && i < pl->nspecs; i++) {
        const amber_spec *sp = &pl->specs[i];
        spvjit_spec_info si;
        if (opencl_c && sp->id <= 2 && !module_spec(m, sp->id, &si)) {
            if (sp->bits == 0 || sp->bits > UINT32_MAX)
                return spvjit_specs_destroy(specs),
                       msgf(X->msg, X->len, "line %d: SPECIALIZE %u (work-group size) must be 1 or more, not %" PRIu64,
                            pl->line, sp->id, sp->bits);
            cl_ls[sp->id] = (uint32_t)sp->bits;
            cl_ls_set = true;
            continue;
        }
        /* SPECIALIZE gives bytes, as VkSpecializationInfo does: the library reads
         * them as the constant's type (a bool: a VkBool32, 0 or 1) */
        uint64_t bits = sp->bits;
        st = spvjit_spec_set_bytes(specs, sp->id, &bits, vtype_size(sp->type));
    }
    if (st) {
        spvjit_specs_destroy(specs);
        return api_fail(X, pl->line, "SPECIALIZE", st);
    }
    /* A Kernel runs RUN's group counts at its own work-group size
     * (reqd_work_group_size: LocalSize), else at the size the clspv spec ids
     * 0, 1, 2 give (clspv_local_size), else 1x1x1, as Amber's OpenCL path does. */
    spvjit_build_options *bo = &pb->bo;
    memset(bo, 0, sizeof *bo);
    bo->memory = X->memory; /* robust for a script asking for it (script_memory) */
    bo->subgroup_size = pl->subgroup_size; /* SUBGROUP REQUIRED_SIZE (0: the default) */
    if (spvjit_module_flavour(m) == SPVJIT_FLAVOUR_KERNEL) {
        spvjit_entry_info ei = { 0 };
        for (unsigned i = 0, n = spvjit_module_entry_count(m); i < n; i++)
            if (!spvjit_module_entry_info(m, i, &ei) && (pl->entry ? !strcmp(ei.name, pl->entry) : ei.is_compute))
                break;
        if (ei.local_size_kind == SPVJIT_LOCAL_SIZE_DISPATCH)
            memcpy(bo->local_size, cl_ls, sizeof cl_ls);
        else if (cl_ls_set)
            pb->check_ls = true;
        memcpy(pb->cl_ls, cl_ls, sizeof cl_ls);
    }
    st = async ? spvjit_kernel_build_async(m, pl->entry, specs, bo, &pb->ev)
               : spvjit_kernel_build(m, pl->entry, specs, bo, &X->kernels[pi]);
    if (!st && pl->full_subgroups && !pl->subgroup_size)
        pb->specs = specs; /* fit_full_subgroups may build again */
    else
        spvjit_specs_destroy(specs);
    if (st)
        return api_fail(X, line, "building the pipeline", st);
    return async ? 0 : settle_build(X, pi, line);
}

/* Waits for pipeline pi's build: the kernel in X->kernels[pi], or -1 with the message. */
static int finish_build(exec *X, unsigned pi, int line)
{
    struct pending *pb = &X->pending[pi];
    spvjit_status st = spvjit_build_wait(pb->ev, &X->kernels[pi]);
    pb->ev = NULL;
    if (st)
        return api_fail(X, line, "building the pipeline", st);
    return settle_build(X, pi, line);
}

/* A Kernel of a fixed local size runs at it: SPECIALIZE must not ask for another. */
static int check_local_size(exec *X, unsigned pi, int line)
{
    const amber_pipeline *pl = &X->s->pipelines[pi];
    const struct pending *pb = &X->pending[pi];
    spvjit_status st;
    spvjit_kernel_stats ks;
    if (pb->check_ls && (st = spvjit_kernel_stats_get(X->kernels[pi], &ks)))
        return api_fail(X, line, "building the pipeline", st);
    for (int d = 0; pb->check_ls && d < 3; d++)
        if (ks.local_size[d] != pb->cl_ls[d])
            return msgf(X->msg, X->len,
                        "line %d: SPECIALIZE asks for a work-group size of %ux%ux%u; kernel %s fixes it at "
                        "%ux%ux%u (reqd_work_group_size)",
                        pl->line, pb->cl_ls[0], pb->cl_ls[1], pb->cl_ls[2], pl->entry, ks.local_size[0],
                        ks.local_size[1], ks.local_size[2]);
    return 0;
}

/* SUBGROUP FULLY_POPULATED without REQUIRED_SIZE: the default size when it
 * divides the work-group's x size, else the largest one from 4 up that does
 * (built again at it); when none does (an x size that Vulkan's
 * computeFullSubgroups forbids), the default with a partial last sub-group. */
static int fit_full_subgroups(exec *X, unsigned pi, int line)
{
    const amber_pipeline *pl = &X->s->pipelines[pi];
    struct pending *pb = &X->pending[pi];
    spvjit_kernel_stats ks;
    spvjit_status st = spvjit_kernel_stats_get(X->kernels[pi], &ks);
    if (st)
        return api_fail(X, line, "building the pipeline", st);
    if (!ks.local_size[0] || ks.local_size[0] % ks.subgroup_size == 0)
        return 0;
    uint32_t w = ks.subgroup_size;
    while (w > AMBER_MIN_SUBGROUP_SIZE && ks.local_size[0] % w)
        w /= 2;
    if (ks.local_size[0] % w) /* no size of SIMD lanes divides it (Vulkan would refuse the pipeline): a partial one */
        return 0;
    pb->bo.subgroup_size = w;
    spvjit_kernel_destroy(X->kernels[pi]);
    X->kernels[pi] = NULL;
    st = spvjit_kernel_build(mod_of(X, pl), pl->entry, pb->specs, &pb->bo, &X->kernels[pi]);
    return st ? api_fail(X, line, "building the pipeline", st) : 0;
}

/* What follows a build, at once or at the RUN that waits for it: the checks
 * and the SUBGROUP fitting that need the kernel. */
static int settle_build(exec *X, unsigned pi, int line)
{
    struct pending *pb = &X->pending[pi];
    int r = check_local_size(X, pi, line);
    if (!r && pb->specs)
        r = fit_full_subgroups(X, pi, line);
    spvjit_specs_destroy(pb->specs);
    pb->specs = NULL;
    return r;
}

static int prepare_kernel(exec *X, unsigned pi, int line)
{
    if (X->kernels[pi])
        return 0;
    return X->pending[pi].ev ? finish_build(X, pi, line) : start_build(X, pi, line, false);
}

/* Starts the builds of every pipeline a RUN uses, in the order of first use,
 * so that they compile in parallel on the thread pool.  A failure here is
 * left for the RUN to report (start_build runs again there), so messages and
 * their order are those of a build at the first RUN.  A script that runs one
 * pipeline builds it at its RUN: there is nothing to overlap, and handing the
 * build to a pool thread costs more than it gains. */
static void prebuild_kernels(exec *X)
{
    unsigned used = 0;
    bool *seen = calloc(X->s->npipelines + 1, sizeof *seen);
    for (unsigned i = 0; seen && i < X->s->ncmds; i++) {
        const amber_cmd *c = &X->s->cmds[i];
        if (c->kind == AMBER_CMD_RUN && !seen[c->pipeline]) {
            seen[c->pipeline] = true;
            used++;
        }
    }
    free(seen);
    for (unsigned i = 0; used > 1 && i < X->s->ncmds; i++) {
        const amber_cmd *c = &X->s->cmds[i];
        if (c->kind != AMBER_CMD_RUN || X->pending[c->pipeline].ev || X->kernels[c->pipeline])
            continue;
        if (start_build(X, c->pipeline, c->line, true)) {
            X->msg[0] = 0;
            X->skipped = false;
        }
    }
}

/* Whether the entry point uses the buffer at (set, binding): binding one it does not
 * use is allowed (Vulkan pipeline layouts may hold more than a shader uses). */
static bool entry_uses_binding(exec *X, const amber_pipeline *pl, uint32_t set, uint32_t binding)
{
    spvjit_module *m = mod_of(X, pl);
    unsigned n = spvjit_module_resource_count(m, pl->entry);
    for (unsigned i = 0; i < n; i++) {
        spvjit_resource_info ri;
        if (!spvjit_module_resource_info(m, pl->entry, i, &ri) &&
            (ri.kind == SPVJIT_RES_STORAGE_BUFFER || ri.kind == SPVJIT_RES_UNIFORM_BUFFER) && ri.set == set &&
            ri.binding == binding)
            return true;
    }
    return false;
}

/* A Kernel's argument at DESCRIPTOR_SET 0 BINDING n: clspv's default
 * descriptor map, which Amber's OPENCL-C path uses, gives each argument but
 * __local pointers a binding of set 0, in argument order. */
static int arg_at_binding(exec *X, const amber_pipeline *pl, const amber_binding *b, spvjit_resource_info *ri)
{
    spvjit_module *m = mod_of(X, pl);
    unsigned n = spvjit_module_resource_count(m, pl->entry), next = 0;
    for (unsigned i = 0; b->set == 0 && i < n; i++) {
        if (spvjit_module_resource_info(m, pl->entry, i, ri) || ri->kind == SPVJIT_RES_ARG_LOCAL)
            continue;
        if ((ri->kind == SPVJIT_RES_ARG_POINTER || ri->kind == SPVJIT_RES_ARG_VALUE) && next++ == b->binding)
            return 0;
    }
    return msgf(X->msg, X->len,
                "line %d: kernel %s has no argument at DESCRIPTOR_SET %u BINDING %u (clspv's map: set 0, one binding "
                "per argument but __local pointers, in order)",
                b->line, pl->entry, b->set, b->binding);
}

static int bind_and_run(exec *X, const amber_cmd *c)
{
    amber_pipeline *pl = &X->s->pipelines[c->pipeline];
    if (prepare_kernel(X, c->pipeline, c->line))
        return -1;
    if (X->s->vkscript && fit_vkscript_buffers(X, pl))
        return -1;
    spvjit_kernel *k = X->kernels[c->pipeline];
    spvjit_status st;
    /* place every buffer first (once): a buffer bound twice keeps one address */
    bool *placed = calloc(X->s->nbuffers + 1, sizeof *placed);
    if (!placed)
        return msgf(X->msg, X->len, "out of memory");
    for (unsigned i = 0; i < pl->nbinds; i++) {
        unsigned bi = pl->binds[i].buffer;
        if (!placed[bi] && amber_buffer_guard(&X->s->buffers[bi])) {
            free(placed);
            return msgf(X->msg, X->len, "out of memory");
        }
        placed[bi] = true;
    }
    free(placed);
    for (unsigned i = 0; i < pl->nbinds; i++) {
        const amber_binding *b = &pl->binds[i];
        amber_buffer *buf = &X->s->buffers[b->buffer];
        if (b->offset > buf->size)
            return msgf(X->msg, X->len, "line %d: BIND BUFFER %s: offset %" PRIu64 " is past its end (%zu bytes)",
                        b->line, buf->name, b->offset, buf->size);
        size_t bytes = buf->size - (size_t)b->offset;
        if (b->range && b->range < bytes)
            bytes = (size_t)b->range;
        uint8_t *data = buf->data + b->offset;
        switch (b->kind) {
        case AMBER_BIND_PUSH_CONSTANT:
            st = spvjit_set_push_constants(k, data, bytes);
            break;
        case AMBER_BIND_KERNEL_ARG:
        default: {
            bool kernel = spvjit_module_flavour(mod_of(X, pl)) == SPVJIT_FLAVOUR_KERNEL;
            if (!kernel) {
                st = entry_uses_binding(X, pl, b->set, b->binding)
                         ? spvjit_bind_buffer_element(k, b->set, b->binding, b->element, data, bytes)
                         : SPVJIT_OK;
                break;
            }
            spvjit_resource_info ri;
            if (b->kind == AMBER_BIND_KERNEL_ARG ? find_arg(X, pl, b->arg_name, b->arg_number, b->line, &ri)
                                                 : arg_at_binding(X, pl, b, &ri))
                return -1;
            if (ri.kind == SPVJIT_RES_ARG_POINTER) {
                st = spvjit_set_arg_buffer(k, ri.index, data, bytes);
            } else if (ri.kind == SPVJIT_RES_ARG_LOCAL) {
                st = spvjit_set_arg_local(k, ri.index, bytes);
            } else if (bytes < ri.size) { /* a by-value argument takes its bytes from the buffer's start */
                return msgf(X->msg, X->len,
                            "line %d: BIND BUFFER %s: kernel argument %u is %" PRIu64 " bytes; the buffer holds %zu",
                            b->line, buf->name, ri.index, ri.size, bytes);
            } else {
                st = spvjit_set_arg_value(k, ri.index, data, (size_t)ri.size);
            }
            break;
        }
        }
        if (st) {
            char what[300];
            snprintf(what, sizeof what, "BIND BUFFER %s", buf->name);
            return api_fail(X, b->line, what, st);
        }
    }
    for (unsigned i = 0; i < pl->nkvals; i++) {
        const amber_kernel_value *kv = &pl->kvals[i];
        spvjit_resource_info ri;
        if (find_arg(X, pl, kv->arg_name, kv->arg_number, kv->line, &ri))
            return -1;
        size_t sz = vtype_size(kv->type);
        if (ri.kind != SPVJIT_RES_ARG_VALUE)
            return msgf(X->msg, X->len, "line %d: SET KERNEL: argument %u is a pointer, not a value", kv->line,
                        ri.index);
        if (ri.size != sz)
            return msgf(X->msg, X->len, "line %d: SET KERNEL: argument %u is %" PRIu64 " bytes, the %s value is %zu",
                        kv->line, ri.index, ri.size, vtype_name(kv->type), sz);
        if ((st = spvjit_set_arg_value(k, ri.index, kv->bytes, sz)))
            return api_fail(X, kv->line, "SET KERNEL", st);
    }
    spvjit_dispatch_info d = { .groups = { c->groups[0], c->groups[1], c->groups[2] } };
    bool kernel = spvjit_module_flavour(mod_of(X, pl)) == SPVJIT_FLAVOUR_KERNEL;
    if (kernel) {
        /* an OpenCL NDRange: RUN's groups at the kernel's work-group size, of
         * WORK_DIM dimensions (3 by default, as Amber's clspv path reports) */
        spvjit_kernel_stats ks;
        if ((st = spvjit_kernel_stats_get(k, &ks)))
            return api_fail(X, c->line, "RUN", st);
        d.work_dim = c->work_dim ? c->work_dim : 3;
        for (unsigned i = 0; i < 3; i++) {
            d.global_size[i] = (uint64_t)c->groups[i] * ks.local_size[i];
            d.local_size[i] = ks.local_size[i];
            d.global_offset[i] = c->global_offset[i];
        }
    } else if (c->work_dim || c->global_offset[0] || c->global_offset[1] || c->global_offset[2]) {
        return msgf(X->msg, X->len, "line %d: RUN ... GLOBAL_OFFSET / WORK_DIM are for OpenCL kernels, not %s", c->line,
                    pl->entry);
    }
    if (X->deadline_ms) {
        double left = (X->deadline_ms - util_now_ms()) / 1000;
        d.timeout_seconds = left > 1e-3 ? left : 1e-3;
    }
    if ((st = spvjit_dispatch(k, &d))) {
        X->timed_out = st == SPVJIT_ERROR_TIMEOUT;
        return api_fail(X, c->line, "RUN", st);
    }
    return 0;
}

/* Runs commands [i, i+n); returns 0, 1 (an EXPECT failed: msg), -1 (error: msg). */
static int run_cmds(exec *X, unsigned i, unsigned n)
{
    for (unsigned end = i + n; i < end; i++) {
        const amber_cmd *c = &X->s->cmds[i];
        int r = 0;
        switch (c->kind) {
        case AMBER_CMD_RUN:
            r = bind_and_run(X, c);
            break;
        case AMBER_CMD_COPY:
            if (amber_buffer_copy(&X->s->buffers[c->buffer2], &X->s->buffers[c->buffer]))
                r = msgf(X->msg, X->len, "out of memory");
            break;
        case AMBER_CMD_EXPECT:
        case AMBER_CMD_EXPECT_EQ_BUFFER:
        case AMBER_CMD_EXPECT_RMSE_BUFFER:
            r = amber_expect_eval(X->s, c, X->msg, X->len);
            break;
        case AMBER_CMD_SET_PUSH:
        case AMBER_CMD_SET_BUFFER: {
            amber_buffer *b = &X->s->buffers[c->buffer];
            if (amber_buffer_reserve(b, (size_t)c->offset + c->nbytes))
                r = msgf(X->msg, X->len, "out of memory");
            else
                memcpy(b->data + c->offset, c->bytes, c->nbytes);
            break;
        }
        case AMBER_CMD_REPEAT:
            for (unsigned k = 0; k < c->count && !r; k++)
                r = run_cmds(X, i + 1, c->body);
            i += c->body;
            break;
        }
        if (r)
            return r;
    }
    return 0;
}

static spvjit_context *shared_ctx;
static spvjit_memory run_memory;
static double run_timeout_s;

void amber_set_run_options(spvjit_memory memory, double timeout_s)
{
    run_memory = memory;
    run_timeout_s = timeout_s;
}

/* A script that asks for robust buffer access (DEVICE_FEATURE robustBufferAccess
 * or robustBufferAccess2) gets it: under --memory unchecked its kernels are
 * built robust (check is robust as well, and reports). */
static spvjit_memory script_memory(const amber_script *s)
{
    for (unsigned i = 0; i < s->nfeatures && run_memory == SPVJIT_MEMORY_UNCHECKED; i++)
        if (strstr(s->features[i], "robustBufferAccess"))
            return SPVJIT_MEMORY_ROBUST;
    return SPVJIT_MEMORY_DEFAULT;
}

amber_result amber_run_script(amber_script *s, char *msg, size_t msglen)
{
    msg[0] = 0;
    if (s->skip)
        return snprintf(msg, msglen, "%s", s->skip), AMBER_SKIP;
    for (unsigned i = 0; i < s->nfeatures; i++)
        if (!amber_feature_supported(s->features[i]))
            return snprintf(msg, msglen, "DEVICE_FEATURE %s", s->features[i]), AMBER_SKIP;
    for (unsigned i = 0; i < s->nextensions; i++)
        if (!amber_extension_supported(s->extensions[i]))
            return snprintf(msg, msglen, "extension %s", s->extensions[i]), AMBER_SKIP;
    for (unsigned i = 0; i < s->nproperties; i++)
        if (!amber_property_supported(s->properties[i]))
            return snprintf(msg, msglen, "DEVICE_PROPERTY %s", s->properties[i]), AMBER_SKIP;
    if (!shared_ctx) {
        spvjit_context_options co = { .defaults = { .tier = tier, .memory = run_memory } };
        spvjit_status st = spvjit_context_create(&co, &shared_ctx);
        if (st) {
            snprintf(msg, msglen, "cannot create a spvjit context: %s", spvjit_last_error());
            return AMBER_FAIL;
        }
    }
    exec X = { .s = s,
               .ctx = shared_ctx,
               .msg = msg,
               .len = msglen,
               .deadline_ms = run_timeout_s > 0 ? util_now_ms() + run_timeout_s * 1000 : 0,
               .memory = script_memory(s) };
    X.kernels = calloc(s->npipelines + 1, sizeof *X.kernels);
    X.pmods = calloc(s->npipelines + 1, sizeof *X.pmods);
    X.pmod_owned = calloc(s->npipelines + 1, sizeof *X.pmod_owned);
    X.pending = calloc(s->npipelines + 1, sizeof *X.pending);
    amber_result res = AMBER_PASS;
    if (!X.kernels || !X.pmods || !X.pmod_owned || !X.pending) {
        snprintf(msg, msglen, "out of memory");
        res = AMBER_FAIL;
    } else {
        prebuild_kernels(&X);
        if (run_cmds(&X, 0, s->ncmds))
            res = X.skipped ? AMBER_SKIP : X.timed_out ? AMBER_TIMEOUT : AMBER_FAIL;
    }
    for (unsigned i = 0; X.pending && i < s->npipelines; i++) {
        if (X.pending[i].ev)
            spvjit_build_wait(X.pending[i].ev, NULL); /* built for a RUN the script never reached */
        spvjit_specs_destroy(X.pending[i].specs);
    }
    for (unsigned i = 0; X.kernels && i < s->npipelines; i++)
        if (X.kernels[i])
            spvjit_kernel_destroy(X.kernels[i]);
    for (unsigned i = 0; X.pmods && X.pmod_owned && i < s->npipelines; i++)
        if (X.pmod_owned[i])
            spvjit_module_destroy(X.pmods[i]);
    free(X.pmods);
    free(X.pmod_owned);
    free(X.kernels);
    free(X.pending);
    return res;
}

amber_result amber_run_path(const char *path, char *msg, size_t msglen)
{
    amber_script s;
    amber_result r;
    if (amber_parse_file(path, &s, msg, msglen))
        r = AMBER_FAIL;
    else
        r = amber_run_script(&s, msg, msglen);
    amber_script_free(&s);
    if (shared_ctx) {
        spvjit_context_destroy(shared_ctx);
        shared_ctx = NULL;
    }
    return r;
}
