/* testdata/tests/test_loader.c — the SPIR-V loader against SPIRV-Tools.
 *
 * The references are independent of our parser: spirv-dis (instruction
 * boundaries, opcode names, OpName strings) and spirv-val (accept/reject).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "spirv/interface.h"
#include "spirv/layout.h"
#include "spirv/module.h"
#include "spirv/specialize.h"
#include "spirv_grammar.h"

/* All .spv files under testdata/<dir>, as a NULL-terminated malloc'd list. */
static char **list_spv(const char *dir)
{
    DIR *d = opendir(test_data_path(dir));
    size_t n = 0, cap = 16;
    char **out = calloc(cap, sizeof *out);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".spv"))
            continue;
        if (n + 1 >= cap)
            out = realloc(out, (cap *= 2) * sizeof *out);
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", dir, e->d_name);
        out[n++] = strdup(test_data_path(rel));
    }
    if (d)
        closedir(d);
    out[n] = NULL;
    return out;
}

static void free_list(char **l)
{
    for (char **p = l; *p; p++)
        free(*p);
    free(l);
}

/* Opcode name of each line of `spirv-dis --raw-id --no-header` output. */
static int dis_opcodes(const char *path, char ***names)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "spirv-dis --raw-id --no-header --no-color '%s'", path);
    if (test_run_capture(cmd, &out) != 0) {
        free(out);
        return -1;
    }
    int n = 0, cap = 256;
    *names = calloc((size_t)cap, sizeof **names);
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char *op = strstr(line, "Op");
        char *eq = strstr(line, "= Op");
        if (eq)
            op = eq + 2;
        if (!op)
            continue;
        size_t len = strcspn(op, " ");
        if (n == cap)
            *names = realloc(*names, (size_t)(cap *= 2) * sizeof **names);
        (*names)[n++] = strndup(op, len);
    }
    free(out);
    return n;
}

TEST_TIER_FREE(loader_matches_spirv_dis_on_all_kernels)
{
    char **files = list_spv("kernels");
    int checked = 0;
    for (char **f = files; *f; f++) {
        spv_diag d;
        spv_module *m = spv_module_load_file(*f, NULL, &d);
        CHECK(m, "%s: load failed: %s", *f, d.msg);
        if (!m)
            continue;
        char **names = NULL;
        int n = dis_opcodes(*f, &names);
        CHECK(n == (int)m->ninsts, "%s: %u instructions, spirv-dis shows %d", *f, m->ninsts, n);
        for (int i = 0; i < n && i < (int)m->ninsts; i++) {
            const char *ours = spv_opcode_name(m->insts[i].opcode);
            CHECK(ours && !strcmp(ours, names[i]), "%s: instruction %d is %s, spirv-dis says %s", *f, i,
                  ours ? ours : "?", names[i]);
        }
        for (int i = 0; i < n; i++)
            free(names[i]);
        free(names);
        CHECK(m->nentries >= 1, "%s: no entry point found", *f);
        CHECK(m->is_kernel != m->is_shader, "%s: flavour unclear", *f);
        spv_module_free(m);
        checked++;
    }
    CHECK(checked >= 8, "only %d kernels found under testdata/kernels", checked);
    free_list(files);
}

TEST_TIER_FREE(loader_byte_swapped_module_loads_the_same)
{
    char **files = list_spv("kernels");
    for (char **f = files; *f; f++) {
        size_t len;
        uint32_t *w = test_read_file(*f, &len);
        REQUIRE(w, "cannot read %s", *f);
        spv_diag d;
        spv_module *a = spv_module_load(w, len, *f, NULL, &d);
        for (size_t i = 0; i < len / 4; i++)
            w[i] = __builtin_bswap32(w[i]);
        spv_module *b = spv_module_load(w, len, *f, NULL, &d);
        CHECK(a && b, "%s: byte-swapped load failed: %s", *f, d.msg);
        if (a && b) {
            CHECK(a->ninsts == b->ninsts && !memcmp(a->words, b->words, len), "%s: byte-swapped differs", *f);
        }
        spv_module_free(a);
        spv_module_free(b);
        free(w);
    }
    free_list(files);
}

