/* spirv/validate.c — SPIRV-Tools: validation and disassembly for messages.
 *
 * The target environment follows the module's flavour: Vulkan for Shader
 * modules, OpenCL for Kernel modules, universal otherwise, at the SPIR-V
 * version the header names.  Layout rules are the most permissive ones a CPU
 * can honour (scalar block layout, LocalSizeId allowed), since spvjit computes
 * addresses from the explicit Offset/ArrayStride decorations anyway.
 */
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spirv-tools/libspirv.h>

#include "spirv_grammar.h"

static bool module_has_capability(const uint32_t *w, size_t n, uint32_t cap)
{
    for (size_t pos = 5; pos < n;) {
        uint32_t wc = w[pos] >> 16, op = w[pos] & 0xffff;
        if (wc == 0 || pos + wc > n)
            break;
        if (op == SpvOpCapability && wc >= 2 && w[pos + 1] == cap)
            return true;
        if (op != SpvOpCapability && op != SpvOpExtension && op != SpvOpExtInstImport)
            break; /* capabilities come first */
        pos += wc;
    }
    return false;
}

int spv_target_env_for(const uint32_t *w, size_t n)
{
    uint32_t minor = n > 1 ? (w[1] >> 8) & 0xff : 0;
    if (module_has_capability(w, n, SpvCapabilityShader)) {
        static const spv_target_env vk[] = { SPV_ENV_VULKAN_1_0, SPV_ENV_VULKAN_1_1,           SPV_ENV_VULKAN_1_1,
                                             SPV_ENV_VULKAN_1_1, SPV_ENV_VULKAN_1_1_SPIRV_1_4, SPV_ENV_VULKAN_1_2,
                                             SPV_ENV_VULKAN_1_3 };
        return vk[minor > 6 ? 6 : minor];
    }
    if (module_has_capability(w, n, SpvCapabilityKernel) && minor <= 2)
        return SPV_ENV_OPENCL_2_2;
    static const spv_target_env uni[] = { SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1, SPV_ENV_UNIVERSAL_1_2,
                                          SPV_ENV_UNIVERSAL_1_3, SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5,
                                          SPV_ENV_UNIVERSAL_1_6 };
    return uni[minor > 6 ? 6 : minor];
}

static const char *env_name(int env)
{
    switch (env) {
    case SPV_ENV_VULKAN_1_0:
        return "Vulkan 1.0";
    case SPV_ENV_VULKAN_1_1:
        return "Vulkan 1.1";
    case SPV_ENV_VULKAN_1_1_SPIRV_1_4:
        return "Vulkan 1.1 (SPIR-V 1.4)";
    case SPV_ENV_VULKAN_1_2:
        return "Vulkan 1.2";
    case SPV_ENV_VULKAN_1_3:
        return "Vulkan 1.3";
    case SPV_ENV_OPENCL_2_2:
        return "OpenCL 2.2";
    default:
        return "universal SPIR-V";
    }
}

/* Index of the instruction starting at or containing word `word`, or -1. */
static long inst_index_at(const uint32_t *w, size_t n, size_t word)
{
    long idx = 0;
    for (size_t pos = 5; pos < n; idx++) {
        uint32_t wc = w[pos] >> 16;
        if (wc == 0 || pos + wc > n)
            return -1;
        if (word >= pos && word < pos + wc)
            return idx;
        pos += wc;
    }
    return -1;
}

char *spv_disasm_words(const uint32_t *words, size_t nwords)
{
    spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    spv_text text = NULL;
    spv_diagnostic d = NULL;
    char *out = NULL;
    if (spvBinaryToText(ctx, words, nwords,
                        SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_NO_HEADER, &text,
                        &d) == SPV_SUCCESS &&
        text) {
        out = malloc(text->length + 1);
        if (out) {
            memcpy(out, text->str, text->length);
            out[text->length] = 0;
        }
    }
    spvTextDestroy(text);
    spvDiagnosticDestroy(d);
    spvContextDestroy(ctx);
    return out;
}

/* The end of the instruction starting at p: its first newline outside a string
 * literal (OpSource's embedded source text spans lines). */
static const char *inst_end(const char *p)
{
    bool quoted = false;
    for (; *p && (quoted || *p != '\n'); p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (*p == '\\' && quoted && p[1])
            p++;
    }
    return p;
}

/* Instruction `idx` (0-based) of a disassembly, trimmed, into buf. */
static bool disasm_line(const char *text, long idx, char *buf, size_t len)
{
    const char *p = text;
    for (long i = 0; i < idx && *p; i++) {
        p = inst_end(p);
        if (*p)
            p++;
    }
    if (!*p)
        return false;
    while (*p == ' ')
        p++;
    size_t n = (size_t)(inst_end(p) - p);
    if (n >= len)
        n = len - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
    return true;
}

