/* testdata/tests/test_jit_layers.c — the lowering's calls and includes run one
 * way (jit/lower_ctx.h describes the layers): the instruction classes use only
 * the core, never each other; the core uses neither the classes nor the
 * driver.  Read from the object files the build made (nm: which file defines
 * and which needs each symbol) and from the sources' #include lines. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Layer of a jit/ source file: 0 core, 1..n an instruction class (files of
 * one class share a number), -1 the driver (everything else in jit/). */
static const struct {
    const char *file;
    int layer;
} layers[] = {
    { "lower_ctx.c", 0 },      { "lower_types.c", 0 },      { "lower_constants.c", 0 }, { "lower_build.c", 0 },
    { "lower_access.c", 0 },   { "lower_vars.c", 0 },       { "lower_builtins.c", 0 },  { "sg_marker.c", 0 },
    { "lower_alu.c", 1 },      { "lower_relational.c", 2 }, { "lower_convert.c", 3 },   { "lower_composite.c", 4 },
    { "lower_memory.c", 5 },   { "lower_cfg.c", 6 },        { "lower_atomic.c", 7 },    { "lower_group.c", 8 },
    { "lower_dot.c", 9 },      { "lower_barrier.c", 10 },   { "lower_wgcoll.c", 10 },   { "barrier_intrinsic.c", 10 },
    { "lower_extinst.c", 11 }, { "lower_glsl450.c", 11 },   { "lower_opencl.c", 11 },   { "extinst_util.c", 11 },
    { "rt_printf.c", 11 },    { "lower_bounds.c", 0 },
};

static int layer_of(const char *file)
{
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++)
        if (!strcmp(layers[i].file, file))
            return layers[i].layer;
    return -1;
}

/* May a file of layer `from` use one of layer `to`? */
static bool allowed(int from, int to)
{
    if (from < 0)
        return true; /* the driver uses anything */
    if (from == 0)
        return to == 0;
    return to == 0 || to == from;
}

typedef struct sym {
    char name[128];
    char file[64];
} sym;

/* "path/obj/jit/lower_alu.c.o: 0000 T jit_lower_arith" → file "lower_alu.c", symbol. */
static size_t parse_nm(char *out, sym *syms, size_t max)
{
    size_t n = 0;
    for (char *line = strtok(out, "\n"); line && n < max; line = strtok(NULL, "\n")) {
        char *colon = strstr(line, ".o:");
        char *name = strrchr(line, ' ');
        if (!colon || !name)
            continue;
        *colon = 0;
        const char *base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
        snprintf(syms[n].file, sizeof syms[n].file, "%s", base);
        snprintf(syms[n].name, sizeof syms[n].name, "%s", name + 1);
        n++;
    }
    return n;
}

TEST_TIER_FREE(jit_lowering_dependencies_run_one_way)
{
    const char *bin = getenv("SPVJIT_BIN");
    REQUIRE(bin, "SPVJIT_BIN is not set (run through `make test`)");
    char dir[1024], cmd[2048];
    snprintf(dir, sizeof dir, "%s", bin);
    snprintf(cmd, sizeof cmd, "nm -A --defined-only -g %s/obj/jit/*.c.o", dirname(dir));
    char *def_out = NULL, *use_out = NULL;
    REQUIRE(test_run_capture(cmd, &def_out) == 0 && def_out, "%s failed", cmd);
    snprintf(dir, sizeof dir, "%s", bin);
    snprintf(cmd, sizeof cmd, "nm -A -u %s/obj/jit/*.c.o", dirname(dir));
    REQUIRE(test_run_capture(cmd, &use_out) == 0 && use_out, "%s failed", cmd);
    enum { MAX = 8192 };
    sym *defs = calloc(MAX, sizeof *defs), *uses = calloc(MAX, sizeof *uses);
    size_t ndefs = parse_nm(def_out, defs, MAX), nuses = parse_nm(use_out, uses, MAX);
    CHECK(ndefs > 100 && nuses > 100, "nm listed %zu definitions, %zu uses", ndefs, nuses);
    size_t checked = 0;
    for (size_t i = 0; i < nuses; i++) {
        for (size_t j = 0; j < ndefs; j++) {
            if (strcmp(uses[i].name, defs[j].name))
                continue;
            int from = layer_of(uses[i].file), to = layer_of(defs[j].file);
            CHECK(allowed(from, to), "%s (%s) uses %s of %s (%s): calls must run from the classes to the core only",
                  uses[i].file, from == 0 ? "core" : "a class", uses[i].name, defs[j].file,
                  to < 0    ? "the driver"
                  : to == 0 ? "core"
                            : "another class");
            checked++;
        }
    }
    CHECK(checked > 200, "only %zu uses of jit/ symbols found", checked);
    /* every lowering layer file was seen (a renamed file must be placed in a layer) */
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        bool seen = false;
        for (size_t j = 0; j < ndefs && !seen; j++)
            seen = !strcmp(defs[j].file, layers[i].file);
        CHECK(seen, "%s defines nothing or does not exist: update the layer table", layers[i].file);
    }
    free(defs);
    free(uses);
    free(def_out);
    free(use_out);
}

/* The classes and the core include only the core header and headers of their
 * own layer (or of spirv/, util/, LLVM, the C library). */
TEST_TIER_FREE(jit_lowering_includes_run_one_way)
{
    static const struct {
        const char *header;
        int layer;
    } headers[] = {
        { "lower_ctx.h", 0 },
        { "jit.h", 0 },
        { "abi.h", 0 },
        { "extinst.h", 11 },
        { "extinst_util.h", 11 },
        { "jit/extinst.h", 11 },
        { "jit/extinst_util.h", 11 },
        { "rt_printf.h", 11 },
        { "jit/rt_printf.h", 11 },
        { "jit/abi.h", 0 },
        { "barrier_intrinsic.h", 10 },
        { "sg_marker.h", 0 },
        { "rt_check.h", 0 },
    };
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "../jit/%s", layers[i].file);
        size_t len;
        char *src = test_read_file(test_data_path(rel), &len);
        REQUIRE(src, "cannot read jit/%s", layers[i].file);
        for (char *p = strstr(src, "#include \""); p; p = strstr(p + 1, "#include \"")) {
            char name[128] = "";
            sscanf(p + 10, "%127[^\"]", name);
            if (!strncmp(name, "spirv", 5) || !strncmp(name, "util/", 5))
                continue;
            int to = -1;
            for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++)
                if (!strcmp(headers[h].header, name))
                    to = headers[h].layer;
            CHECK(to >= 0 && allowed(layers[i].layer, to), "jit/%s includes \"%s\", outside its layer", layers[i].file,
                  name);
        }
        free(src);
    }
}
