/* testdata/tests/test_jit_spec.c — the spec-constant modules of testdata/kernels
 * (spec_*.spvasm) run through the JIT: specialized (folded by the specializer)
 * and unspecialized (spec constants read at run time, OpSpecConstantOp lowered
 * as instructions) must both write the words the independent Python folding
 * (spec_expected.py) gives, for the defaults and for other values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"

typedef struct expected {
    unsigned n;
    uint64_t w[512];
} expected;

/* Parses "N LABEL 0xWORD" lines. */
static void parse_expected(const char *text, expected *e)
{
    e->n = 0;
    const char *p = text;
    while (p && *p && e->n < 512) {
        unsigned slot;
        char label[128];
        unsigned long long w;
        if (sscanf(p, "%u %127s %llx", &slot, label, &w) == 3 && slot < 512) {
            e->w[slot] = w;
            if (slot + 1 > e->n)
                e->n = slot + 1;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
}

/* Expected words for `assign` ("ID=VALUE ..."; "" for the defaults). */
static bool get_expected(const char *name, const char *assign, expected *e)
{
    char cmd[1024], *out = NULL;
    if (!*assign) { /* defaults: the committed .expected file */
        char rel[160];
        size_t len = 0;
        snprintf(rel, sizeof rel, "%.*s.expected", (int)(strlen(name) - 7), name);
        char *text = test_read_file(test_data_path(rel), &len);
        if (!text)
            return false;
        char *z = realloc(text, len + 1);
        z[len] = 0;
        parse_expected(z, e);
        free(z);
        return e->n > 0;
    }
    snprintf(cmd, sizeof cmd, "python3 %s %s %s 2>&1", test_data_path("kernels/spec_expected.py"), test_data_path(name),
             assign);
    int rc = test_run_capture(cmd, &out);
    if (rc != 0 || !out) {
        fprintf(stderr, "%s: %s\n", cmd, out ? out : "");
        free(out);
        return false;
    }
    parse_expected(out, e);
    free(out);
    return e->n > 0;
}

static expected given; /* words computed by the test itself (assign "=") */

static void run_spec(const char *base, bool kernel, const uint32_t *ids, const uint64_t *bits, unsigned n,
                     const char *assign, bool unspec)
{
    char spv[128], src[128];
    snprintf(spv, sizeof spv, "kernels/%s.spv", base);
    snprintf(src, sizeof src, "kernels/%s.spvasm", base);
    static expected e;
    if (strcmp(assign, "=") == 0)
        e = given;
    else
        REQUIRE(get_expected(src, assign, &e), "expected words for %s", base);
    spv_module *m = tj_load(spv);
    REQUIRE(m, "load %s", spv);
    spv_module *sm = unspec ? m : tj_specialize(m, ids, bits, n);
    REQUIRE(sm, "specialize %s", base);
    spvjit_shape_value shape[16];
    for (unsigned i = 0; i < n && i < 16; i++)
        shape[i] = (spvjit_shape_value){ ids[i], bits[i] };
    spvjit_options o = { .unspecialized = unspec, .opt_level = 2, .shape_values = shape, .nshape_values = n };
    if (kernel)
        o.local_size[0] = o.local_size[1] = o.local_size[2] = 1;
    jit_kernel *k = tj_compile(sm, NULL, &o);
    REQUIRE(k, "compile %s: %s", base, tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    uint64_t *out = calloc(e.n + 64, 8);
    uint64_t size = (e.n + 64) * 8ull;
    uint64_t *spec = unspec ? tj_spec_slots(m, k, ids, bits, n) : NULL;
    void *sargs[1] = { out };
    void *kargs[1] = { &out };
    tj_dispatch d = { .args = kernel ? kargs : sargs,
                      .arg_sizes = &size,
                      .nargs = 1,
                      .spec_values = spec,
                      .groups = { 1, 1, 1 },
                      .work_dim = 1,
                      .global_size = { 1, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (unsigned i = 0; i < e.n; i++)
        if (out[i] != e.w[i]) {
            if (bad++ < 5)
                fprintf(stderr, "  %s%s slot %u: got 0x%016llx want 0x%016llx\n", base, unspec ? " (unspec)" : "", i,
                        (unsigned long long)out[i], (unsigned long long)e.w[i]);
        }
    CHECK(bad == 0, "%s %s [%s]: %d of %u slots wrong (local %u)", base, unspec ? "unspecialized" : "specialized",
          assign, bad, e.n, f->local_size[0]);
    free(out);
    free(spec);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

#define BOTH(base, kernel, ids, bits, n, assign)                                                                       \
    do {                                                                                                               \
        run_spec(base, kernel, ids, bits, n, assign, false);                                                           \
        run_spec(base, kernel, ids, bits, n, assign, true);                                                            \
    } while (0)

TEST(jit_spec_bool)
{
    BOTH("spec_bool", false, NULL, NULL, 0, "");
    uint32_t ids[4] = { 0, 1, 2, 3 };
    uint64_t bits[4] = { 0, 1, 1, 0 }; /* slot 13 is a fixed label value in the script: keep 3 false */
    BOTH("spec_bool", false, ids, bits, 4, "0=false 1=true 2=true 3=false");
}

TEST(jit_spec_ops_shader)
{
    BOTH("spec_ops_shader", false, NULL, NULL, 0, "");
    uint32_t ids[3] = { 4, 6, 7 };
    uint64_t bits[3] = { 123456789u, (uint32_t)-13, 5 };
    BOTH("spec_ops_shader", false, ids, bits, 3, "4=123456789 6=-13 7=5");
}

TEST(jit_spec_ops_kernel)
{
    BOTH("spec_ops_kernel", true, NULL, NULL, 0, "");
}
TEST(jit_spec_composite)
{
    BOTH("spec_composite", false, NULL, NULL, 0, "");
}

TEST(jit_spec_workgroupsize)
{
    BOTH("spec_workgroupsize", false, NULL, NULL, 0, "");
    uint32_t ids[3] = { 0, 1, 2 };
    uint64_t bits[3] = { 3, 5, 2 };
    given.n = 4 + 30;
    given.w[0] = 3;
    given.w[1] = 5;
    given.w[2] = 2;
    given.w[3] = 30;
    for (unsigned i = 0; i < 30; i++)
        given.w[4 + i] = i + 1;
    BOTH("spec_workgroupsize", false, ids, bits, 3, "=");
}

TEST(jit_spec_localsizeid)
{
    BOTH("spec_localsizeid", false, NULL, NULL, 0, "");
    uint32_t ids[2] = { 0, 1 };
    uint64_t bits[2] = { 3, 10 };
    given.n = 4 + 15;
    given.w[0] = 3;
    given.w[1] = 5;
    given.w[2] = 1;
    given.w[3] = 15;
    for (unsigned i = 0; i < 15; i++)
        given.w[4 + i] = 3 * ((i + 1) % 15) + i / 3 + 1;
    BOTH("spec_localsizeid", false, ids, bits, 2, "=");
}

TEST(jit_spec_arraylen)
{
    BOTH("spec_arraylen", false, NULL, NULL, 0, "");
    uint32_t id = 0;
    uint64_t bits = 7;
    given.n = 4;
    given.w[0] = 14;
    given.w[1] = 8;
    given.w[2] = 0;
    for (uint64_t i = 0; i < 14; i++)
        given.w[2] += i * i;
    float sum = 0;
    for (int j = 0; j <= 7; j++)
        sum += (float)j / 2.0f;
    uint32_t sb;
    memcpy(&sb, &sum, 4);
    given.w[3] = sb;
    BOTH("spec_arraylen", false, &id, &bits, 1, "=");
}
