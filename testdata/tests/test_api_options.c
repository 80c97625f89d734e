/* testdata/tests/test_api_options.c — options: read once, one value, one key.
 *
 * References: the precedence the API documents (a build's field > the
 * context's default > the environment > the built-in default), the accepted
 * values listed in lib/spvjit.h, the CPU count from sched_getaffinity, the XDG
 * base-directory rule; for the cache key, the rule that changing any field of
 * the resolved options changes both caches' keys and what the JIT is given;
 * for the disk cache, the reduction's C reference (testdata/kernels/reference.h). */
#include <dirent.h>
#include <sched.h>
#include <stddef.h>
#include <unistd.h>

#include "api_test_util.h"
#include "lib/api_internal.h"
#include "lib/disk_cache.h"
#include "lib/threadpool.h"
#include "testdata/kernels/reference.h"

/* Sets (value) or unsets (NULL) a variable; returns the old value to restore (malloc'd or NULL). */
static char *env_set(const char *name, const char *value)
{
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    return saved;
}

static void env_restore(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

/* A context under one environment variable's value; NULL with the error kept. */
static spvjit_context *ctx_with_env(const char *name, const char *value, const spvjit_context_options *o,
                                    spvjit_status *st)
{
    char *saved = env_set(name, value);
    spvjit_context *ctx = NULL;
    spvjit_context_options none = { .disk_cache_dir = "" };
    *st = spvjit_context_create(o ? o : &none, &ctx);
    env_restore(name, saved);
    return ctx;
}

/* The enumerated options as the header documents them (public value = index + 1). */
typedef struct enum_case {
    const char *env;
    const char *names[3];
    size_t pub;      /* offsetof(spvjit_build_options, ...) */
    size_t resolved; /* offsetof(api_build_options, ...) */
} enum_case;

static const enum_case enums[] = {
    { "SPVJIT_BARRIERS",
      { "auto", "regions", "fibers" },
      offsetof(spvjit_build_options, barriers),
      offsetof(api_build_options, barriers) },
    { "SPVJIT_SIMD", { "auto", "off" }, offsetof(spvjit_build_options, simd), offsetof(api_build_options, simd) },
    { "SPVJIT_MEMORY",
      { "robust", "check", "unchecked" },
      offsetof(spvjit_build_options, memory),
      offsetof(api_build_options, memory) },
    { "SPVJIT_TIER",
      { "auto", "quick", "opt" },
      offsetof(spvjit_build_options, tier),
      offsetof(api_build_options, tier) },
};

static void set_pub(spvjit_build_options *o, const enum_case *e, int v)
{
    memcpy((char *)o + e->pub, &v, sizeof v);
}

static unsigned get_resolved(const api_build_options *o, const enum_case *e)
{
    return ((const uint8_t *)o)[e->resolved];
}

TEST(api_options_precedence_api_over_env_over_builtin)
{
    spvjit_status st;
    for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++) {
        const enum_case *e = &enums[i];
        unsigned n = e->names[2] ? 3 : 2;
        /* built-in: the first value */
        spvjit_context *ctx = ctx_with_env(e->env, NULL, NULL, &st);
        REQUIRE(ctx, "%s unset: %s", e->env, spvjit_last_error());
        CHECK(get_resolved(&ctx->options.build, e) == 0, "%s unset: %u", e->env, get_resolved(&ctx->options.build, e));
        spvjit_context_destroy(ctx);
        for (unsigned v = 0; v < n; v++) {
            /* the environment over the built-in (any case) */
            char upper[16];
            snprintf(upper, sizeof upper, "%s", e->names[v]);
            upper[0] = (char)(upper[0] - 'a' + 'A');
            ctx = ctx_with_env(e->env, v % 2 ? upper : e->names[v], NULL, &st);
            REQUIRE(ctx, "%s=%s: %s", e->env, e->names[v], spvjit_last_error());
            CHECK(get_resolved(&ctx->options.build, e) == v, "%s=%s: resolved %u", e->env, e->names[v],
                  get_resolved(&ctx->options.build, e));
            /* a build's field over the environment; a zeroed build takes the context's */
            for (unsigned w = 0; w < n; w++) {
                spvjit_build_options bo = { 0 };
                set_pub(&bo, e, (int)w + 1);
                api_build_options r;
                CHECK(api_build_options_resolve(&ctx->options, &bo, "t", &r) == SPVJIT_OK, "%s: %s", e->env,
                      spvjit_last_error());
                CHECK(get_resolved(&r, e) == w, "%s=%s, build %s: resolved %u", e->env, e->names[v], e->names[w],
                      get_resolved(&r, e));
            }
            spvjit_context_destroy(ctx);
            /* the context's default over the environment */
            spvjit_context_options co = { .disk_cache_dir = "" };
            set_pub(&co.defaults, e, (int)((v + 1) % n) + 1);
            ctx = ctx_with_env(e->env, e->names[v], &co, &st);
            REQUIRE(ctx, "%s=%s with a context default: %s", e->env, e->names[v], spvjit_last_error());
            CHECK(get_resolved(&ctx->options.build, e) == (v + 1) % n, "%s=%s, context %s: resolved %u", e->env,
                  e->names[v], e->names[(v + 1) % n], get_resolved(&ctx->options.build, e));
            spvjit_context_destroy(ctx);
        }
    }

    /* sub-group size: native (0) built in; the environment; the API's NATIVE beats it */
    spvjit_context *ctx = ctx_with_env("SPVJIT_SUBGROUP_SIZE", "1", NULL, &st);
    REQUIRE(ctx, "SPVJIT_SUBGROUP_SIZE=1: %s", spvjit_last_error());
    CHECK(ctx->options.build.subgroup_size == 1, "env 1: %u", ctx->options.build.subgroup_size);
    api_build_options r;
    spvjit_build_options native = { .subgroup_size = SPVJIT_SUBGROUP_SIZE_NATIVE };
    CHECK(api_build_options_resolve(&ctx->options, &native, "t", &r) == SPVJIT_OK && r.subgroup_size == 0,
          "NATIVE over env: %u", r.subgroup_size);
    spvjit_context_destroy(ctx);
    static const char *const natives[] = { "native", "NATIVE", "0" };
    for (int i = 0; i < 3; i++) {
        ctx = ctx_with_env("SPVJIT_SUBGROUP_SIZE", natives[i], NULL, &st);
        CHECK(ctx && ctx->options.build.subgroup_size == 0, "%s: %s", natives[i], spvjit_last_error());
        spvjit_context_destroy(ctx);
    }
    /* a size of SIMD lanes runs; with simd off it is a contradiction, refused at build time */
    ctx = ctx_with_env("SPVJIT_SUBGROUP_SIZE", "8", NULL, &st);
    REQUIRE(ctx && ctx->options.build.subgroup_size == 8, "env 8: %s", spvjit_last_error());
    CHECK(api_build_options_resolve(&ctx->options, NULL, "t", &r) == SPVJIT_OK && r.subgroup_size == 8, "size 8: %s",
          spvjit_last_error());
    spvjit_build_options off = { .simd = SPVJIT_SIMD_OFF };
    CHECK(api_build_options_resolve(&ctx->options, &off, "t", &r) == SPVJIT_ERROR_INVALID_ARGUMENT &&
              strstr(spvjit_last_error(), "sub-groups of 8 work-items need the SIMD path, and simd is off"),
          "size 8, simd off: %s", spvjit_last_error());
    spvjit_context_destroy(ctx);

    /* threads: explicit > SPVJIT_THREADS > the CPUs this process may use */
    cpu_set_t set;
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
    ctx = ctx_with_env("SPVJIT_THREADS", NULL, NULL, &st);
    CHECK(ctx && ctx->options.threads == (uint32_t)CPU_COUNT(&set), "default threads %u, CPUs %d",
          ctx ? ctx->options.threads : 0, CPU_COUNT(&set));
    spvjit_context_destroy(ctx);
    ctx = ctx_with_env("SPVJIT_THREADS", "3", NULL, &st);
    CHECK(ctx && ctx->options.threads == 3, "SPVJIT_THREADS=3: %u", ctx ? ctx->options.threads : 0);
    spvjit_context_destroy(ctx);
    ctx = ctx_with_env("SPVJIT_THREADS", "3", &(spvjit_context_options){ .threads = 2, .disk_cache_dir = "" }, &st);
    CHECK(ctx && ctx->options.threads == 2, "explicit 2 over SPVJIT_THREADS=3: %u", ctx ? ctx->options.threads : 0);
    spvjit_context_destroy(ctx);

    /* other build fields: the context's default, then the build's */
    spvjit_context_options co = { .disk_cache_dir = "", .defaults = { .opt_level = 1, .unspecialized = true } };
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "%s", spvjit_last_error());
    CHECK(api_build_options_resolve(&ctx->options, NULL, "t", &r) == SPVJIT_OK && r.opt_level == 1 &&
              r.unspecialized == 1,
          "context defaults: O%u unspec %u", r.opt_level, r.unspecialized);
    spvjit_build_options bo = { .no_opt = true, .local_size = { 8 } };
    CHECK(api_build_options_resolve(&ctx->options, &bo, "t", &r) == SPVJIT_OK && r.opt_level == 0 &&
              r.local_size[0] == 8 && r.local_size[1] == 1 && r.local_size[2] == 1,
          "build: O%u ls %u,%u,%u", r.opt_level, r.local_size[0], r.local_size[1], r.local_size[2]);
    spvjit_context_destroy(ctx);
    REQUIRE(spvjit_context_create(&(spvjit_context_options){ .disk_cache_dir = "" }, &ctx) == SPVJIT_OK, "ctx");
    CHECK(api_build_options_resolve(&ctx->options, NULL, "t", &r) == SPVJIT_OK && r.opt_level == 3 &&
              !r.unspecialized && !r.local_size[0] && r.barriers == JIT_BARRIER_MODE_AUTO,
          "built-in: O%u", r.opt_level);
    spvjit_context_destroy(ctx);
}