/* A module only SPIRV-Tools rejects: the message names the ids by their
 * OpName, word for word as spirv-val's does (spvjit validates without the
 * names and again with them once it fails). */
TEST_TIER_FREE(loader_validation_message_names_ids_as_spirv_val_does)
{
    static const char text[] = "OpCapability Shader\n"
                               "OpMemoryModel Logical GLSL450\n"
                               "OpEntryPoint GLCompute %main \"main\"\n"
                               "OpExecutionMode %main LocalSize 1 1 1\n"
                               "OpName %counter \"counter\"\n"
                               "%void = OpTypeVoid\n"
                               "%fn = OpTypeFunction %void\n"
                               "%float = OpTypeFloat 32\n"
                               "%uint = OpTypeInt 32 0\n"
                               "%ptr = OpTypePointer Function %float\n"
                               "%one = OpConstant %uint 1\n"
                               "%main = OpFunction %void None %fn\n"
                               "%entry = OpLabel\n"
                               "%counter = OpVariable %ptr Function\n"
                               "OpStore %counter %one\n" /* a uint into a float */
                               "OpReturn\n"
                               "OpFunctionEnd\n";
    char *dir = test_temp_dir("valnames");
    REQUIRE(dir, "no temporary directory");
    char path[512], cmd[640];
    snprintf(path, sizeof path, "%s/store.spv", dir);
    REQUIRE(test_assemble(text, "vulkan1.1", path), "spirv-as failed");
    snprintf(cmd, sizeof cmd, "spirv-val --target-env vulkan1.1 '%s' 2>&1", path);
    char *val = NULL;
    int st = test_run_capture(cmd, &val);
    /* "error: line N: <message>\n  <instruction>": the message */
    char *msg = val ? strstr(val, ": OpStore") : NULL;
    char *end = msg ? strchr(msg + 2, '\n') : NULL;
    REQUIRE(st != 0 && msg && end, "spirv-val did not reject the store: %s", val ? val : "");
    *end = 0;
    msg += 2;
    CHECK(strstr(msg, "[%counter]") != NULL, "spirv-val's message does not name %%counter: %s", msg);
    spv_diag d = { { 0 } };
    spv_module *m = spv_module_load_file(path, NULL, &d);
    CHECK(!m, "the invalid store was accepted");
    CHECK(strstr(d.msg, msg) != NULL, "message: %s\nspirv-val: %s", d.msg, msg);
    spv_module_free(m);
    free(val);
    test_remove_dir(dir);
    free(dir);
}

/* Every malformed module: an error naming the file, never a crash. */
TEST_TIER_FREE(loader_rejects_malformed_modules_with_clear_errors)
{
    char **files = list_spv("malformed");
    int n = 0;
    for (char **f = files; *f; f++, n++) {
        spv_diag d = { { 0 } };
        spv_module *m = spv_module_load_file(*f, NULL, &d);
        if (strstr(*f, "byte_swapped") || strstr(*f, "valid")) {
            CHECK(m, "%s: a valid module was rejected: %s", *f, d.msg);
        } else {
            CHECK(!m, "%s: malformed module was accepted", *f);
            CHECK(strstr(d.msg, *f) != NULL, "%s: message does not name the file: %s", *f, d.msg);
            CHECK(strlen(d.msg) > strlen(*f) + 10, "%s: message says too little: %s", *f, d.msg);
        }
        spv_module_free(m);
    }
    CHECK(n >= 10, "only %d malformed modules under testdata/malformed", n);
    free_list(files);
}

/* Random corruption of valid modules: the loader either accepts a module that
 * SPIRV-Tools also accepts, or reports an error; ASan/UBSan catch the rest. */
