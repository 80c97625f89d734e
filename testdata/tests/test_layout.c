/* testdata/tests/test_layout.c — spirv/layout.h against the compilers' own
 * layouts, for every test kernel with blocks or structs and for two tables
 * written for it (testdata/layout/):
 *
 *  - Shader flavour: glslangValidator's reflection (-q
 *    --reflect-all-block-variables) gives every block member's offset and
 *    array strides, which must equal spirv/'s; a block's size must be the
 *    bytes its members cover (spirv/layout.h), computed here from the
 *    reflected offsets and the member types alone (a matrix's column stride
 *    by the GLSL std140 / std430 / scalar rule of the block).
 *  - Kernel flavour: clang-15's record layouts for spir64
 *    (-fdump-record-layouts: offset of every field, sizeof, alignof) must
 *    equal spirv/'s records of the struct types llvm-spirv-15 writes.
 *  - Array lengths that are spec-constant expressions: spirv/'s lengths under
 *    shape values equal the lengths the specializer writes for those values. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "spirv/layout.h"
#include "spirv/module.h"
#include "spirv/specialize.h"

/* The module a tool (`cmd`: printf format with the output, then the input
 * path) builds from testdata/<rel>, loaded; NULL (a failed check) otherwise. */
static spv_module *built_module(const char *cmd_fmt, const char *rel)
{
    char *dir = test_temp_dir("layout"), spv[256], cmd[1024], *out = NULL;
    if (!dir)
        return NULL;
    snprintf(spv, sizeof spv, "%s/built.spv", dir);
    snprintf(cmd, sizeof cmd, cmd_fmt, spv, test_data_path(rel));
    spv_diag d = { "" };
    spv_module *m = test_run_capture(cmd, &out) == 0 ? spv_module_load_file(spv, NULL, &d) : NULL;
    CHECK(m, "%s: %s%s", rel, out ? out : "", d.msg);
    free(out);
    test_remove_dir(dir);
    free(dir);
    return m;
}

/* Sources with this suffix in testdata/<sub>/, as malloc'd paths (NULL-terminated). */
static char **sources(const char *sub, const char *suffix, char **list, size_t *n, size_t max)
{
    DIR *d = opendir(test_data_path(sub));
    if (!d)
        return list;
    for (struct dirent *e; (e = readdir(d)) && *n + 1 < max;) {
        size_t l = strlen(e->d_name), s = strlen(suffix);
        if (l <= s || strcmp(e->d_name + l - s, suffix))
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", sub, e->d_name);
        list[(*n)++] = strdup(test_data_path(rel));
    }
    closedir(d);
    list[*n] = NULL;
    return list;
}

static uint32_t find_named_type(const spv_module *m, const char *name, spv_type_kind kind)
{
    for (uint32_t id = 1; id < m->bound; id++)
        if (m->ids[id].kind == SPV_ID_TYPE && m->ids[id].type.kind == kind && m->ids[id].name &&
            !strcmp(m->ids[id].name, name))
            return id;
    return 0;
}

static uint32_t member_named(const spv_module *m, uint32_t st, const char *name)
{
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode == SpvOpMemberName && in->nwords > 3 && in->w[1] == st &&
            !strcmp(spv_literal_string(in->w + 3, in->nwords - 3), name))
            return in->w[2];
    }
    return UINT32_MAX;
}

/* --- Shader flavour ------------------------------------------------------------------------- */