/* This process's threads named SPVJIT_POOL_WORKER_NAME, from /proc/self/task/<tid>/comm. */
static int pool_workers_now(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (f && fgets(name, sizeof name, f) && !strcmp(name, SPVJIT_POOL_WORKER_NAME "\n"))
            n++;
        if (f)
            fclose(f);
    }
    closedir(d);
    return n;
}

/* A context starts the workers its thread count needs when it is made, not
 * at its first dispatch (lib/threadpool.h), and never more than it needs. */
TEST(api_context_starts_its_workers)
{
    int before = pool_workers_now();
    REQUIRE(before >= 0, "/proc/self/task unreadable");
    spvjit_context *ctx = NULL;
    spvjit_context_options co = { .threads = (unsigned)before + 1, .disk_cache_dir = "" };
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "%s", spvjit_last_error());
    CHECK(pool_workers_now() == before, "a context of %u threads: %d workers, not the %d there were", co.threads,
          pool_workers_now(), before);
    spvjit_context_destroy(ctx);
    co.threads = (unsigned)before + 3;
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "%s", spvjit_last_error());
    CHECK(pool_workers_now() == before + 2, "a context of %u threads: %d workers, not %d", co.threads,
          pool_workers_now(), before + 2);
    spvjit_context_destroy(ctx);
}