TEST_TIER_FREE(loader_survives_random_corruption)
{
    char **files = list_spv("kernels");
    uint64_t seed = 12345;
    int accepted = 0, rejected = 0;
    for (char **f = files; *f; f++) {
        size_t len;
        uint32_t *orig = test_read_file(*f, &len);
        REQUIRE(orig, "cannot read %s", *f);
        if (len / 4 <= 6) {
            free(orig);
            continue;
        }
        uint32_t *w = malloc(len);
        for (int iter = 0; iter < 150; iter++) {
            memcpy(w, orig, len);
            size_t nw = len / 4;
            int edits = 1 + (int)(test_rand_u64(&seed) % 4);
            for (int e = 0; e < edits && nw > 6; e++) {
                size_t at = 5 + test_rand_u64(&seed) % (nw - 5);
                switch (test_rand_u64(&seed) % 4) {
                case 0:
                    w[at] ^= 1u << (test_rand_u64(&seed) % 32);
                    break;
                case 1:
                    w[at] = (uint32_t)test_rand_u64(&seed);
                    break;
                case 2:
                    w[at] = (w[at] & 0xffff) | ((uint32_t)(test_rand_u64(&seed) % 8) << 16);
                    break;
                default:
                    nw = at;
                    break; /* truncate */
                }
            }
            spv_diag d = { { 0 } };
            spv_module *m = spv_module_load(w, nw * 4, *f, NULL, &d);
            if (m) {
                accepted++;
                CHECK(spv_validate_words(m->words, m->nwords, *f, &d), "accepted but invalid: %s", d.msg);
            } else {
                rejected++;
                CHECK(d.msg[0], "rejected without a message");
            }
            spv_module_free(m);
        }
        free(w);
        free(orig);
    }
    CHECK(rejected > 0, "no corrupted module was rejected (accepted %d)", accepted);
    free_list(files);
}

/* Interface of the GLSL matrix multiply: three storage buffers and a push constant. */
TEST_TIER_FREE(loader_interface_and_layout_of_shader_buffers)
{
    spv_diag d;
    spv_module *m = spv_module_load_file(test_data_path("kernels/saxpy.comp.spv"), NULL, &d);
    REQUIRE(m, "load: %s", d.msg);
    const spv_entry_point *e = spv_find_entry(m, NULL);
    REQUIRE(e, "no entry point");
    spv_resource *r = NULL;
    int n = spv_entry_resources(m, e, &r, &d);
    int buffers = 0;
    for (int i = 0; i < n; i++)
        if (r[i].kind == SPV_RES_STORAGE_BUFFER) {
            buffers++;
            CHECK(r[i].stride == 4, "saxpy buffer %d: runtime array stride %lu, expected 4", i,
                  (unsigned long)r[i].stride);
        }
    CHECK(buffers >= 2, "saxpy: %d storage buffers found, expected x and y", buffers);
    free(r);
    spv_module_free(m);
}

