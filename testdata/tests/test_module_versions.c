/* testdata/tests/test_module_versions.c — a module is validated under the
 * rules of its own SPIR-V version and flavour: a SPIR-V 1.4 Kernel module
 * as clang-15 + llvm-spirv-15 make it by default (sub-group built-ins, a
 * __local array whose Workgroup variable a 1.4 entry point lists among its
 * interface) loads, builds and runs.  Reference: the kernel's plain C
 * equivalent (testdata/jit/cl_v14_subgroup_local.cl) on random input. */
#include <stdlib.h>
#include <string.h>

#include "api_test_util.h"

TEST(kernel_module_of_spirv_1_4_runs)
{
    size_t nbytes = 0;
    uint32_t *words = test_read_file(test_data_path("jit/cl_v14_subgroup_local.cl.spv"), &nbytes);
    REQUIRE(words && nbytes > 20, "cannot read the module");
    CHECK(words[1] == 0x00010400, "the module is SPIR-V %u.%u, not 1.4", words[1] >> 16, (words[1] >> 8) & 0xff);
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = NULL;
    spvjit_kernel *k = NULL;
    REQUIRE(ctx, "context");
    spvjit_status st = spvjit_module_load(ctx, words, nbytes, "cl_v14", &m);
    free(words);
    CHECK(st == SPVJIT_OK, "load: %s", spvjit_last_error());
    if (st == SPVJIT_OK) {
        enum { N = 256 };
        int32_t in[N], out[N];
        uint64_t seed = 14;
        for (int i = 0; i < N; i++)
            in[i] = (int32_t)(test_rand_u64(&seed) % 2001) - 1000;
        memset(out, 0, sizeof out);
        spvjit_dispatch_info d = { .work_dim = 1, .global_size = { N, 1, 1 }, .local_size = { 64, 1, 1 } };
        st = spvjit_kernel_build(m, "sg_local", NULL, NULL, &k);
        if (!st)
            st = spvjit_set_arg_buffer(k, 0, out, sizeof out);
        if (!st)
            st = spvjit_set_arg_buffer(k, 1, in, sizeof in);
        if (!st)
            st = spvjit_dispatch(k, &d);
        CHECK(st == SPVJIT_OK, "run: %s", spvjit_last_error());
        for (int g = 0; st == SPVJIT_OK && g < N / 64; g++)
            for (int i = 0; i < 64; i++)
                if (out[g * 64 + i] != in[g * 64 + 63 - i] + 1) {
                    CHECK(0, "out[%d] = %d, want %d", g * 64 + i, out[g * 64 + i], in[g * 64 + 63 - i] + 1);
                    g = N;
                    break;
                }
        spvjit_kernel_destroy(k);
        spvjit_module_destroy(m);
    }
    spvjit_context_destroy(ctx);
}