/* The disk cache directory: explicit > $XDG_CACHE_HOME/spvjit > $HOME/.cache/spvjit; "" none. */
TEST(api_options_disk_cache_dir)
{
    char *xdg = env_set("XDG_CACHE_HOME", "/tmp/xdg-test");
    char *home = env_set("HOME", "/tmp/home-test");
    api_context_options o;
    CHECK(api_context_options_resolve(&(spvjit_context_options){ .disk_cache_dir = "/x/y" }, &o) == SPVJIT_OK &&
              o.disk_dir && !strcmp(o.disk_dir, "/x/y"),
          "explicit: %s", o.disk_dir ? o.disk_dir : "(none)");
    api_context_options_free(&o);
    CHECK(api_context_options_resolve(&(spvjit_context_options){ .disk_cache_dir = "" }, &o) == SPVJIT_OK &&
              !o.disk_dir,
          "\"\" disables: %s", o.disk_dir ? o.disk_dir : "(none)");
    api_context_options_free(&o);
    CHECK(api_context_options_resolve(NULL, &o) == SPVJIT_OK && o.disk_dir &&
              !strcmp(o.disk_dir, "/tmp/xdg-test/spvjit"),
          "XDG: %s", o.disk_dir ? o.disk_dir : "(none)");
    api_context_options_free(&o);
    unsetenv("XDG_CACHE_HOME");
    CHECK(api_context_options_resolve(NULL, &o) == SPVJIT_OK && o.disk_dir &&
              !strcmp(o.disk_dir, "/tmp/home-test/.cache/spvjit"),
          "HOME: %s", o.disk_dir ? o.disk_dir : "(none)");
    api_context_options_free(&o);
    unsetenv("HOME");
    CHECK(api_context_options_resolve(NULL, &o) == SPVJIT_OK && !o.disk_dir, "neither: %s",
          o.disk_dir ? o.disk_dir : "(none)");
    api_context_options_free(&o);
    env_restore("HOME", home);
    env_restore("XDG_CACHE_HOME", xdg);
}