/* Decorations, names and types from a hand-assembled module. */
TEST_TIER_FREE(loader_model_of_a_hand_assembled_module)
{
    const char *src = "OpCapability Shader\n"
                      "OpMemoryModel Logical GLSL450\n"
                      "OpEntryPoint GLCompute %main \"main\"\n"
                      "OpExecutionMode %main LocalSize 8 4 2\n"
                      "OpName %S \"S\"\n"
                      "OpDecorate %S Block\n"
                      "OpMemberDecorate %S 0 Offset 0\n"
                      "OpMemberDecorate %S 1 Offset 16\n"
                      "OpDecorate %v DescriptorSet 1\n"
                      "OpDecorate %v Binding 3\n"
                      "OpDecorate %c SpecId 7\n"
                      "%void = OpTypeVoid\n"
                      "%fn = OpTypeFunction %void\n"
                      "%f32 = OpTypeFloat 32\n"
                      "%u32 = OpTypeInt 32 0\n"
                      "%v3 = OpTypeVector %f32 3\n"
                      "%S = OpTypeStruct %v3 %u32\n"
                      "%pS = OpTypePointer StorageBuffer %S\n"
                      "%v = OpVariable %pS StorageBuffer\n"
                      "%c = OpSpecConstant %u32 42\n"
                      "%main = OpFunction %void None %fn\n"
                      "%l = OpLabel\n"
                      "OpReturn\n"
                      "OpFunctionEnd\n";
    char path[] = "/tmp/spvjit_test_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "mkstemp");
    FILE *f = fdopen(fd, "w");
    fputs(src, f);
    fclose(f);
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "spirv-as --target-env spv1.3 -o %s.spv %s", path, path);
    int st = test_run_capture(cmd, &out);
    CHECK(st == 0, "spirv-as failed: %s", out);
    free(out);
    char spv[600];
    snprintf(spv, sizeof spv, "%s.spv", path);
    spv_diag d;
    spv_module *m = spv_module_load_file(spv, &(spv_load_options){ .skip_validation = true }, &d);
    remove(path);
    remove(spv);
    REQUIRE(m, "load: %s", d.msg);
    const spv_entry_point *e = spv_find_entry(m, "main");
    REQUIRE(e, "entry point main");
    CHECK(e->has_local_size && e->local_size[0] == 8 && e->local_size[1] == 4 && e->local_size[2] == 2, "local size");
    uint32_t S = 0, c = 0;
    for (uint32_t id = 1; id < m->bound; id++) {
        if (m->ids[id].name && !strcmp(m->ids[id].name, "S"))
            S = id;
        if (m->ids[id].spec_id == 7)
            c = id;
    }
    REQUIRE(S && c, "OpName S / SpecId 7 not found");
    CHECK(m->ids[c].kind == SPV_ID_SPEC_CONSTANT && m->ids[c].scalar == 42, "spec constant default");
    const spv_type *t = spv_type_get(m, S);
    REQUIRE(t && t->kind == SPV_TYPE_STRUCT && t->nmembers == 2, "struct S");
    spv_layouts *L = spv_layouts_new(m, false, NULL, NULL, &d);
    const spv_layout *l = L ? spv_layout_of(L, S) : NULL;
    CHECK(l && l->size == 20 && l->members[1].offset == 16, "struct size %lu, expected 20 (member 1 at offset 16)",
          l ? (unsigned long)l->size : 0ul);
    spv_layouts_free(L);
    const spv_decoration *dec = spv_find_decoration(m, S, 1, SpvDecorationOffset);
    CHECK(dec && dec->nargs == 1 && dec->args[0] == 16, "member 1 Offset 16");
    spv_module_free(m);
}

/* Inputs the fuzzer once crashed or stalled on (testdata/fuzz/regressions):
 * loaded without the validator and specialized, they must not crash (an error
 * names what is wrong); valid_* ones must load, specialize and validate. */
TEST_TIER_FREE(loader_fuzz_regressions_fail_cleanly)
{
    char **files = list_spv("fuzz/regressions");
    int n = 0;
    for (char **f = files; *f; f++, n++) {
        spv_diag d = { { 0 } };
        spv_module *m = spv_module_load_file(*f, &(spv_load_options){ .skip_validation = true }, &d);
        if (m && strstr(*f, "/valid_")) {
            uint32_t *w = NULL;
            size_t nw = 0;
            int rc = spv_specialize(m, NULL, 0, &w, &nw, &d);
            CHECK(rc == 0, "%s: %s", *f, d.msg);
            CHECK(rc != 0 || spv_validate_words(w, nw, *f, &d), "%s: output invalid: %s", *f, d.msg);
            free(w);
            spv_module_free(m);
        } else if (m) {
            uint32_t *w = NULL;
            size_t nw = 0;
            int rc = spv_specialize(m, NULL, 0, &w, &nw, &d);
            CHECK(rc == 0 || d.msg[0], "%s: specializing failed without a message", *f);
            free(w);
            spv_module_free(m);
        } else {
            CHECK(d.msg[0], "%s: rejected without a message", *f);
        }
    }
    CHECK(n >= 2, "only %d regression inputs found", n);
    free_list(files);
}
