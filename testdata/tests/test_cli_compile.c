/* testdata/tests/test_cli_compile.c — `spvjit compile`: the lowered IR, the
 * optimized IR and the machine code of an entry point, through the binary
 * ($SPVJIT_BIN).  References: the seed matrix multiply's source (its inner
 * k loop runs BS times), the IR text's own structure, one-line errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static const char *bin(void)
{
    const char *b = getenv("SPVJIT_BIN");
    return b ? b : "build/spvjit";
}

/* SPVJIT_BARRIERS=fibers: mm.comp has barriers; on the fiber path the IR keeps the
 * kernel's own loops and value names (the barrier-region transformation renames
 * values and unrolls the loop over work-items), so the k loop can be found by name. */
static int compile(char **out, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "SPVJIT_BARRIERS=fibers %s compile %s 2>&1", bin(), args);
    return test_run_capture(cmd, out);
}

/* Whether the IR has a phi of the loop counter `k` (OpName k of mm.comp). */
static bool k_phi(const char *ir)
{
    for (const char *p = ir; (p = strstr(p, "%k.")); p++) {
        const char *eol = strchr(p, '\n');
        const char *phi = strstr(p, " = phi ");
        if (phi && (!eol || phi < eol))
            return true;
    }
    return false;
}

TEST(cli_compile_mm_specialized_unrolls_inner_loop)
{
    char spv[1024], *spec = NULL, *unspec = NULL, *lowered = NULL;
    snprintf(spv, sizeof spv, "'%s'", test_data_path("kernels/mm.comp.spv"));
    char args[1200];
    snprintf(args, sizeof args, "%s -D 0=16 --tier opt --emit opt-llvm", spv);
    REQUIRE(compile(&spec, args) == 0, "compile BS=16: %s", spec ? spec : "");
    snprintf(args, sizeof args, "%s --no-specialize --tier opt --emit opt-llvm", spv);
    REQUIRE(compile(&unspec, args) == 0, "compile --no-specialize: %s", unspec ? unspec : "");
    snprintf(args, sizeof args, "%s -D 0=16 --emit llvm", spv);
    REQUIRE(compile(&lowered, args) == 0, "compile --emit llvm: %s", lowered ? lowered : "");
    /* the lowered IR still has the k loop (a phi of k's lowering or a load/store of it) and
     * the work-group function; the optimizer removed it once BS = 16 is a literal */
    CHECK(strstr(lowered, "define") && (strstr(lowered, "@spvjit_item") || strstr(lowered, "@spvjit_wg")),
          "lowered IR lacks the work-group / work-item function");
    CHECK(k_phi(lowered) || strstr(lowered, "%k"), "the lowered IR lacks the k loop's variable");
    CHECK(!k_phi(spec), "specialized: the inner k loop is still there");
    /* a multiply-add a[..] * b[..] + acc per k: contracted (jit/contract.h), or not */
    int products = test_count(spec, " fmul ") + test_count(spec, "call nnan ninf nsz <16 x float> @llvm.fmuladd.") +
                   test_count(spec, "call nnan ninf nsz <8 x float> @llvm.fmuladd.") +
                   test_count(spec, "call nnan ninf nsz <4 x float> @llvm.fmuladd.") +
                   test_count(spec, "call nnan ninf nsz float @llvm.fmuladd.");
    CHECK(products >= 16, "specialized: %d products (fmul, fmuladd), expected the 16 of the unrolled loop", products);
    CHECK(k_phi(unspec), "--no-specialize: no k loop in the optimized IR");
    free(spec);
    free(unspec);
    free(lowered);
}

/* The quick tier runs no loop passes: its IR keeps the k loop that the
 * optimized tier unrolls; a tier that does not exist is a one-line error. */
TEST(cli_compile_quick_tier_keeps_loops)
{
    char spv[1024], args[1200], *quick = NULL, *bad = NULL;
    snprintf(spv, sizeof spv, "'%s'", test_data_path("kernels/mm.comp.spv"));
    snprintf(args, sizeof args, "%s -D 0=16 --tier quick --emit opt-llvm", spv);
    REQUIRE(compile(&quick, args) == 0, "compile --tier quick: %s", quick ? quick : "");
    CHECK(k_phi(quick), "--tier quick: the k loop is gone: the quick tier ran loop passes");
    CHECK(!strstr(quick, "alloca float"), "--tier quick: a float variable stayed in memory (no SROA?)");
    snprintf(args, sizeof args, "%s --tier fast --emit asm", spv);
    CHECK(compile(&bad, args) != 0 && strstr(bad, "--tier fast: expected auto, quick or opt") &&
              test_count(bad, "\n") == 1,
          "--tier fast: %s", bad ? bad : "");
    free(quick);
    free(bad);
}

TEST(cli_compile_asm_and_output_file)
{
    char tmpl[] = "/tmp/spvjit_compile_XXXXXX";
    int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0, "mkstemp");
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "'%s' -e saxpy --local 32 --emit asm -o %s", test_data_path("kernels/saxpy.cl.spv"),
             tmpl);
    int st = compile(&out, args);
    CHECK(st == 0 && out && !out[0], "compile -o: status %d, output '%s'", st, out ? out : "");
    size_t len = 0;
    char *text = test_read_file(tmpl, &len);
    REQUIRE(text, "no output file");
    /* the work-group function (the entry's symbol) is defined in the assembly */
    CHECK(strstr(text, "spvjit_wg_range:") && strstr(text, ".text"), "asm lacks the entry's symbol: %.200s", text);
    free(text);
    free(out);
    unlink(tmpl);
    close(fd);
}

TEST(cli_compile_errors_are_one_line)
{
    const char *cases[][2] = {
        { "'%s' --emit llvm -e nosuch", "nosuch" },
        { "'%s' --emit bitcode", "bitcode" },
        { "'%s' -D 7=3 --emit llvm", "7" },
        { "'%s' --local 0,1 --emit llvm", "--local" },
        { "'%s'", "usage" },
        { "/nonexistent/x.spv --emit llvm", "nonexistent" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, cases[i][0], test_data_path("kernels/mm.comp.spv"));
        int st = compile(&out, args);
        CHECK(st == 1, "'%s': status %d", args, st);
        CHECK(out && !strncmp(out, "spvjit: ", 8) && strchr(out, '\n') == out + strlen(out) - 1 &&
                  strstr(out, cases[i][1]),
              "'%s': not one line naming '%s': %s", args, cases[i][1], out ? out : "");
        free(out);
    }
}