/* A GL type enum: components, bytes per component, matrix columns (0: not a matrix). */
static bool gl_type(unsigned t, unsigned *comps, unsigned *bytes, unsigned *cols)
{
    static const struct {
        unsigned gl, comps, bytes, cols;
    } types[] = {
        { 0x1406, 1, 4, 0 }, { 0x8b50, 2, 4, 0 }, { 0x8b51, 3, 4, 0 }, { 0x8b52, 4, 4, 0 }, /* float, vecN */
        { 0x1404, 1, 4, 0 }, { 0x8b53, 2, 4, 0 }, { 0x8b54, 3, 4, 0 }, { 0x8b55, 4, 4, 0 }, /* int, ivecN */
        { 0x1405, 1, 4, 0 }, { 0x8dc6, 2, 4, 0 }, { 0x8dc7, 3, 4, 0 }, { 0x8dc8, 4, 4, 0 }, /* uint, uvecN */
        { 0x8b56, 1, 4, 0 }, { 0x8b57, 2, 4, 0 }, { 0x8b58, 3, 4, 0 }, { 0x8b59, 4, 4, 0 }, /* bool, bvecN */
        { 0x140a, 1, 8, 0 }, { 0x8ffc, 2, 8, 0 }, { 0x8ffd, 3, 8, 0 }, { 0x8ffe, 4, 8, 0 }, /* double, dvecN */
        { 0x8b5a, 2, 4, 2 }, { 0x8b5b, 3, 4, 3 }, { 0x8b5c, 4, 4, 4 },                      /* matN */
        { 0x8f46, 2, 8, 2 }, { 0x8f47, 3, 8, 3 }, { 0x8f48, 4, 8, 4 },                      /* dmatN */
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].gl == t) {
            *comps = types[i].comps;
            *bytes = types[i].bytes;
            *cols = types[i].cols;
            return true;
        }
    return false;
}

typedef enum { STD140, STD430, SCALAR } glsl_rule;

/* The layout rule of block `name` in the GLSL source: its layout(...) qualifier,
 * else the default (std140 for uniform blocks, std430 for buffers and push constants). */
static glsl_rule block_rule(const char *src, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = strstr(src, name); p; p = strstr(p + 1, name)) {
        const char *q = p + nl;
        while (*q == ' ' || *q == '\n')
            q++;
        if (*q != '{' || (p > src && (p[-1] != ' ' && p[-1] != '\n')))
            continue;
        const char *stmt = p; /* back to the start of the declaration */
        while (stmt > src && stmt[-1] != ';' && stmt[-1] != '}')
            stmt--;
        char decl[512];
        snprintf(decl, sizeof decl, "%.*s", (int)(p - stmt), stmt);
        if (strstr(decl, "scalar"))
            return SCALAR;
        if (strstr(decl, "std430"))
            return STD430;
        if (strstr(decl, "std140"))
            return STD140;
        return strstr(decl, "buffer") || strstr(decl, "push_constant") ? STD430 : STD140;
    }
    return STD430;
}

/* The bytes a reflected leaf covers: `count` elements `stride` apart (count 1: one). */
static bool leaf_bytes(unsigned gl, unsigned count, unsigned stride, glsl_rule rule, uint64_t *out, const char *what)
{
    unsigned comps, bytes, cols;
    if (!gl_type(gl, &comps, &bytes, &cols)) {
        CHECK(0, "%s: GL type %#x is not in the test's table", what, gl);
        return false;
    }
    uint64_t one = (uint64_t)comps * bytes;
    if (cols) {
        /* a square matrix: cols vectors of comps components, whichever the majorness */
        uint64_t vec_align = (uint64_t)bytes * (comps == 2 ? 2 : 4);
        uint64_t ms = rule == SCALAR ? one : rule == STD140 ? (vec_align + 15) / 16 * 16 : vec_align;
        one = (cols - 1) * ms + one;
    }
    *out = count > 1 ? (uint64_t)(count - 1) * stride + one : one;
    return true;
}

typedef struct refl_leaf {
    char name[256];
    unsigned offset, gl, count, index, stride, top_stride;
    bool has_stride, has_top;
} refl_leaf;

typedef struct refl_block {
    char name[128];
    unsigned index, element; /* element: of a descriptor array ("D[1]") */
} refl_block;

static void parse_reflection(char *out, refl_leaf *leaves, size_t *nl, refl_block *blocks, size_t *nb)
{
    enum { NONE, LEAVES, BLOCKS } sec = NONE;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strcmp(line, "Uniform reflection:")) {
            sec = LEAVES;
            continue;
        }
        if (!strcmp(line, "Uniform block reflection:")) {
            sec = BLOCKS;
            continue;
        }
        char *colon = strstr(line, ": offset ");
        if (!colon || sec == NONE) {
            if (strstr(line, "reflection:"))
                sec = NONE;
            continue;
        }
        *colon = 0;
        const char *rest = colon + 2;
        if (sec == LEAVES && *nl < 512) {
            refl_leaf *l = &leaves[(*nl)++];
            memset(l, 0, sizeof *l);
            snprintf(l->name, sizeof l->name, "%s", line);
            sscanf(rest, "offset %u, type %x, size %u, index %u", &l->offset, &l->gl, &l->count, &l->index);
            const char *s = strstr(rest, " arrayStride ");
            if (s)
                l->has_stride = sscanf(s, " arrayStride %u", &l->stride) == 1;
            s = strstr(rest, "topLevelArrayStride ");
            if (s)
                l->has_top = sscanf(s, "topLevelArrayStride %u", &l->top_stride) == 1;
        } else if (sec == BLOCKS && *nb < 64) {
            refl_block *b = &blocks[(*nb)++];
            snprintf(b->name, sizeof b->name, "%s", line);
            char *br = strchr(b->name, '['); /* a descriptor array's element */
            b->element = 0;
            if (br) {
                sscanf(br, "[%u]", &b->element);
                *br = 0;
            }
            sscanf(strstr(rest, "index "), "index %u", &b->index);
        }
    }
}

