/* testdata/tests/test_jit_fp.c — the floating-point environment of each
 * flavour (jit_fp_relaxed_widths, README "Floating point"): o = x * 0.0 and
 * o = x + (-0.0) on -1, +inf, NaN, 2.
 *
 * Shader modules without SignedZeroInfNanPreserve may ignore the sign of
 * zero and assume no NaN or Inf, so x * 0.0 folds to +0.0 (what makes a zero
 * coefficient free); with the execution mode for 32 bits they keep IEEE
 * (-0.0, NaN, NaN, +0.0); Kernel modules keep IEEE unless FPFastMathMode
 * decorates the instruction (here: NotNaN|NotInf|NSZ on the second one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"

static const char shader_src[] =
    "OpCapability Shader\n"
    "%s"
    "OpMemoryModel Logical GLSL450\n"
    "OpEntryPoint GLCompute %%main \"main\" %%gid\n"
    "OpExecutionMode %%main LocalSize 4 1 1\n"
    "%s"
    "OpDecorate %%gid BuiltIn GlobalInvocationId\n"
    "OpDecorate %%arr ArrayStride 4\n"
    "OpMemberDecorate %%blk 0 Offset 0\n"
    "OpDecorate %%blk Block\n"
    "OpDecorate %%in DescriptorSet 0\nOpDecorate %%in Binding 0\n"
    "OpDecorate %%out DescriptorSet 0\nOpDecorate %%out Binding 1\n"
    "%%void = OpTypeVoid\n%%fn = OpTypeFunction %%void\n"
    "%%u32 = OpTypeInt 32 0\n%%f32 = OpTypeFloat 32\n"
    "%%v3 = OpTypeVector %%u32 3\n%%pv3 = OpTypePointer Input %%v3\n"
    "%%arr = OpTypeRuntimeArray %%f32\n%%blk = OpTypeStruct %%arr\n"
    "%%pblk = OpTypePointer StorageBuffer %%blk\n%%pf = OpTypePointer StorageBuffer %%f32\n"
    "%%gid = OpVariable %%pv3 Input\n"
    "%%in = OpVariable %%pblk StorageBuffer\n%%out = OpVariable %%pblk StorageBuffer\n"
    "%%c0 = OpConstant %%u32 0\n%%c2 = OpConstant %%u32 2\n%%c1 = OpConstant %%u32 1\n"
    "%%zero = OpConstant %%f32 0\n%%mzero = OpConstant %%f32 -0\n"
    "%%main = OpFunction %%void None %%fn\n%%e = OpLabel\n"
    "%%g = OpLoad %%v3 %%gid\n%%i = OpCompositeExtract %%u32 %%g 0\n"
    "%%px = OpAccessChain %%pf %%in %%c0 %%i\n%%x = OpLoad %%f32 %%px\n"
    "%%m = OpFMul %%f32 %%x %%zero\n%%a = OpFAdd %%f32 %%x %%mzero\n"
    "%%i2 = OpIMul %%u32 %%i %%c2\n%%i3 = OpIAdd %%u32 %%i2 %%c1\n"
    "%%po = OpAccessChain %%pf %%out %%c0 %%i2\nOpStore %%po %%m\n"
    "%%pa = OpAccessChain %%pf %%out %%c0 %%i3\nOpStore %%pa %%a\n"
    "OpReturn\nOpFunctionEnd\n";

static const char kernel_src[] = "OpCapability Addresses\nOpCapability Kernel\nOpCapability Int64\n"
                                 "OpMemoryModel Physical64 OpenCL\n"
                                 "OpEntryPoint Kernel %main \"k\" %gid\n"
                                 "OpExecutionMode %main LocalSize 4 1 1\n"
                                 "OpDecorate %gid BuiltIn GlobalInvocationId\n"
                                 "OpDecorate %gid Constant\n"
                                 "OpDecorate %a FPFastMathMode NotNaN|NotInf|NSZ\n"
                                 "%void = OpTypeVoid\n%u64 = OpTypeInt 64 0\n%f32 = OpTypeFloat 32\n"
                                 "%v3 = OpTypeVector %u64 3\n%pv3 = OpTypePointer Input %v3\n"
                                 "%pf = OpTypePointer CrossWorkgroup %f32\n"
                                 "%fn = OpTypeFunction %void %pf %pf\n"
                                 "%gid = OpVariable %pv3 Input\n"
                                 "%c1 = OpConstant %u64 1\n%c2 = OpConstant %u64 2\n"
                                 "%zero = OpConstant %f32 0\n%mzero = OpConstant %f32 -0\n"
                                 "%main = OpFunction %void None %fn\n%pin = OpFunctionParameter %pf\n"
                                 "%pout = OpFunctionParameter %pf\n%e = OpLabel\n"
                                 "%g = OpLoad %v3 %gid Aligned 32\n%i = OpCompositeExtract %u64 %g 0\n"
                                 "%px = OpInBoundsPtrAccessChain %pf %pin %i\n%x = OpLoad %f32 %px Aligned 4\n"
                                 "%m = OpFMul %f32 %x %zero\n%a = OpFAdd %f32 %x %mzero\n"
                                 "%i2 = OpIMul %u64 %i %c2\n%i3 = OpIAdd %u64 %i2 %c1\n"
                                 "%po = OpInBoundsPtrAccessChain %pf %pout %i2\nOpStore %po %m Aligned 4\n"
                                 "%pa = OpInBoundsPtrAccessChain %pf %pout %i3\nOpStore %pa %a Aligned 4\n"
                                 "OpReturn\nOpFunctionEnd\n";

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Runs the module at path (4 work-items) on in[in_bytes / 4], out[out_bytes / 4]. */
static void run_on(const char *path, bool kernel, const float *in, uint64_t in_bytes, float *out, uint64_t out_bytes)
{
    spv_diag d;
    spv_module *m = spv_module_load_file(path, NULL, &d);
    REQUIRE(m, "load %s: %s", path, d.msg);
    jit_kernel *k = tj_compile(m, NULL, &(spvjit_options){ .opt_level = 2 });
    REQUIRE(k, "compile %s: %s", path, tj_last_error);
    float *pin = (float *)in;
    void *sargs[2] = { pin, out }, *kargs[2] = { &pin, &out };
    uint64_t sizes[2] = { in_bytes, out_bytes };
    tj_dispatch dd = { .args = kernel ? kargs : sargs,
                       .arg_sizes = sizes,
                       .nargs = TJ_COUNT(sizes),
                       .groups = { 1, 1, 1 },
                       .work_dim = 1,
                       .global_size = { 4, 1, 1 } };
    REQUIRE(tj_run(k, &dd) == 0, "run %s", path);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* Runs the module at path on x; out gets x * 0 and x + -0 per item. */
static void run(const char *path, bool kernel, const float *x, float *out)
{
    run_on(path, kernel, x, 16, out, 32);
}

TEST(jit_fp_environment_by_flavour)
{
    char *dir = test_temp_dir("fp");
    REQUIRE(dir, "temp dir");
    char relaxed[256], strict[256], kernel[256], text[8192];
    snprintf(relaxed, sizeof relaxed, "%s/relaxed.spv", dir);
    snprintf(strict, sizeof strict, "%s/strict.spv", dir);
    snprintf(kernel, sizeof kernel, "%s/kernel.spv", dir);
    snprintf(text, sizeof text, shader_src, "", "");
    REQUIRE(test_assemble(text, "vulkan1.1", relaxed), "assemble the relaxed shader");
    snprintf(text, sizeof text, shader_src,
             "OpCapability SignedZeroInfNanPreserve\nOpExtension \"SPV_KHR_float_controls\"\n",
             "OpExecutionMode %main SignedZeroInfNanPreserve 32\n");
    REQUIRE(test_assemble(text, "vulkan1.1", strict), "assemble the strict shader");
    REQUIRE(test_assemble(kernel_src, "spv1.2", kernel), "assemble the kernel");

    const float x[4] = { -1.0f, INFINITY, NAN, 2.0f };
    float o[8];
    /* IEEE: x * 0 is -0, NaN, NaN, +0; x + -0 is x */
    run(strict, false, x, o);
    CHECK(bits(o[0]) == bits(-0.0f) && isnan(o[2]) && isnan(o[4]) && bits(o[6]) == 0,
          "SignedZeroInfNanPreserve 32: x * 0 = %g %g %g %g", o[0], o[2], o[4], o[6]);
    CHECK(o[1] == -1.0f && o[3] == INFINITY && isnan(o[5]) && o[7] == 2.0f, "strict x + -0 = %g %g %g %g", o[1], o[3],
          o[5], o[7]);
    run(kernel, true, x, o);
    CHECK(bits(o[0]) == bits(-0.0f) && isnan(o[2]) && isnan(o[4]) && bits(o[6]) == 0, "Kernel: x * 0 = %g %g %g %g",
          o[0], o[2], o[4], o[6]);
    CHECK(o[1] == -1.0f && o[7] == 2.0f, "Kernel x + -0 (NotNaN|NotInf|NSZ) = %g %g", o[1], o[7]);
    /* relaxed: x * 0 folds to +0 (no NaN, no Inf, no sign of zero) */
    run(relaxed, false, x, o);
    for (int i = 0; i < 4; i++)
        CHECK(bits(o[2 * i]) == 0, "relaxed shader: x * 0 for x = %g gives %g (%#x), not the folded +0", x[i], o[2 * i],
              bits(o[2 * i]));
    CHECK(o[1] == -1.0f && o[7] == 2.0f, "relaxed x + -0 = %g %g", o[1], o[7]);
    test_remove_dir(dir);
    free(dir);
}

/* --- contraction (jit/contract.h) ------------------------------------------------------------------------ */

/* o[4i..4i+3] = x*y + z, z - x*y, x*y - z, and x*y + z again with
 * NoContraction on its multiply and add; x, y, z = in[3i..3i+2]. */
static const char contract_shader_src[] =
    "OpCapability Shader\n"
    "OpMemoryModel Logical GLSL450\n"
    "OpEntryPoint GLCompute %main \"main\" %gid\n"
    "OpExecutionMode %main LocalSize 4 1 1\n"
    "OpDecorate %gid BuiltIn GlobalInvocationId\n"
    "OpDecorate %arr ArrayStride 4\n"
    "OpMemberDecorate %blk 0 Offset 0\n"
    "OpDecorate %blk Block\n"
    "OpDecorate %in DescriptorSet 0\nOpDecorate %in Binding 0\n"
    "OpDecorate %out DescriptorSet 0\nOpDecorate %out Binding 1\n"
    "OpDecorate %pm NoContraction\nOpDecorate %pa NoContraction\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n"
    "%u32 = OpTypeInt 32 0\n%f32 = OpTypeFloat 32\n"
    "%v3 = OpTypeVector %u32 3\n%pv3 = OpTypePointer Input %v3\n"
    "%arr = OpTypeRuntimeArray %f32\n%blk = OpTypeStruct %arr\n"
    "%pblk = OpTypePointer StorageBuffer %blk\n%pf = OpTypePointer StorageBuffer %f32\n"
    "%gid = OpVariable %pv3 Input\n"
    "%in = OpVariable %pblk StorageBuffer\n%out = OpVariable %pblk StorageBuffer\n"
    "%c0 = OpConstant %u32 0\n%c1 = OpConstant %u32 1\n%c2 = OpConstant %u32 2\n"
    "%c3 = OpConstant %u32 3\n%c4 = OpConstant %u32 4\n"
    "%main = OpFunction %void None %fn\n%e = OpLabel\n"
    "%g = OpLoad %v3 %gid\n%i = OpCompositeExtract %u32 %g 0\n"
    "%i3 = OpIMul %u32 %i %c3\n%iy = OpIAdd %u32 %i3 %c1\n%iz = OpIAdd %u32 %i3 %c2\n"
    "%px = OpAccessChain %pf %in %c0 %i3\n%x = OpLoad %f32 %px\n"
    "%py = OpAccessChain %pf %in %c0 %iy\n%y = OpLoad %f32 %py\n"
    "%pz = OpAccessChain %pf %in %c0 %iz\n%z = OpLoad %f32 %pz\n"
    "%m0 = OpFMul %f32 %x %y\n%r0 = OpFAdd %f32 %m0 %z\n"
    "%m1 = OpFMul %f32 %x %y\n%r1 = OpFSub %f32 %z %m1\n"
    "%m2 = OpFMul %f32 %x %y\n%r2 = OpFSub %f32 %m2 %z\n"
    "%pm = OpFMul %f32 %x %y\n%pa = OpFAdd %f32 %pm %z\n"
    "%o0 = OpIMul %u32 %i %c4\n%o1 = OpIAdd %u32 %o0 %c1\n%o2 = OpIAdd %u32 %o0 %c2\n%o3 = OpIAdd %u32 %o0 %c3\n"
    "%q0 = OpAccessChain %pf %out %c0 %o0\nOpStore %q0 %r0\n"
    "%q1 = OpAccessChain %pf %out %c0 %o1\nOpStore %q1 %r1\n"
    "%q2 = OpAccessChain %pf %out %c0 %o2\nOpStore %q2 %r2\n"
    "%q3 = OpAccessChain %pf %out %c0 %o3\nOpStore %q3 %pa\n"
    "OpReturn\nOpFunctionEnd\n";

/* o[i] = x*y + z (in[3i..3i+2]) in a Kernel; %s: decorations of %m and %r. */
static const char contract_kernel_src[] = "OpCapability Addresses\nOpCapability Kernel\nOpCapability Int64\n"
                                          "OpMemoryModel Physical64 OpenCL\n"
                                          "OpEntryPoint Kernel %%main \"k\" %%gid\n"
                                          "OpExecutionMode %%main LocalSize 4 1 1\n"
                                          "OpDecorate %%gid BuiltIn GlobalInvocationId\n"
                                          "%s"
                                          "OpDecorate %%gid Constant\n"
                                          "%%void = OpTypeVoid\n%%u64 = OpTypeInt 64 0\n%%f32 = OpTypeFloat 32\n"
                                          "%%v3 = OpTypeVector %%u64 3\n%%pv3 = OpTypePointer Input %%v3\n"
                                          "%%pf = OpTypePointer CrossWorkgroup %%f32\n"
                                          "%%fn = OpTypeFunction %%void %%pf %%pf\n"
                                          "%%gid = OpVariable %%pv3 Input\n"
                                          "%%c1 = OpConstant %%u64 1\n%%c2 = OpConstant %%u64 2\n"
                                          "%%c3 = OpConstant %%u64 3\n"
                                          "%%main = OpFunction %%void None %%fn\n%%pin = OpFunctionParameter %%pf\n"
                                          "%%pout = OpFunctionParameter %%pf\n%%e = OpLabel\n"
                                          "%%g = OpLoad %%v3 %%gid Aligned 32\n%%i = OpCompositeExtract %%u64 %%g 0\n"
                                          "%%i3 = OpIMul %%u64 %%i %%c3\n%%iy = OpIAdd %%u64 %%i3 %%c1\n"
                                          "%%iz = OpIAdd %%u64 %%i3 %%c2\n"
                                          "%%px = OpInBoundsPtrAccessChain %%pf %%pin %%i3\n"
                                          "%%x = OpLoad %%f32 %%px Aligned 4\n"
                                          "%%py = OpInBoundsPtrAccessChain %%pf %%pin %%iy\n"
                                          "%%y = OpLoad %%f32 %%py Aligned 4\n"
                                          "%%pz = OpInBoundsPtrAccessChain %%pf %%pin %%iz\n"
                                          "%%z = OpLoad %%f32 %%pz Aligned 4\n"
                                          "%%m = OpFMul %%f32 %%x %%y\n%%r = OpFAdd %%f32 %%m %%z\n"
                                          "%%po = OpInBoundsPtrAccessChain %%pf %%pout %%i\n"
                                          "OpStore %%po %%r Aligned 4\n"
                                          "OpReturn\nOpFunctionEnd\n";

/* A multiply and the add (or subtract) that alone uses it round once, as
 * fmaf, in a Shader module — SPIR-V's default — unless NoContraction marks
 * them: then twice.  A Kernel module rounds twice unless FPFastMathMode Fast
 * (which allows contraction) decorates both.  The inputs make the two differ
 * (x * y is a tie below its float: 1 + 2^-11 + 2^-24). */
TEST(jit_fp_contraction)
{
    char *dir = test_temp_dir("contract");
    REQUIRE(dir, "temp dir");
    char shader[256], kernel[256], kernel_fast[256], text[8192];
    snprintf(shader, sizeof shader, "%s/shader.spv", dir);
    snprintf(kernel, sizeof kernel, "%s/kernel.spv", dir);
    snprintf(kernel_fast, sizeof kernel_fast, "%s/kernel_fast.spv", dir);
    REQUIRE(test_assemble(contract_shader_src, "vulkan1.1", shader), "assemble the shader");
    snprintf(text, sizeof text, contract_kernel_src, "");
    REQUIRE(test_assemble(text, "spv1.2", kernel), "assemble the kernel");
    snprintf(text, sizeof text, contract_kernel_src,
             "OpDecorate %m FPFastMathMode Fast\nOpDecorate %r FPFastMathMode Fast\n");
    REQUIRE(test_assemble(text, "spv1.2", kernel_fast), "assemble the Fast kernel");

    const float e = 1.0f + 0x1p-12f;
    const float in[12] = { e, e, -1.0f, e, -e, 3.0f, -e, e, 0.5f, 1.5f, 2.25f, -3.375f };
    float o[16];
    volatile float p; /* a product rounded on its own (no contraction here) */
    run_on(shader, false, in, 48, o, 64);
    for (int i = 0; i < 4; i++) {
        float x = in[3 * i], y = in[3 * i + 1], z = in[3 * i + 2];
        p = x * y;
        float want[4] = { fmaf(x, y, z), fmaf(-x, y, z), fmaf(x, y, -z), p + z };
        for (int j = 0; j < 4; j++)
            CHECK(bits(o[4 * i + j]) == bits(want[j]), "shader item %d output %d: %a, want %a", i, j, o[4 * i + j],
                  want[j]);
    }
    p = e * e;
    CHECK(fmaf(e, e, -1.0f) != p - 1.0f, "the inputs do not tell one rounding from two");
    float k[4];
    run_on(kernel, true, in, 48, k, 16);
    for (int i = 0; i < 4; i++) {
        p = in[3 * i] * in[3 * i + 1];
        float want = p + in[3 * i + 2];
        CHECK(bits(k[i]) == bits(want), "kernel item %d: %a, want %a", i, k[i], want);
    }
    run_on(kernel_fast, true, in, 48, k, 16);
    for (int i = 0; i < 4; i++)
        CHECK(bits(k[i]) == bits(fmaf(in[3 * i], in[3 * i + 1], in[3 * i + 2])),
              "Fast kernel item %d: %a, want fmaf's %a", i, k[i], fmaf(in[3 * i], in[3 * i + 1], in[3 * i + 2]));
    test_remove_dir(dir);
    free(dir);
}