static void expect_env_error(const char *name, const char *value, const char *part)
{
    spvjit_status st;
    spvjit_context *ctx = ctx_with_env(name, value, NULL, &st);
    CHECK(!ctx && st == SPVJIT_ERROR_INVALID_ARGUMENT && strstr(spvjit_last_error(), part), "%s=%s: %s", name, value,
          spvjit_last_error());
    spvjit_context_destroy(ctx);
}

TEST(api_options_validation_errors)
{
    expect_env_error("SPVJIT_BARRIERS", "bogus", "SPVJIT_BARRIERS=\"bogus\" is not auto, regions or fibers");
    expect_env_error("SPVJIT_SIMD", "on", "SPVJIT_SIMD=\"on\" is not auto or off");
    expect_env_error("SPVJIT_MEMORY", "safe", "SPVJIT_MEMORY=\"safe\" is not robust, check or unchecked");
    expect_env_error("SPVJIT_TIER", "fast", "SPVJIT_TIER=\"fast\" is not auto, quick or opt");
    expect_env_error("SPVJIT_SUBGROUP_SIZE", "3",
                     "SPVJIT_SUBGROUP_SIZE=\"3\" is not native (or 0), 1, 4, 8, 16, 32 or 64");
    expect_env_error("SPVJIT_SUBGROUP_SIZE", "8x", "SPVJIT_SUBGROUP_SIZE=\"8x\"");
    expect_env_error("SPVJIT_THREADS", "lots", "SPVJIT_THREADS=\"lots\" is not a thread count");
    expect_env_error("SPVJIT_THREADS", "0", "SPVJIT_THREADS=\"0\"");

    /* API values outside their enums name the field and the values it takes */
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    spvjit_module *m = api_load(ctx, "kernels/saxpy.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = NULL;
    struct {
        spvjit_build_options o;
        spvjit_status st;
        const char *part;
    } bad[] = {
        { { .barriers = (spvjit_barriers)7 },
          SPVJIT_ERROR_INVALID_ARGUMENT,
          "spvjit_kernel_build: barriers 7 is not a spvjit_barriers value (auto, regions or fibers" },
        { { .simd = (spvjit_simd)3 }, SPVJIT_ERROR_INVALID_ARGUMENT, "simd 3 is not a spvjit_simd value (auto or off" },
        { { .memory = (spvjit_memory)-1 }, SPVJIT_ERROR_INVALID_ARGUMENT, "memory -1 is not a spvjit_memory value" },
        { { .tier = (spvjit_tier)4 }, SPVJIT_ERROR_INVALID_ARGUMENT, "tier 4 is not a spvjit_tier value" },
        { { .subgroup_size = 3 },
          SPVJIT_ERROR_INVALID_ARGUMENT,
          "subgroup_size 3 is not 1, 4, 8, 16, 32, 64 or SPVJIT_SUBGROUP_SIZE_NATIVE" },
        { { .opt_level = 9 }, SPVJIT_ERROR_INVALID_ARGUMENT, "opt_level 9 is not 0..3" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        spvjit_status st = spvjit_kernel_build(m, NULL, NULL, &bad[i].o, &k);
        CHECK(st == bad[i].st && !k && strstr(spvjit_last_error(), bad[i].part), "case %zu: %s: %s", i,
              spvjit_status_name(st), spvjit_last_error());
        spvjit_kernel_destroy(k);
        k = NULL;
        char *text = NULL;
        st = spvjit_kernel_emit(m, NULL, NULL, &bad[i].o, SPVJIT_EMIT_LLVM, &text);
        CHECK(st == bad[i].st && !text, "emit case %zu: %s", i, spvjit_last_error());
        spvjit_free(text);
    }
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    spvjit_status st;
    ctx = ctx_with_env("SPVJIT_BARRIERS", NULL,
                       &(spvjit_context_options){ .disk_cache_dir = "", .defaults = { .tier = (spvjit_tier)9 } }, &st);
    CHECK(!ctx && st == SPVJIT_ERROR_INVALID_ARGUMENT &&
              strstr(spvjit_last_error(), "spvjit_context_options.defaults: tier 9 is not a spvjit_tier value"),
          "context default: %s", spvjit_last_error());
    spvjit_context_destroy(ctx);
}

/* Every field of the resolved options, as bytes.  The sum of the sizes must be
 * the struct's size: a field added to api_build_options and not here fails. */
static const struct {
    const char *name;
    size_t offset, size;
    bool reaches_jit;
} fields[] = {
    { "local_size", offsetof(api_build_options, local_size), sizeof(((api_build_options *)0)->local_size), true },
    { "subgroup_size", offsetof(api_build_options, subgroup_size), 4, true },
    { "unspecialized", offsetof(api_build_options, unspecialized), 1, true },
    { "opt_level", offsetof(api_build_options, opt_level), 1, true },
    { "barriers", offsetof(api_build_options, barriers), 1, true },
    { "simd", offsetof(api_build_options, simd), 1, true },
    { "memory", offsetof(api_build_options, memory), 1, true },
    { "tier", offsetof(api_build_options, tier), 1, true },
    { "reserved", offsetof(api_build_options, reserved), 2, false },
};

TEST(api_options_every_field_is_in_both_cache_keys)
{
    size_t total = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        total += fields[i].size;
    REQUIRE(total == sizeof(api_build_options),
            "api_build_options has %zu bytes, this test walks %zu: a field is missing here (and must be checked)",
            sizeof(api_build_options), total);
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = ctx ? api_load(ctx, "kernels/mm.comp.spv") : NULL;
    REQUIRE(m, "load: %s", spvjit_last_error());
    uint64_t *values = NULL;
    REQUIRE(api_resolve_specs(m, NULL, &values) == SPVJIT_OK, "values");
    api_build_options base;
    REQUIRE(api_build_options_resolve(&ctx->options, NULL, "t", &base) == SPVJIT_OK, "%s", spvjit_last_error());
    base.tier = JIT_TIER_AUTO; /* whatever $SPVJIT_TIER says: flipping its bit 0 makes it quick */
    kcache_key k0;
    unsigned char *b0 = api_cache_key(m, API_CODE_KERNEL, "main", &base, values, &k0);
    char p0[512], p1[512];
    disk_cache_path("/d", k0.a, k0.alen, k0.b, k0.blen, p0, sizeof p0);
    spvjit_options j0;
    memset(&j0, 0, sizeof j0);
    api_build_options_to_jit(&base, &j0);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        for (size_t byte = 0; byte < fields[i].size; byte++) {
            api_build_options o = base;
            ((unsigned char *)&o)[fields[i].offset + byte] ^= 1;
            kcache_key k1;
            unsigned char *b1 = api_cache_key(m, API_CODE_KERNEL, "main", &o, values, &k1);
            REQUIRE(b1, "key");
            CHECK(k1.blen != k0.blen || memcmp(k1.b, k0.b, k0.blen) != 0, "%s byte %zu: memory key unchanged",
                  fields[i].name, byte);
            CHECK(k1.hash != k0.hash, "%s byte %zu: memory key hash unchanged", fields[i].name, byte);
            disk_cache_path("/d", k1.a, k1.alen, k1.b, k1.blen, p1, sizeof p1);
            CHECK(strcmp(p0, p1) != 0, "%s byte %zu: disk cache file unchanged (%s)", fields[i].name, byte, p1);
            spvjit_options j1;
            memset(&j1, 0, sizeof j1);
            api_build_options_to_jit(&o, &j1);
            if (fields[i].reaches_jit)
                CHECK(memcmp(&j0, &j1, sizeof j0) != 0, "%s byte %zu: the JIT is not given the field", fields[i].name,
                      byte);
            free(b1);
        }
    }
    /* the key holds the code's tier: auto ends with opt's code (they share it), quick has its own */
    for (uint8_t t = JIT_TIER_AUTO; t <= JIT_TIER_OPT; t++) {
        api_build_options o = base;
        o.tier = t;
        kcache_key kt;
        unsigned char *bt = api_cache_key(m, API_CODE_KERNEL, "main", &o, values, &kt);
        REQUIRE(bt, "key");
        bool same = kt.blen == k0.blen && !memcmp(kt.b, k0.b, k0.blen);
        CHECK(same == (t != JIT_TIER_QUICK), "tier %u: the key %s auto's", t, same ? "is" : "is not");
        free(bt);
    }
    /* a kernel and an exported function of the same name never share a key */
    kcache_key kf;
    unsigned char *bf = api_cache_key(m, API_CODE_FUNCTION, "main", &base, values, &kf);
    CHECK(bf && (kf.blen != k0.blen || memcmp(kf.b, k0.b, k0.blen)), "kernel and function keys differ");
    free(bf);
    free(b0);
    free(values);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* --- the case that motivated the key: SPVJIT_BARRIERS=fibers on the disk cache --- */

/* Builds reduce.comp (WG 64) in ctx, runs it on n floats, checks the C
 * reference; returns whether the kernel runs its barriers as regions. */
static bool reduce_run(spvjit_context *ctx, bool *from_cache, bool *ok)
{
    *ok = false;
    spvjit_module *m = api_load(ctx, "kernels/reduce.comp.spv");
    spvjit_specs *s = NULL;
    spvjit_kernel *k = NULL;
    bool regions = false;
    uint32_t n = 1000, wg = 64, groups = ref_reduce_groups(n, wg);
    uint64_t seed = 77;
    float *src = api_rand_floats(&seed, n, -1, 1);
    float *got = calloc(groups, sizeof *got), *want = calloc(groups, sizeof *want);
    if (m && spvjit_specs_create(&s) == SPVJIT_OK && spvjit_spec_set_u32(s, 0, wg) == SPVJIT_OK &&
        spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_OK) {
        spvjit_kernel_stats ks;
        spvjit_kernel_stats_get(k, &ks);
        *from_cache = ks.from_cache;
        regions = k->compiled->facts->barrier_regions;
        *ok = spvjit_bind_buffer(k, 0, 0, src, n * sizeof *src) == SPVJIT_OK &&
              spvjit_bind_buffer(k, 0, 1, got, groups * sizeof *got) == SPVJIT_OK &&
              spvjit_set_push_constants(k, &n, sizeof n) == SPVJIT_OK &&
              spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { groups, 1, 1 } }) == SPVJIT_OK &&
              ref_reduce(src, n, wg, want) == 0 && memcmp(got, want, groups * sizeof *got) == 0 &&
              spvjit_kernel_wait_optimized(k) == SPVJIT_OK; /* auto stores optimized code when it arrives */
    }
    CHECK(*ok, "reduce: %s", spvjit_last_error());
    free(src);
    free(got);
    free(want);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
    return regions;
}