/* Walks `path` ("items[1].in2[0].f", or "items.m" meaning element 0) from block
 * struct `st` with spirv/'s records: the offset, the leaf's type and the stride
 * of the first array on the way. */
static bool resolve(const spv_module *m, spv_layouts *L, uint32_t st, const char *path, uint64_t *off,
                    uint32_t *leaf_type, uint64_t *top_stride, bool *in_runtime_array, const char *what)
{
    *in_runtime_array = false;
    char buf[256];
    snprintf(buf, sizeof buf, "%.250s", path);
    uint32_t cur = st;
    *off = 0;
    *top_stride = 0;
    bool first = true;
    for (char *comp = strtok(buf, "."); comp; comp = strtok(NULL, ".")) {
        char *br = strchr(comp, '[');
        unsigned idx = 0;
        bool has_idx = br && sscanf(br, "[%u]", &idx) == 1;
        if (br)
            *br = 0;
        const spv_layout *sl = spv_layout_of(L, cur);
        uint32_t k = member_named(m, cur, comp);
        if (!sl || k == UINT32_MAX || k >= sl->nmembers) {
            CHECK(0, "%s: member %s not found in %%%u", what, comp, cur);
            return false;
        }
        *off += sl->members[k].offset;
        cur = spv_type_get(m, cur)->members[k];
        const spv_type *t = spv_type_get(m, cur);
        *in_runtime_array |= t->kind == SPV_TYPE_RUNTIME_ARRAY;
        if (t->kind == SPV_TYPE_ARRAY || t->kind == SPV_TYPE_RUNTIME_ARRAY) {
            const spv_layout *al = spv_layout_of(L, cur);
            if (first && al)
                *top_stride = al->stride;
            const spv_type *et = spv_type_get(m, t->elem);
            /* step into the element when the path goes on into it (an index given, or a struct) */
            if (al && (has_idx || (et && et->kind == SPV_TYPE_STRUCT))) {
                *off += (uint64_t)idx * al->stride;
                cur = t->elem;
            }
        }
        first = false;
    }
    *leaf_type = cur;
    return true;
}

