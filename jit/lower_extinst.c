/* jit/lower_extinst.c — OpExtInst: the operands of GLSL.std.450 and OpenCL.std
 * instructions as LLVM values, handed to the lowerings of jit/extinst.h
 * (lower_glsl450.c, lower_opencl.c, which know LLVM but not the module);
 * NonSemantic.* sets are ignored.  In memory modes robust and check, an
 * instruction that reads or writes through a pointer (vload/vstore, the
 * math functions with an output pointer) works on a copy on the stack,
 * filled from (or written back to) the real memory under a bounds check. */
#include "lower_ctx.h"

#include <stdio.h>
#include <string.h>

#include "extinst.h"

/* The bytes of a constant string an OpenCL printf format pointer designates. */
static char *format_string(lower_ctx *c, uint32_t id)
{
    for (int depth = 0; depth < 8; depth++) {
        const spv_inst *d = spv_def(c->m, id);
        if (!d)
            return NULL;
        if (d->opcode == SpvOpSpecConstantOp && spv_inst_nops(d) >= 2) {
            id = spv_inst_op(d, 1);
            continue;
        }
        if (d->opcode == SpvOpInBoundsPtrAccessChain || d->opcode == SpvOpPtrAccessChain ||
            d->opcode == SpvOpAccessChain || d->opcode == SpvOpInBoundsAccessChain || d->opcode == SpvOpBitcast ||
            d->opcode == SpvOpPtrCastToGeneric) {
            id = spv_inst_op(d, 0);
            continue;
        }
        if (d->opcode != SpvOpVariable || spv_inst_nops(d) < 2)
            return NULL;
        const spv_id *init = spv_id_get(c->m, spv_inst_op(d, 1));
        if (!init || !init->is_composite)
            return NULL;
        char *s = jit_alloc(c, init->nparts + 1, 1);
        for (uint32_t i = 0; i < init->nparts; i++)
            s[i] = (char)c->m->ids[init->parts[i]].scalar;
        return s;
    }
    return NULL;
}

/* The memory an extended instruction touches through a pointer operand:
 * operand `ptr`, `bytes` at byte offset `off` (i64) past it, whose element
 * offset is operand `index` (-1: none); read before or written after. */
typedef struct ext_access {
    int ptr, index;
    LLVMValueRef off;
    uint64_t bytes;
    bool store;
} ext_access;

static bool ext_access_of(lower_ctx *c, const spv_inst *in, spv_ext_set set, uint32_t inst, LLVMValueRef *a, uint32_t n,
                          ext_access *x)
{
    memset(x, 0, sizeof *x);
    x->index = -1;
    LLVMTypeRef rt = in->type_id ? jit_type(c, in->type_id) : NULL;
    unsigned lanes = 0, esize = 2, stride = 0;
    if (set == SPV_EXT_GLSL_STD_450) {
        if ((inst != 35 && inst != 51) || n < 2) /* Modf, Frexp */
            return false;
        x->ptr = 1;
        x->store = true;
    } else if (inst == 30 || inst == 31 || inst == 36 || inst == 45 || inst == 52 || inst == 58) {
        x->ptr = (int)n - 1; /* fract frexp lgamma_r modf remquo sincos: an output pointer last */
        x->store = true;
    } else if (inst == 171 || inst == 173 || inst == 174 || inst == 179) { /* vloadn, vload_half(n), vloada_halfn */
        if (n < 2 || !rt)
            return false;
        lanes = inst == 173 ? 1 : (unsigned)LLVMConstIntGetZExtValue(a[2]);
        if (inst == 171)
            esize =
                (unsigned)LLVMABISizeOfType(c->td,
                                            LLVMGetTypeKind(rt) == LLVMVectorTypeKind ? LLVMGetElementType(rt) : rt);
        stride = inst == 179 && lanes == 3 ? 4 : lanes;
        x->ptr = 1;
        x->index = 0;
    } else if (inst == 172 || (inst >= 175 && inst <= 178) || inst == 180 || inst == 181) { /* vstore* */
        if (n < 3)
            return false;
        LLVMTypeRef dt = LLVMTypeOf(a[0]);
        bool vec = LLVMGetTypeKind(dt) == LLVMVectorTypeKind;
        lanes = vec ? LLVMGetVectorSize(dt) : 1;
        if (inst == 172)
            esize = (unsigned)LLVMABISizeOfType(c->td, vec ? LLVMGetElementType(dt) : dt);
        stride = (inst == 180 || inst == 181) && lanes == 3 ? 4 : lanes;
        x->ptr = 2;
        x->index = 1;
        x->store = true;
    } else {
        return false;
    }
    if (x->index >= 0) {
        x->bytes = (uint64_t)lanes * esize;
        x->off = LLVMBuildMul(c->b, jit_int_cast(c, a[x->index], c->t_i64, false),
                              LLVMConstInt(c->t_i64, (uint64_t)stride * esize, 0), "");
    } else {
        const spv_type *pt = spv_type_get(c->m, c->m->ids[spv_inst_op(in, 2 + x->ptr)].type_id);
        const spv_layout *l = pt && pt->kind == SPV_TYPE_POINTER ? jit_layout_of(c, pt->elem) : NULL;
        if (!l)
            return false;
        x->bytes = l->size;
        x->off = LLVMConstInt(c->t_i64, 0, 0);
    }
    return true;
}

