/* jit/lower_extinst.c — OpExtInst: the operands of GLSL.std.450 and OpenCL.std
 * instructions as LLVM values, handed to the lowerings of jit/extinst.h
 * (lower_glsl450.c, lower_opencl.c, which know LLVM but not the module);
 * NonSemantic.* sets are ignored. */
#include "lower_ctx.h"

#include <stdio.h>

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
    jit_fp_flags(c, in->result_id, r);
    jit_set(c, in->result_id, r);
    return 0;
}
