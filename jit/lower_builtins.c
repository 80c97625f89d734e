/* jit/lower_builtins.c — the compute builtins of both flavours, from the item
 * state (local id, this group's size and WorkgroupId, which the loops over
 * groups and items pass in) and the dispatch fields of the work-group context
 * (jit/abi.h).
 *
 *   WorkgroupId = group id + base_group       (the item state's)
 *   GlobalInvocationId = WorkgroupId * enqueued size + local id + offset
 *   LocalInvocationIndex = (z * size_y + y) * size_x + x   (this group's size)
 *   GlobalLinearId (OpenCL) = linearized global id without the offset
 * The enqueued size is the compile-time local size when known, so the JIT
 * sees a constant.  Sub-groups are consecutive LocalInvocationIndex values:
 * the sub-group values come from the markers of sg_marker.h (the sub-group
 * size W and the lane), so the same code serves SIMD lanes and one work-item:
 *   SubgroupId = id(LocalInvocationIndex) (= / W),  NumSubgroups = ceil(items / W),
 *   SubgroupSize = W (OpenCL's get_sub_group_size: the lanes that exist),
 *   SubgroupEqMask ... LtMask: the lanes below W (OpenCL: below its
 *   get_sub_group_size) with the relation to this one.
 */
#include "lower_ctx.h"

#include <stddef.h>

#include "sg_marker.h"
#include "spirv_grammar.h"

bool jit_var_builtin(lower_ctx *c, uint32_t var, uint32_t *builtin)
{
    const spv_decoration *d = spv_find_decoration(c->m, var, -1, SpvDecorationBuiltIn);
    if (!d || !d->nargs)
        return false;
    *builtin = d->args[0];
    return true;
}

static LLVMValueRef ctx_u32(lower_ctx *c, size_t off, unsigned i)
{
    return LLVMBuildZExt(c->b, jit_ctx_field(c, c->arg_ctx, off + 4 * i, c->t_i32), c->t_i64, "");
}

static LLVMValueRef ctx_u64(lower_ctx *c, size_t off, unsigned i)
{
    return jit_ctx_field(c, c->arg_ctx, off + 8 * i, c->t_i64);
}

static LLVMValueRef item_u32(lower_ctx *c, uint64_t off, unsigned i)
{
    LLVMValueRef l = LLVMBuildLoad2(c->b, c->t_i32, jit_item_field_ptr(c, off + 4 * i), "");
    LLVMSetAlignment(l, 4);
    return LLVMBuildZExt(c->b, l, c->t_i64, "");
}

static LLVMValueRef k64(lower_ctx *c, uint64_t v)
{
    return LLVMConstInt(c->t_i64, v, 0);
}

static LLVMValueRef enqueued(lower_ctx *c, unsigned i)
{
    if (c->ls_known)
        return k64(c, c->local_size[i]);
    return ctx_u32(c, offsetof(spvjit_wg_ctx, enqueued_local_size), i);
}

static LLVMValueRef global_id_no_offset(lower_ctx *c, unsigned i)
{
    LLVMValueRef g = LLVMBuildMul(c->b, item_u32(c, JIT_ITEM_GID, i), enqueued(c, i), "");
    return LLVMBuildAdd(c->b, g, item_u32(c, JIT_ITEM_LID, i), "");
}

LLVMValueRef jit_local_index(lower_ctx *c)
{
    LLVMValueRef x = item_u32(c, JIT_ITEM_LID, 0), y = item_u32(c, JIT_ITEM_LID, 1), z = item_u32(c, JIT_ITEM_LID, 2);
    LLVMValueRef sx = item_u32(c, JIT_ITEM_LSIZE, 0), sy = item_u32(c, JIT_ITEM_LSIZE, 1);
    return LLVMBuildAdd(c->b, LLVMBuildMul(c->b, LLVMBuildAdd(c->b, LLVMBuildMul(c->b, z, sy, ""), y, ""), sx, ""), x,
                        "");
}

static LLVMValueRef marker64(lower_ctx *c, jit_sg_kind kind)
{
    return LLVMBuildZExt(c->b, jit_sg_build(c->b, c->mod, kind, 0, NULL, NULL), c->t_i64, "");
}

