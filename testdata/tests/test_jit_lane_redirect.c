/* testdata/tests/test_jit_lane_redirect.c — masked gathers and scatters
 * unmasked, their lanes that are off on the spare bytes (jit/lane_redirect.h).
 *
 * A hand-written function gathers floats through eight 64-bit indices under
 * a mask from a byte (a passthru of -1, and a second gather with a poison
 * one), stores them whole, and scatters each plus one through the same
 * indices under the same mask; an inactive lane's index is 2^40 floats out,
 * so that a lane the rewrite let through would fault.  For every one of the
 * 256 masks, with indices that repeat (a scatter's later lane wins), the
 * results must be what C computes, at the quick tier's code generation
 * level and the optimized one, and no gather or scatter may keep a mask but
 * the constant of all lanes (the gathers read the constant spare zeros, the
 * scatter writes the spare sink).  Forms that must keep their mask are
 * counted apart: a mask of all lanes, a scatter aligned beyond the spare
 * bytes, a gather and a scatter in another address space, and a gather of
 * elements larger than the spare bytes. */
#include <string.h>

#include <llvm-c/Analysis.h>

#include "harness.h"
#include "jit/jit_internal.h"
#include "jit/lane_redirect.h"
#include "test_ir_util.h"

static const char gather_scatter_ir[] =
    "declare <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr>, i32 immarg, <8 x i1>, <8 x float>)\n"
    "declare void @llvm.masked.scatter.v8f32.v8p0(<8 x float>, <8 x ptr>, i32 immarg, <8 x i1>)\n"
    "define void @gs(ptr %src, ptr %idx, ptr %dst, ptr %out, ptr %out2, i8 %bits) {\n"
    "entry:\n"
    "  %m = bitcast i8 %bits to <8 x i1>\n"
    "  %iv = load <8 x i64>, ptr %idx, align 8\n"
    "  %p = getelementptr float, ptr %src, <8 x i64> %iv\n"
    "  %g = call <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr> %p, i32 4, <8 x i1> %m, "
    "<8 x float> splat (float -1.0))\n"
    "  store <8 x float> %g, ptr %out, align 4\n"
    "  %h = call <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr> %p, i32 4, <8 x i1> %m, <8 x float> poison)\n"
    "  %hz = select <8 x i1> %m, <8 x float> %h, <8 x float> zeroinitializer\n"
    "  store <8 x float> %hz, ptr %out2, align 4\n"
    "  %d = fadd <8 x float> %g, splat (float 1.0)\n"
    "  %q = getelementptr float, ptr %dst, <8 x i64> %iv\n"
    "  call void @llvm.masked.scatter.v8f32.v8p0(<8 x float> %d, <8 x ptr> %q, i32 4, <8 x i1> %m)\n"
    "  ret void\n"
    "}\n";

/* Whether every gather and scatter of mod has the constant mask of all lanes. */
static bool all_unmasked(LLVMModuleRef mod)
{
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
                LLVMValueRef f = LLVMIsACallInst(in) ? LLVMGetCalledValue(in) : NULL;
                size_t len;
                const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
                bool gather = !strncmp(name, "llvm.masked.gather.", 19);
                if (!gather && strncmp(name, "llvm.masked.scatter.", 20))
                    continue;
                LLVMValueRef m = LLVMGetOperand(in, gather ? 2 : 3);
                if (m != LLVMConstAllOnes(LLVMTypeOf(m)))
                    return false;
            }
    return true;
}

typedef void (*gs_fn)(const float *src, const int64_t *idx, float *dst, float *out, float *out2, uint8_t bits);