TEST(api_options_barriers_fibers_and_regions_do_not_share_the_disk_cache)
{
    char *dir = test_temp_dir("options-test");
    REQUIRE(dir, "mkdtemp");
    spvjit_context_options co = { .disk_cache_dir = dir,
                                  .defaults.tier = SPVJIT_TIER_AUTO }; /* stores optimized code */
    spvjit_status st;
    bool hit, ok;
    /* 1. SPVJIT_BARRIERS=fibers: the fiber kernel is compiled and stored */
    spvjit_context *ctx = ctx_with_env("SPVJIT_BARRIERS", "fibers", &co, &st);
    REQUIRE(ctx, "fibers context: %s", spvjit_last_error());
    CHECK(!reduce_run(ctx, &hit, &ok) && !hit, "fibers: a compile on the fiber path (hit %d)", hit);
    spvjit_context_destroy(ctx);
    /* 2. a plain run on the same directory must not load it: regions, compiled */
    ctx = ctx_with_env("SPVJIT_BARRIERS", NULL, &co, &st);
    REQUIRE(ctx, "plain context: %s", spvjit_last_error());
    CHECK(reduce_run(ctx, &hit, &ok) && !hit, "plain after fibers: regions, compiled (hit %d)", hit);
    spvjit_context_destroy(ctx);
    /* 3. each finds its own on disk: fibers through the API this time, then plain */
    co.defaults.barriers = SPVJIT_BARRIERS_FIBERS;
    ctx = ctx_with_env("SPVJIT_BARRIERS", NULL, &co, &st);
    REQUIRE(ctx, "API fibers context: %s", spvjit_last_error());
    CHECK(!reduce_run(ctx, &hit, &ok) && hit, "fibers again: the fiber kernel from disk (hit %d)", hit);
    spvjit_context_destroy(ctx);
    co.defaults.barriers = SPVJIT_BARRIERS_DEFAULT;
    ctx = ctx_with_env("SPVJIT_BARRIERS", "auto", &co, &st);
    REQUIRE(ctx, "auto context: %s", spvjit_last_error());
    CHECK(reduce_run(ctx, &hit, &ok) && hit, "auto again: the regions kernel from disk (hit %d)", hit);
    spvjit_context_destroy(ctx);
    test_remove_dir(dir);
    free(dir);
}
