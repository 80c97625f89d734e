/* testdata/tests/test_jit_memory.c — a compile that runs out of memory ends
 * with a clear error, never a crash or a leak (jit/lower_ctx.h's contract):
 * the compile arena is given a byte limit, from far too small to enough, and
 * every maker of a kernel (spvjit_compile specialized and not, with barriers,
 * spvjit_load_object, spvjit_compile_function) either succeeds or fails
 * saying "out of memory"; afterwards, without a limit, a compiled function
 * still computes what plain C does.  Under `make test SAN=1` LeakSanitizer
 * checks that nothing is left behind. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/lower_ctx.h"
#include "test_jit_util.h"

typedef jit_kernel *(*make_fn)(const spv_module *m, void *user, spv_diag *d);

/* The compiles of the sweep stop once their lowering is done: the arena
 * belongs to the lowering (jit_build_end frees it), and LLVM's passes and
 * code generation after it, at every limit that succeeds, were most of the
 * test's time.  The hook that receives the lowered IR sets the compile's
 * cancel flag, which it reads next (jit/compile.c). */
static atomic_bool lowered;

static void stop_after_lowering(void *user, const char *what, const char *text)
{
    (void)user, (void)text;
    if (!strcmp(what, "ir"))
        atomic_store(&lowered, true);
}

/* One make under a limit: true when it succeeded (or, for a compile that
 * stops after its lowering, got that far); a failure must be for memory. */
static bool try_limit(const char *what, const spv_module *m, make_fn make, void *user, size_t limit)
{
    spv_diag d = { "" };
    atomic_store(&lowered, false);
    jit_set_arena_limit_for_tests(limit);
    jit_kernel *k = make(m, user, &d);
    jit_set_arena_limit_for_tests(0);
    if (k) {
        spvjit_kernel_free(k);
        return true;
    }
    if (atomic_load(&lowered) && !strcmp(d.msg, "cancelled"))
        return true;
    CHECK(strstr(d.msg, "out of memory"), "%s with a %zu-byte arena: not an out-of-memory error: %s", what, limit,
          d.msg);
    return false;
}

/* Doubles the limit from 1 KiB until the make succeeds, then tries 32 limits
 * below that one, so the arena runs out at many different allocations (the
 * tables, the layouts, deep inside the lowering). */
static void sweep(const char *what, const spv_module *m, make_fn make, void *user, unsigned *failed,
                  unsigned *succeeded)
{
    *failed = *succeeded = 0;
    size_t enough = 1024;
    while (enough < (64u << 20) && !try_limit(what, m, make, user, enough))
        enough *= 2;
    for (size_t i = 1; i <= 32; i++) {
        if (try_limit(what, m, make, user, enough / 2 + enough / 2 * i / 32))
            (*succeeded)++;
        else
            (*failed)++;
    }
}

static jit_kernel *compile_entry(const spv_module *m, void *options, spv_diag *d)
{
    return spvjit_compile(m, NULL, options, d);
}

TEST_TIER_FREE(jit_out_of_memory_is_an_error)
{
    static const struct {
        const char *file;
        bool unspec;
    } kernels[] = {
        { "kernels/mm.comp.spv", false },   /* barriers compiled into regions */
        { "kernels/mm.comp.spv", true },    /* spec constants read at run time */
        { "kernels/reduce.cl.spv", false }, /* Kernel flavour, local memory */
        { "jit/cl_math.cl.spv", false },    /* OpenCL.std */
        { "jit/matrix.comp.spv", false },   /* explicit layouts, matrices */
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        spv_module *m = tj_load(kernels[i].file);
        REQUIRE(m, "load %s", kernels[i].file);
        spvjit_options o = { .opt_level = 1,
                             .unspecialized = kernels[i].unspec,
                             .cancel = &lowered,
                             .emit = stop_after_lowering,
                             .emit_ir = true };
        if (strstr(kernels[i].file, ".cl."))
            o.local_size[0] = 64;
        unsigned failed, succeeded;
        sweep(kernels[i].file, m, compile_entry, &o, &failed, &succeeded);
        CHECK(failed > 0 && succeeded > 0, "%s: %u compiles failed, %u succeeded: the sweep should see both",
              kernels[i].file, failed, succeeded);
        /* and without a limit the whole compile, LLVM's part too, succeeds */
        o.cancel = NULL, o.emit = NULL, o.emit_ir = false;
        spv_diag d = { "" };
        jit_kernel *k = spvjit_compile(m, NULL, &o, &d);
        CHECK(k, "%s without a limit: %s", kernels[i].file, d.msg);
        if (k)
            spvjit_kernel_free(k);
        spv_module_free(m);
    }
}

typedef struct blob_user {
    const spvjit_options *o;
    const void *blob;
    size_t len;
} blob_user;

static jit_kernel *load_blob(const spv_module *m, void *user, spv_diag *d)
{
    blob_user *u = user;
    return spvjit_load_object(m, NULL, u->o, u->blob, u->len, d);
}

typedef struct fn_user {
    const spvjit_options *o;
    uint32_t id;
} fn_user;

static jit_kernel *compile_fn(const spv_module *m, void *user, spv_diag *d)
{
    fn_user *u = user;
    jit_kernel *owner = NULL;
    return spvjit_compile_function(m, u->id, u->o, &owner, d) ? owner : NULL;
}

TEST_TIER_FREE(jit_out_of_memory_in_load_object_and_compile_function)
{
    spv_module *m = tj_load("kernels/mm.comp.spv");
    REQUIRE(m, "load");
    spvjit_options o = { .opt_level = 1, .keep_object = true, .tier = JIT_TIER_OPT }; /* optimized code is kept */
    jit_kernel *k = tj_compile(m, NULL, &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    blob_user bu = { &o, NULL, 0 };
    bu.blob = spvjit_kernel_take_object(k, &bu.len);
    spvjit_kernel_free(k);
    REQUIRE(bu.blob, "no object kept");
    unsigned failed, succeeded;
    sweep("load_object", m, load_blob, &bu, &failed, &succeeded);
    CHECK(failed > 0 && succeeded > 0, "load_object: %u failed, %u succeeded", failed, succeeded);
    free((void *)bu.blob);
    spv_module_free(m);

    m = tj_load("jit/exports.cl.spv");
    REQUIRE(m, "load exports");
    fn_user fu = { &o, 0 };
    for (uint32_t id = 1; id < m->bound && !fu.id; id++)
        if (m->ids[id].kind == SPV_ID_FUNCTION && m->ids[id].name && !strcmp(m->ids[id].name, "hash2"))
            fu.id = id;
    REQUIRE(fu.id, "hash2 not found");
    sweep("compile_function", m, compile_fn, &fu, &failed, &succeeded);
    CHECK(failed > 0 && succeeded > 0, "compile_function: %u failed, %u succeeded", failed, succeeded);
    /* and after the sweep, unlimited, the function computes what C does */
    jit_kernel *owner = NULL;
    spv_diag d;
    uint64_t (*hash2)(uint64_t, uint32_t) =
        (uint64_t(*)(uint64_t, uint32_t))spvjit_compile_function(m, fu.id, &o, &owner, &d);
    REQUIRE(hash2, "compile_function: %s", d.msg);
    uint64_t x = 0x1234567890abcdefull + 77;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    CHECK(hash2(0x1234567890abcdefull, 77) == x, "hash2 = %llx, expected %llx",
          (unsigned long long)hash2(0x1234567890abcdefull, 77), (unsigned long long)x);
    spvjit_kernel_free(owner);
    spv_module_free(m);
}