static void check_level(int level)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, gather_scatter_ir, level, &diag);
    int n = jit_redirect_masked_lanes(h.mod);
    CHECK(n == 3, "level %d: %d rewrites, expected the two gathers and the scatter", level, n);
    CHECK(all_unmasked(h.mod), "level %d: a gather or scatter kept its mask", level);
    LLVMValueRef zeros = LLVMGetNamedGlobal(h.mod, "spvjit.spare.zeros"),
                 sink = LLVMGetNamedGlobal(h.mod, "spvjit.spare.sink");
    CHECK(zeros && LLVMIsGlobalConstant(zeros) && sink && !LLVMIsGlobalConstant(sink),
          "level %d: the gathers read the constant spare zeros, the scatter writes the spare sink", level);
    const char *names[1] = { "gs" };
    void *addrs[1];
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addrs, 1, &diag);
    gs_fn gs = (gs_fn)addrs[0];
    static const int64_t active_idx[2][8] = { { 3, 0, 7, 1, 12, 5, 9, 14 }, { 2, 2, 5, 2, 5, 11, 11, 2 } };
    const int64_t wild = (int64_t)1 << 40;
    for (int pattern = 0; pattern < 2; pattern++)
        for (unsigned bits = 0; bits < 256; bits++) {
            float src[16], dst[16], want_dst[16], out[8], out2[8];
            int64_t idx[8];
            for (int i = 0; i < 16; i++) {
                src[i] = 0.5f + (float)i * 1.25f;
                dst[i] = want_dst[i] = 100.0f + (float)i;
            }
            for (int l = 0; l < 8; l++)
                idx[l] = bits >> l & 1 ? active_idx[pattern][l] : wild + l;
            gs(src, idx, dst, out, out2, (uint8_t)bits);
            for (int l = 0; l < 8; l++) {
                bool on = bits >> l & 1;
                float want = on ? src[idx[l]] : -1.0f;
                CHECK(out[l] == want, "level %d mask %#x lane %d: gathered %g, expected %g", level, bits, l,
                      (double)out[l], (double)want);
                float want2 = on ? src[idx[l]] : 0.0f;
                CHECK(out2[l] == want2, "level %d mask %#x lane %d: gathered %g (poison passthru), expected %g", level,
                      bits, l, (double)out2[l], (double)want2);
                if (on) /* lane order: a later lane's store wins */
                    want_dst[idx[l]] = src[idx[l]] + 1.0f;
            }
            for (int i = 0; i < 16; i++)
                CHECK(dst[i] == want_dst[i], "level %d mask %#x pattern %d: dst[%d] = %g, expected %g", level, bits,
                      pattern, i, (double)dst[i], (double)want_dst[i]);
            if (test_failed_now())
                break;
        }
    tir_host_end(&h, code);
}

TEST_TIER_FREE(lane_redirect_gathers_scatters_every_mask)
{
    check_level(0);
    check_level(3);
}

TEST_TIER_FREE(lane_redirect_keeps_what_it_must)
{
    static const char ir[] =
        "declare <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr>, i32 immarg, <8 x i1>, <8 x float>)\n"
        "declare <8 x float> @llvm.masked.gather.v8f32.v8p1(<8 x ptr addrspace(1)>, i32 immarg, <8 x i1>, "
        "<8 x float>)\n"
        "declare void @llvm.masked.scatter.v8f32.v8p0(<8 x float>, <8 x ptr>, i32 immarg, <8 x i1>)\n"
        "declare void @llvm.masked.scatter.v8f32.v8p1(<8 x float>, <8 x ptr addrspace(1)>, i32 immarg, <8 x i1>)\n"
        "declare <2 x i4096> @llvm.masked.gather.v2i4096.v2p0(<2 x ptr>, i32 immarg, <2 x i1>, <2 x i4096>)\n"
        "define <2 x i4096> @huge(<2 x ptr> %p, <2 x i1> %m) {\n"
        "entry:\n"
        "  %r = call <2 x i4096> @llvm.masked.gather.v2i4096.v2p0(<2 x ptr> %p, i32 8, <2 x i1> %m, <2 x i4096> "
        "poison)\n"
        "  ret <2 x i4096> %r\n"
        "}\n"
        "define <8 x float> @k(<8 x ptr> %p, <8 x ptr addrspace(1)> %q, <8 x i1> %m, <8 x float> %v) {\n"
        "entry:\n"
        "  %a = call <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr> %p, i32 4, <8 x i1> splat (i1 true), "
        "<8 x float> %v)\n"
        "  call void @llvm.masked.scatter.v8f32.v8p0(<8 x float> %a, <8 x ptr> %p, i32 128, <8 x i1> %m)\n"
        "  call void @llvm.masked.scatter.v8f32.v8p1(<8 x float> %a, <8 x ptr addrspace(1)> %q, i32 4, <8 x i1> %m)\n"
        "  %b = call <8 x float> @llvm.masked.gather.v8f32.v8p1(<8 x ptr addrspace(1)> %q, i32 4, <8 x i1> %m, "
        "<8 x float> %v)\n"
        "  ret <8 x float> %b\n"
        "}\n";
    LLVMContextRef llc = LLVMContextCreate();
    LLVMModuleRef mod = tir_parse(llc, ir);
    REQUIRE(mod, "the test module does not parse");
    int n = jit_redirect_masked_lanes(mod);
    CHECK(n == 0,
          "%d rewrites, expected none: a mask of all lanes, an alignment beyond the spares', "
          "address space 1, an element larger than the spares",
          n);
    CHECK(!LLVMGetNamedGlobal(mod, "spvjit.spare.zeros") && !LLVMGetNamedGlobal(mod, "spvjit.spare.sink"),
          "spare bytes made for nothing");
    char *err = NULL;
    CHECK(!LLVMVerifyModule(mod, LLVMReturnStatusAction, &err), "the module does not verify: %s", err ? err : "");
    LLVMDisposeMessage(err);
    LLVMDisposeModule(mod);
    LLVMContextDispose(llc);
}