/* A checked copy of x's bytes between the real memory and the stack copy tmp. */
static void bounce(lower_ctx *c, const spv_inst *in, const ext_access *x, LLVMValueRef p, LLVMValueRef tmp)
{
    uint32_t ptr_id = spv_inst_op(in, 2 + x->ptr);
    LLVMValueRef n = LLVMConstInt(c->t_i64, x->bytes, 0), at = jit_byte_gep(c, p, x->off, false);
    jit_guard g;
    bool open = jit_guard_open(c, &g, in, ptr_id, p, x->off, n, x->store ? SPVJIT_ACCESS_STORE : SPVJIT_ACCESS_LOAD);
    if (x->store)
        LLVMBuildMemCpy(c->b, at, 1, tmp, 16, n);
    else
        LLVMBuildMemCpy(c->b, tmp, 16, at, 1, n);
    if (!open)
        return;
    if (!x->store) { /* out of bounds: the copy reads zero */
        jit_guard_else(c, &g);
        LLVMBuildMemSet(c->b, tmp, LLVMConstInt(c->t_i8, 0, 0), n, 16);
    }
    jit_guard_close(c, &g, NULL, NULL);
}

int jit_lower_extinst(lower_ctx *c, const spv_inst *in)
{
    const spv_id *set = spv_id_get(c->m, spv_inst_op(in, 0));
    uint32_t inst = spv_inst_op(in, 1), n = spv_inst_nops(in) - 2;
    if (!set || set->kind != SPV_ID_EXT_IMPORT)
        return jit_fail_inst(c, in, "set is not an OpExtInstImport");
    if (set->ext_set == SPV_EXT_NONSEMANTIC)
        return 0;
    if (set->ext_set != SPV_EXT_GLSL_STD_450 && set->ext_set != SPV_EXT_OPENCL_STD)
        return jit_fail_inst(c, in, "unknown extended instruction set");
    LLVMValueRef *args = jit_alloc(c, n + 1, sizeof *args);
    LLVMTypeRef *pointees = jit_alloc(c, n + 1, sizeof *pointees);
    /* OpenCL.std operands that are literals, not ids: vloadn / vload_halfn /
     * vloada_halfn's n (operand 2), vstore*_r's rounding mode (operand 3). */
    int literal_at = -1;
    if (set->ext_set == SPV_EXT_OPENCL_STD)
        literal_at = (inst == 171 || inst == 174 || inst == 179)   ? 2
                     : (inst == 176 || inst == 178 || inst == 181) ? 3
                                                                   : -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = spv_inst_op(in, 2 + i);
        if ((int)i == literal_at) {
            args[i] = LLVMConstInt(c->t_i32, id, 0);
            continue;
        }
        if (!(args[i] = jit_value(c, id)))
            return -1;
        const spv_type *t = spv_type_get(c->m, c->m->ids[id].type_id);
        if (t && t->kind == SPV_TYPE_POINTER && t->elem && !(pointees[i] = jit_type(c, t->elem)))
            return -1;
    }
    ext_access x;
    LLVMValueRef real = NULL, tmp = NULL;
    if (jit_checks_on(c) && ext_access_of(c, in, set->ext_set, inst, args, n, &x)) {
        real = args[x.ptr];
        tmp = LLVMBuildAlloca(c->pb, LLVMArrayType2(c->t_i8, x.bytes ? x.bytes : 1), "ext.mem");
        LLVMSetAlignment(tmp, 16);
        if (!x.store)
            bounce(c, in, &x, real, tmp);
        args[x.ptr] = tmp;
        if (x.index >= 0)
            args[x.index] = LLVMConstNull(LLVMTypeOf(args[x.index]));
    }
    ext_lower_ctx e = {
        .ctx = c->llc,
        .mod = c->mod,
        .b = c->b,
        .result_type = jit_type(c, in->type_id),
        .pointee_types = pointees,
        .printf_format = NULL,
        .wg_ctx = c->arg_ctx,
    };
    if (!e.result_type)
        return -1;
    if (set->ext_set == SPV_EXT_OPENCL_STD && inst == 184 /* printf */ && n >= 1 &&
        !(e.printf_format = format_string(c, spv_inst_op(in, 2))))
        return jit_fail_inst(c, in, "printf format is not a constant string");
    LLVMValueRef r = set->ext_set == SPV_EXT_GLSL_STD_450 ? lower_glsl450(&e, inst, args, n, c->diag)
                                                          : lower_opencl_std(&e, inst, args, n, c->diag);
    if (!r) {
        char msg[sizeof c->diag->msg];
        snprintf(msg, sizeof msg, "%s", c->diag->msg);
        return jit_fail_inst(c, in, "%s", msg);
    }
    if (real && x.store)
        bounce(c, in, &x, real, tmp);
    jit_fp_flags(c, in->result_id, r);
    jit_set(c, in->result_id, r);
    return 0;
}