/* ceil(items / W) */
static LLVMValueRef subgroups_of(lower_ctx *c, LLVMValueRef items)
{
    LLVMValueRef w = marker64(c, JIT_SG_SIZE);
    return LLVMBuildUDiv(c->b, LLVMBuildAdd(c->b, items, LLVMBuildSub(c->b, w, k64(c, 1), ""), ""), w, "");
}

/* The bits of lanes [from, to) in word i (lanes 32i .. 32i + 31) of a mask. */
static LLVMValueRef mask_word(lower_ctx *c, LLVMValueRef from, LLVMValueRef to, unsigned i)
{
    LLVMValueRef lo = k64(c, 32ull * i), zero = k64(c, 0), w32 = k64(c, 32);
    LLVMValueRef b[2], e[2] = { from, to };
    for (unsigned k = 0; k < 2; k++) { /* clamp(e - lo, 0, 32), then (1 << it) - 1 */
        LLVMValueRef d = LLVMBuildSub(c->b, e[k], lo, "");
        d = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, d, zero, ""), zero, d, "");
        d = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, d, w32, ""), w32, d, "");
        b[k] = LLVMBuildSub(c->b, LLVMBuildShl(c->b, k64(c, 1), d, ""), k64(c, 1), "");
    }
    return LLVMBuildAnd(c->b, b[1], LLVMBuildXor(c->b, b[0], k64(c, ~0ull), ""), "");
}

LLVMValueRef jit_lane_range_mask(lower_ctx *c, LLVMValueRef from, LLVMValueRef to)
{
    LLVMValueRef r = LLVMConstNull(LLVMVectorType(c->t_i32, 4));
    for (unsigned i = 0; i < 4; i++)
        r = LLVMBuildInsertElement(c->b, r, LLVMBuildTrunc(c->b, mask_word(c, from, to, i), c->t_i32, ""),
                                   LLVMConstInt(c->t_i32, i, 0), "");
    return r;
}

static LLVMValueRef lane_mask(lower_ctx *c, uint32_t bi, unsigned i)
{
    /* the lanes of the sub-group: W (Vulkan), its work-items (OpenCL: fewer in a partial one) */
    LLVMValueRef l = marker64(c, JIT_SG_LANE), w = marker64(c, c->kernel ? JIT_SG_LIVE : JIT_SG_SIZE);
    LLVMValueRef l1 = LLVMBuildAdd(c->b, l, k64(c, 1), "");
    switch (bi) {
    case SpvBuiltInSubgroupEqMask:
        return mask_word(c, l, l1, i);
    case SpvBuiltInSubgroupGeMask:
        return mask_word(c, l, w, i);
    case SpvBuiltInSubgroupGtMask:
        return mask_word(c, l1, w, i);
    case SpvBuiltInSubgroupLeMask:
        return mask_word(c, k64(c, 0), l1, i);
    default: /* Lt */
        return mask_word(c, k64(c, 0), l, i);
    }
}