static void check_glsl(const char *src_path, const char *dir)
{
    const char *base = strrchr(src_path, '/') ? strrchr(src_path, '/') + 1 : src_path;
    char spv[512], cmd[2048];
    snprintf(spv, sizeof spv, "%s/%s.spv", dir, base);
    snprintf(cmd, sizeof cmd,
             "glslangValidator -V --target-env vulkan1.1 -q --reflect-all-block-variables -o '%s' '%s'", spv, src_path);
    char *out = NULL;
    int rc = test_run_capture(cmd, &out);
    if (rc != 0) {
        CHECK(0, "%s: glslangValidator failed: %s", base, out ? out : "");
        free(out);
        return;
    }
    size_t srclen;
    char *src = test_read_file(src_path, &srclen);
    static refl_leaf leaves[512];
    static refl_block blocks[64];
    size_t nl = 0, nb = 0;
    parse_reflection(out, leaves, &nl, blocks, &nb);
    spv_diag d;
    spv_module *m = spv_module_load_file(spv, NULL, &d);
    if (!m || !src) {
        CHECK(0, "%s: load: %s", base, m ? "source unreadable" : d.msg);
        spv_module_free(m);
        free(src);
        free(out);
        return;
    }
    spv_layouts *L = spv_layouts_new(m, false, NULL, NULL, &d);
    for (size_t b = 0; b < nb; b++) {
        if (blocks[b].element)
            continue; /* the members are reflected with element 0 */
        uint32_t st = find_named_type(m, blocks[b].name, SPV_TYPE_STRUCT);
        if (!st) {
            CHECK(0, "%s: block type %s not found", base, blocks[b].name);
            continue;
        }
        glsl_rule rule = block_rule(src, blocks[b].name);
        uint64_t covered = 0;
        size_t nleaves = 0;
        for (size_t i = 0; i < nl; i++) {
            if (leaves[i].index != blocks[b].index)
                continue;
            char what[512];
            snprintf(what, sizeof what, "%.200s: %.250s", base, leaves[i].name);
            size_t bl = strlen(blocks[b].name);
            const char *path = !strncmp(leaves[i].name, blocks[b].name, bl) && leaves[i].name[bl] == '.'
                                   ? leaves[i].name + bl + 1
                                   : leaves[i].name;
            uint64_t off, top;
            uint32_t lt;
            bool runtime;
            if (!resolve(m, L, st, path, &off, &lt, &top, &runtime, what))
                continue;
            nleaves++;
            CHECK(off == leaves[i].offset, "%s: offset %llu, glslang says %u", what, (unsigned long long)off,
                  leaves[i].offset);
            /* an array of arrays: glslang gives the innermost array's stride
             * (GL's ARRAY_STRIDE), the outermost's as the top-level one */
            for (const spv_type *t = spv_type_get(m, lt);
                 t && (t->kind == SPV_TYPE_ARRAY || t->kind == SPV_TYPE_RUNTIME_ARRAY); t = spv_type_get(m, lt)) {
                const spv_type *et = spv_type_get(m, t->elem);
                if (!et || (et->kind != SPV_TYPE_ARRAY && et->kind != SPV_TYPE_RUNTIME_ARRAY))
                    break;
                lt = t->elem;
            }
            const spv_layout *ll = spv_layout_of(L, lt);
            if (leaves[i].has_stride)
                CHECK(ll && ll->stride == leaves[i].stride, "%s: array stride %llu, glslang says %u", what,
                      ll ? (unsigned long long)ll->stride : 0ull, leaves[i].stride);
            if (leaves[i].has_top)
                CHECK(top == leaves[i].top_stride, "%s: top-level array stride %llu, glslang says %u", what,
                      (unsigned long long)top, leaves[i].top_stride);
            uint64_t bytes;
            /* what a runtime array holds is not the fixed part */
            if (!runtime && leaf_bytes(leaves[i].gl, leaves[i].count, leaves[i].stride, rule, &bytes, what) &&
                leaves[i].offset + bytes > covered)
                covered = leaves[i].offset + bytes;
        }
        uint64_t fixed = 0, rstride = 0;
        CHECK(nleaves > 0, "%s: block %s has no reflected members", base, blocks[b].name);
        CHECK(spv_block_size(L, st, &fixed, &rstride) && fixed == covered,
              "%s: block %s is %llu bytes by spirv/, its members cover %llu", base, blocks[b].name,
              (unsigned long long)fixed, (unsigned long long)covered);
    }
    spv_layouts_free(L);
    spv_module_free(m);
    free(src);
    free(out);
}

/* Runs check(source, scratch dir) on the table testdata/layout/NAME<suffix> and on
 * every test kernel with that suffix in testdata/kernels/ and testdata/jit/. */
static void check_sources(const char *suffix, void (*check)(const char *src, const char *dir))
{
    char *list[64];
    size_t n = 0;
    sources("layout", suffix, list, &n, 64);
    size_t ntable = n;
    sources("kernels", suffix, list, &n, 64);
    sources("jit", suffix, list, &n, 64);
    char *dir = test_temp_dir("layout");
    CHECK(ntable == 1 && n > 6 && dir, "found %zu %s sources (%zu tables)", n, suffix, ntable);
    for (size_t i = 0; i < n; i++) {
        if (dir)
            check(list[i], dir);
        free(list[i]);
    }
    if (dir)
        test_remove_dir(dir);
    free(dir);
}

TEST_TIER_FREE(layout_shader_blocks_match_glslang)
{
    check_sources(".comp", check_glsl);
}