/* A plain rendering from the grammar when SPIRV-Tools cannot disassemble. */
static void plain_inst(const uint32_t *w, uint32_t nwords, char *buf, size_t len)
{
    const char *name = spv_opcode_name(w[0] & 0xffff);
    size_t k = (size_t)snprintf(buf, len, "%s", name ? name : "Op?");
    for (uint32_t i = 1; i < nwords && i < 9 && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, " %u", w[i]);
    if (nwords > 9 && k < len)
        snprintf(buf + k, len - k, " ...");
}

void spv_disasm_inst(const spv_module *m, const spv_inst *in, char *buf, size_t len)
{
    char *text = spv_disasm_words(m->words, m->nwords);
    long idx = in - m->insts;
    if (!text || !disasm_line(text, idx, buf, len))
        plain_inst(in->w, in->nwords, buf, len);
    free(text);
}

/* One run of the validator at env.  Friendly names (the module's OpName
 * strings in messages) cost a map of every id built before validation starts,
 * a sixth of a module load, and matter only in a message: a module that passes
 * is validated without them, one that fails again with them. */
static spv_result_t validate_at(int env, bool friendly_names, const uint32_t *words, size_t nwords, spv_diagnostic *d)
{
    spv_context ctx = spvContextCreate((spv_target_env)env);
    spv_validator_options opt = spvValidatorOptionsCreate();
    spvValidatorOptionsSetScalarBlockLayout(opt, true);
    spvValidatorOptionsSetWorkgroupScalarBlockLayout(opt, true);
    spvValidatorOptionsSetAllowLocalSizeId(opt, true);
    spvValidatorOptionsSetFriendlyNames(opt, friendly_names);
    spv_const_binary_t bin = { words, nwords };
    spv_result_t r = spvValidateWithOptions(ctx, opt, &bin, d);
    spvValidatorOptionsDestroy(opt);
    spvContextDestroy(ctx);
    if (r != SPV_SUCCESS && !friendly_names) {
        spvDiagnosticDestroy(*d);
        *d = NULL;
        r = validate_at(env, true, words, nwords, d);
    }
    return r;
}

bool spv_validate_words(const uint32_t *words, size_t nwords, const char *source, spv_diag *diag)
{
    int env = spv_target_env_for(words, nwords);
    spv_diagnostic d = NULL;
    spv_result_t r = validate_at(env, false, words, nwords, &d);
    /* The OpenCL environments reject capabilities that a profile need not
     * offer (Float16, Int8 in OpenCL 1.2, ...); spvjit offers them all, so a
     * Kernel module failing only that check is validated by the SPIR-V rules
     * of its version instead. */
    if (r != SPV_SUCCESS && env == SPV_ENV_OPENCL_2_2 && d && d->error &&
        strstr(d->error, "is not allowed by OpenCL")) {
        static const spv_target_env uni[] = { SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1, SPV_ENV_UNIVERSAL_1_2 };
        uint32_t minor = (words[1] >> 8) & 0xff;
        env = uni[minor > 2 ? 2 : minor];
        spvDiagnosticDestroy(d);
        d = NULL;
        r = validate_at(env, false, words, nwords, &d);
    }
    bool ok = r == SPV_SUCCESS;
    if (!ok) {
        const char *msg = d && d->error ? d->error : "validation failed";
        size_t word = d ? d->position.index : 0;
        /* The validator's message usually ends with the disassembled instruction;
         * keep it on one line: "...: <message>; at: <instruction>". */
        char one[1536];
        size_t k = 0;
        for (const char *p = msg; *p && k + 1 < sizeof one; p++) {
            if (*p == '\n') {
                if (k && one[k - 1] != ' ' && p[1])
                    one[k++] = ';', one[k++] = ' ';
                while (p[1] == ' ')
                    p++;
                continue;
            }
            one[k++] = *p;
        }
        while (k && (one[k - 1] == ' ' || one[k - 1] == ';'))
            k--;
        one[k] = 0;
        long idx = word ? inst_index_at(words, nwords, word) : -1;
        spv_fail(diag, "%s: invalid SPIR-V (SPIRV-Tools, %s rules)%s: %s", source ? source : "<memory>", env_name(env),
                 "", one);
        if (idx >= 0 && !strchr(msg, '\n')) {
            char line[512];
            char *text = spv_disasm_words(words, nwords);
            if (text && disasm_line(text, idx, line, sizeof line))
                spv_diag_append(diag, "; at word %zu: %s", word, line);
            free(text);
        }
    }
    spvDiagnosticDestroy(d);
    return ok;
}