/* Component i (0..2) of a builtin as i64; *n gets the natural component count. */
static LLVMValueRef component(lower_ctx *c, uint32_t bi, unsigned i, unsigned *n)
{
    *n = 3;
    switch (bi) {
    case SpvBuiltInLocalInvocationId:
        return item_u32(c, JIT_ITEM_LID, i);
    case SpvBuiltInWorkgroupId:
        return item_u32(c, JIT_ITEM_GID, i);
    case SpvBuiltInNumWorkgroups:
        return ctx_u32(c, offsetof(spvjit_wg_ctx, num_groups), i);
    case SpvBuiltInWorkgroupSize:
        if (!c->kernel && c->ls_known)
            return k64(c, c->local_size[i]);
        return item_u32(c, JIT_ITEM_LSIZE, i);
    case SpvBuiltInEnqueuedWorkgroupSize:
        return enqueued(c, i);
    case SpvBuiltInGlobalInvocationId: /* Vulkan has no global offset */
        if (!c->kernel)
            return global_id_no_offset(c, i);
        return LLVMBuildAdd(c->b, global_id_no_offset(c, i), ctx_u64(c, offsetof(spvjit_wg_ctx, global_offset), i), "");
    case SpvBuiltInGlobalSize:
        return ctx_u64(c, offsetof(spvjit_wg_ctx, global_size), i);
    case SpvBuiltInGlobalOffset:
        return ctx_u64(c, offsetof(spvjit_wg_ctx, global_offset), i);
    default:
        break;
    }
    *n = 1;
    switch (bi) {
    case SpvBuiltInLocalInvocationIndex:
        return jit_local_index(c);
    case SpvBuiltInSubgroupId:
        return LLVMBuildZExt(c->b,
                             jit_sg_build(c->b, c->mod, JIT_SG_ID, 0,
                                          LLVMBuildTrunc(c->b, jit_local_index(c), c->t_i32, ""), NULL),
                             c->t_i64, "");
    case SpvBuiltInWorkDim:
        return ctx_u32(c, offsetof(spvjit_wg_ctx, work_dim), 0);
    case SpvBuiltInSubgroupSize: /* OpenCL: the work-items of this sub-group */
        return marker64(c, c->kernel ? JIT_SG_LIVE : JIT_SG_SIZE);
    case SpvBuiltInSubgroupMaxSize:
        return marker64(c, JIT_SG_SIZE);
    case SpvBuiltInSubgroupLocalInvocationId:
        return marker64(c, JIT_SG_LANE);
    case SpvBuiltInNumSubgroups:
        return subgroups_of(c, LLVMBuildMul(c->b,
                                            LLVMBuildMul(c->b, item_u32(c, JIT_ITEM_LSIZE, 0),
                                                         item_u32(c, JIT_ITEM_LSIZE, 1), ""),
                                            item_u32(c, JIT_ITEM_LSIZE, 2), ""));
    case SpvBuiltInNumEnqueuedSubgroups:
        return subgroups_of(c, LLVMBuildMul(c->b, LLVMBuildMul(c->b, enqueued(c, 0), enqueued(c, 1), ""),
                                            enqueued(c, 2), ""));
    case SpvBuiltInGlobalLinearId: {
        LLVMValueRef gx = global_id_no_offset(c, 0), gy = global_id_no_offset(c, 1), gz = global_id_no_offset(c, 2);
        LLVMValueRef sx = ctx_u64(c, offsetof(spvjit_wg_ctx, global_size), 0);
        LLVMValueRef sy = ctx_u64(c, offsetof(spvjit_wg_ctx, global_size), 1);
        return LLVMBuildAdd(c->b,
                            LLVMBuildMul(c->b, LLVMBuildAdd(c->b, LLVMBuildMul(c->b, gz, sy, ""), gy, ""), sx, ""), gx,
                            "");
    }
    case SpvBuiltInSubgroupEqMask:
    case SpvBuiltInSubgroupGeMask:
    case SpvBuiltInSubgroupGtMask:
    case SpvBuiltInSubgroupLeMask:
    case SpvBuiltInSubgroupLtMask:
        *n = 4;
        return lane_mask(c, bi, i);
    default:
        *n = 0;
        return NULL;
    }
}

LLVMValueRef jit_builtin_value(lower_ctx *c, uint32_t bi, uint32_t type_id, const spv_inst *at)
{
    (void)at;
    LLVMTypeRef t = jit_type(c, type_id);
    if (!t)
        return NULL;
    unsigned n;
    if (!component(c, bi, 0, &n)) {
        const char *name = spv_enum_name(SPV_OPERAND_BuiltIn, bi);
        jit_fail(c, "builtin %s (%u) is not available in a compute entry point", name ? name : "?", bi);
        return NULL;
    }
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    LLVMTypeRef et = vec ? LLVMGetElementType(t) : t;
    if (LLVMGetTypeKind(et) != LLVMIntegerTypeKind) {
        jit_fail(c, "builtin %u declared with a non-integer type %%%u", bi, type_id);
        return NULL;
    }
    if (!vec)
        return jit_int_cast(c, component(c, bi, 0, &n), et, false);
    LLVMValueRef r = LLVMConstNull(t);
    for (unsigned i = 0; i < LLVMGetVectorSize(t) && i < (n > 1 ? n : 1); i++)
        r = LLVMBuildInsertElement(c->b, r, jit_int_cast(c, component(c, bi, i, &n), et, false),
                                   LLVMConstInt(c->t_i32, i, 0), "");
    return r;
}