/* The cases, by the rule in spirv/layout.h, on the table's numbers. */
TEST_TIER_FREE(layout_block_size_is_the_bytes_covered)
{
    spv_diag d;
    spv_module *m = built_module("glslangValidator -V --target-env vulkan1.1 -o '%s' '%s'", "layout/std_table.comp");
    REQUIRE(m, "glslangValidator or load failed");
    spv_layouts *L = spv_layouts_new(m, false, NULL, NULL, &d);
    static const struct {
        const char *block;
        uint64_t fixed, runtime_stride;
    } want[] = {
        { "Mat430", 44, 0 },      /* 2 * MatrixStride 16 + one vec3 column; GLSL says 48 */
        { "Row430", 44, 0 },      /* row-major: 2 * 16 + one vec3 row */
        { "Row140", 52, 0 },      /* `after` follows the matrix's 16-byte alignment */
        { "Vec430", 40, 0 },      /* vec3 then float at 12: the float fills the vec3's padding */
        { "Runtime430", 16, 16 }, /* the fixed part before Tail tails[] (the uint fills the vec3's padding) */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint32_t st = find_named_type(m, want[i].block, SPV_TYPE_STRUCT);
        uint64_t fixed = 0, rs = 0;
        CHECK(st && spv_block_size(L, st, &fixed, &rs) && fixed == want[i].fixed && rs == want[i].runtime_stride,
              "%s: %llu bytes + n * %llu, expected %llu + n * %llu", want[i].block, (unsigned long long)fixed,
              (unsigned long long)rs, (unsigned long long)want[i].fixed, (unsigned long long)want[i].runtime_stride);
    }
    spv_layouts_free(L);
    spv_module_free(m);
}

/* --- Kernel flavour ------------------------------------------------------------------------- */

static void check_cl(const char *src_path, const char *dir)
{
    const char *base = strrchr(src_path, '/') ? strrchr(src_path, '/') + 1 : src_path;
    char spv[512], bc[512], cmd[3072];
    snprintf(spv, sizeof spv, "%s/%s.spv", dir, base);
    snprintf(bc, sizeof bc, "%s/%s.bc", dir, base);
    /* as testdata/jit/build.sh: cl_v14_* up to SPIR-V 1.4 (sub-group operations need 1.3) */
    const char *maxver = strncmp(base, "cl_v14_", 7) ? "1.2" : "1.4";
    snprintf(cmd, sizeof cmd,
             "clang-15 -cc1 -triple spir64-unknown-unknown -cl-std=CL2.0 -finclude-default-header "
             "-no-opaque-pointers -O2 -cl-ext=+cl_khr_integer_dot_product,+__opencl_c_integer_dot_product_input_4x8bit,"
             "+__opencl_c_integer_dot_product_input_4x8bit_packed,+cl_khr_subgroups,+cl_khr_subgroup_extended_types,"
             "+cl_khr_subgroup_non_uniform_vote,+cl_khr_subgroup_ballot,+cl_khr_subgroup_non_uniform_arithmetic,"
             "+cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative,+cl_khr_subgroup_clustered_reduce,+cl_khr_fp64 "
             "-fdump-record-layouts -emit-llvm-bc -o '%s' '%s' && "
             "llvm-spirv-15 --spirv-max-version=%s --spirv-ext=+SPV_KHR_integer_dot_product -o '%s' '%s' >/dev/null",
             bc, src_path, maxver, spv, bc);
    char *out = NULL;
    if (test_run_capture(cmd, &out) != 0) {
        CHECK(0, "%s: clang-15 / llvm-spirv-15 failed: %.2000s", base, out ? out : "");
        free(out);
        return;
    }
    spv_diag d;
    spv_module *m = spv_module_load_file(spv, NULL, &d);
    if (!m) {
        CHECK(0, "%s: load: %s", base, d.msg);
        free(out);
        return;
    }
    spv_layouts *L = spv_layouts_new(m, true, NULL, NULL, &d);
    /* "*** Dumping AST Record Layout" sections: "  OFF | struct NAME", fields one level
     * deeper ("  OFF |   TYPE NAME"), then "     | [sizeof=N, align=A]" */
    char *save = NULL;
    uint32_t st = 0, field = 0;
    bool in_record = false;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "*** Dumping AST Record Layout")) {
            in_record = true;
            st = 0;
            field = 0;
            continue;
        }
        char *bar = strchr(line, '|');
        if (!in_record || !bar)
            continue;
        unsigned off, size, align;
        int depth = 0;
        while (bar[1 + depth] == ' ')
            depth++;
        if (sscanf(bar, "| [sizeof=%u, align=%u]", &size, &align) == 2) {
            in_record = false;
            const spv_layout *l = st ? spv_layout_of(L, st) : NULL;
            if (st)
                CHECK(l && l->size == size && l->align == align, "%s: %s: sizeof %llu alignof %u, clang says %u, %u",
                      base, m->ids[st].name, l ? (unsigned long long)l->size : 0ull, l ? l->align : 0, size, align);
            continue;
        }
        if (sscanf(line, "%u", &off) != 1)
            continue;
        if (depth == 1) { /* the record itself: "struct NAME" */
            char name[200];
            if (sscanf(bar + 2, "struct %150s", name + 7) == 1) {
                memcpy(name, "struct.", 7);
                st = find_named_type(m, name, SPV_TYPE_STRUCT);
            }
            continue;
        }
        if (depth != 3 || !st)
            continue; /* a nested record's fields: checked in that record's own section */
        const spv_layout *l = spv_layout_of(L, st);
        CHECK(l && field < l->nmembers && l->members[field].offset == off, "%s: %s: field %u at %llu, clang says %u",
              base, m->ids[st].name, field,
              l && field < l->nmembers ? (unsigned long long)l->members[field].offset : 0ull, off);
        field++;
    }
    spv_layouts_free(L);
    spv_module_free(m);
    free(out);
}

TEST_TIER_FREE(layout_kernel_structs_match_clang)
{
    check_sources(".cl", check_cl);
}

/* --- array lengths from spec constants ------------------------------------------------------ */

/* Array lengths that are spec-constant expressions (testdata/layout/
 * spec_lengths.spvasm): spirv/'s layouts under shape values must give the
 * lengths the specializer writes into the module for the same values (the
 * unspecialized and the specialized compile agree). */
TEST_TIER_FREE(layout_spec_lengths_match_the_specializer)
{
    spv_diag d;
    spv_module *m = built_module("spirv-as --target-env spv1.3 -o '%s' '%s'", "layout/spec_lengths.spvasm");
    REQUIRE(m, "spirv-as or load failed");
    static const uint32_t values[][3] = { { 4, 6, 1 }, { 1, 1, 0 }, { 7, 3, 1 }, { 5, 20, 0 }, { 3, 1000, 1 } };
    static const char *arrays[] = { "arr_mul", "arr_div", "arr_sel", "arr_ext", "arr_shl", "arr_mix" };
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
        spv_shape_value shape[3] = { { 0, values[v][0] }, { 1, values[v][1] }, { 2, values[v][2] } };
        spv_spec_value sv[3] = { { .spec_id = 0, .type = SPV_VALUE_U32, .bits = values[v][0] },
                                 { .spec_id = 1, .type = SPV_VALUE_U32, .bits = values[v][1] },
                                 { .spec_id = 2, .type = SPV_VALUE_BOOL, .bits = values[v][2] } };
        uint32_t *words = NULL;
        size_t nwords = 0;
        REQUIRE(spv_specialize(m, sv, 3, &words, &nwords, &d) == 0, "specialize: %s", d.msg);
        spv_module *sm = spv_module_load(words, nwords * 4, "specialized", NULL, &d);
        free(words);
        REQUIRE(sm, "load specialized: %s", d.msg);
        spv_shape s = { m, shape, 3 };
        spv_layouts *L = spv_layouts_new(m, false, &s, NULL, &d);
        for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++) {
            uint32_t t = find_named_type(m, arrays[a], SPV_TYPE_ARRAY),
                     st = find_named_type(sm, arrays[a], SPV_TYPE_ARRAY);
            uint64_t len = 0;
            bool ok = t && st && spv_array_length(L, t, &len);
            const spv_type *stt = st ? spv_type_get(sm, st) : NULL;
            CHECK(ok && stt && len == stt->count, "%s with n=%u m=%u flag=%u: length %llu, the specializer says %u",
                  arrays[a], values[v][0], values[v][1], values[v][2], (unsigned long long)len, stt ? stt->count : 0);
        }
        spv_layouts_free(L);
        spv_module_free(sm);
    }
    spv_module_free(m);
}
