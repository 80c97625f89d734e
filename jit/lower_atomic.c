/* jit/lower_atomic.c — OpAtomic* on any memory (global, work-group, private).
 *
 * Orderings come from the memory-semantics operand (SequentiallyConsistent,
 * AcquireRelease, Acquire, Release; none → monotonic), adjusted to what LLVM
 * allows for loads and stores.  Invocation scope is single-thread; every other
 * scope is the system scope (the CPU is coherent).  Float add/min/max come from
 * SPV_EXT_shader_atomic_float_add / _min_max.  Checked like any access (robust:
 * out of bounds nothing happens and the result is zero).
 */
#include "lower_ctx.h"

static LLVMAtomicOrdering ordering(lower_ctx *c, uint32_t sem_id)
{
    uint64_t s = 0;
    const spv_id *d = spv_id_get(c->m, sem_id);
    if (d && (d->kind == SPV_ID_CONSTANT || d->kind == SPV_ID_SPEC_CONSTANT))
        jit_shape_u64(c, sem_id, &s);
    if (s & SpvMemorySemanticsSequentiallyConsistentMask)
        return LLVMAtomicOrderingSequentiallyConsistent;
    if (s & SpvMemorySemanticsAcquireReleaseMask)
        return LLVMAtomicOrderingAcquireRelease;
    if ((s & SpvMemorySemanticsAcquireMask) && (s & SpvMemorySemanticsReleaseMask))
        return LLVMAtomicOrderingAcquireRelease;
    if (s & SpvMemorySemanticsAcquireMask)
        return LLVMAtomicOrderingAcquire;
    if (s & SpvMemorySemanticsReleaseMask)
        return LLVMAtomicOrderingRelease;
    return LLVMAtomicOrderingMonotonic;
}

static LLVMAtomicOrdering for_load(LLVMAtomicOrdering o)
{
    if (o == LLVMAtomicOrderingRelease)
        return LLVMAtomicOrderingMonotonic;
    if (o == LLVMAtomicOrderingAcquireRelease)
        return LLVMAtomicOrderingAcquire;
    return o;
}

static LLVMAtomicOrdering for_store(LLVMAtomicOrdering o)
{
    if (o == LLVMAtomicOrderingAcquire)
        return LLVMAtomicOrderingMonotonic;
    if (o == LLVMAtomicOrderingAcquireRelease)
        return LLVMAtomicOrderingRelease;
    return o;
}

static bool single_thread(lower_ctx *c, uint32_t scope_id)
{
    uint64_t s = SpvScopeDevice;
    jit_shape_u64(c, scope_id, &s);
    return s == SpvScopeInvocation;
}

static unsigned size_of(lower_ctx *c, LLVMTypeRef t)
{
    return (unsigned)LLVMABISizeOfType(c->td, t);
}

static bool rmw_op(uint32_t opcode, LLVMAtomicRMWBinOp *op)
{
    switch (opcode) {
    case SpvOpAtomicExchange:
        *op = LLVMAtomicRMWBinOpXchg;
        return true;
    case SpvOpAtomicIIncrement:
    case SpvOpAtomicIAdd:
        *op = LLVMAtomicRMWBinOpAdd;
        return true;
    case SpvOpAtomicIDecrement:
    case SpvOpAtomicISub:
        *op = LLVMAtomicRMWBinOpSub;
        return true;
    case SpvOpAtomicSMin:
        *op = LLVMAtomicRMWBinOpMin;
        return true;
    case SpvOpAtomicUMin:
        *op = LLVMAtomicRMWBinOpUMin;
        return true;
    case SpvOpAtomicSMax:
        *op = LLVMAtomicRMWBinOpMax;
        return true;
    case SpvOpAtomicUMax:
        *op = LLVMAtomicRMWBinOpUMax;
        return true;
    case SpvOpAtomicAnd:
        *op = LLVMAtomicRMWBinOpAnd;
        return true;
    case SpvOpAtomicOr:
        *op = LLVMAtomicRMWBinOpOr;
        return true;
    case SpvOpAtomicXor:
        *op = LLVMAtomicRMWBinOpXor;
        return true;
    case SpvOpAtomicFAddEXT:
        *op = LLVMAtomicRMWBinOpFAdd;
        return true;
    case SpvOpAtomicFMinEXT:
        *op = LLVMAtomicRMWBinOpFMin;
        return true;
    case SpvOpAtomicFMaxEXT:
        *op = LLVMAtomicRMWBinOpFMax;
        return true;
    default:
        return false;
    }
}

/* The bytes an atomic touches: its result's, or the stored value's. */
static uint64_t atomic_bytes(lower_ctx *c, const spv_inst *in, LLVMTypeRef t)
{
    if (t)
        return size_of(c, t);
    if (in->opcode == SpvOpAtomicStore) {
        LLVMValueRef x = jit_value(c, spv_inst_op(in, 3));
        return x ? size_of(c, LLVMTypeOf(x)) : 4;
    }
    return 4; /* OpAtomicFlagClear: a 32-bit flag */
}

static int lower_atomic(lower_ctx *c, const spv_inst *in, LLVMValueRef p, LLVMTypeRef t);

int jit_lower_atomic(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef p = jit_value(c, spv_inst_op(in, 0));
    if (!p)
        return -1;
    LLVMTypeRef t = in->type_id ? jit_type(c, in->type_id) : NULL;
    jit_guard g;
    bool open =
        jit_guard_open(c, &g, in, spv_inst_op(in, 0), p, NULL, LLVMConstInt(c->t_i64, atomic_bytes(c, in, t), 0),
                       in->opcode == SpvOpAtomicLoad ? SPVJIT_ACCESS_ATOMIC_LOAD : SPVJIT_ACCESS_ATOMIC);
    if (lower_atomic(c, in, p, t))
        return -1;
    if (open)
        jit_set(c, in->result_id, jit_guard_close(c, &g, in->result_id ? c->vals[in->result_id] : NULL, NULL));
    return 0;
}

static int lower_atomic(lower_ctx *c, const spv_inst *in, LLVMValueRef p, LLVMTypeRef t)
{
    LLVMValueRef r = NULL;
    bool st = single_thread(c, spv_inst_op(in, 1));
    LLVMAtomicOrdering o = ordering(c, spv_inst_op(in, 2));
    LLVMAtomicRMWBinOp op;
    LLVMValueRef v[2];
    switch (in->opcode) {
    case SpvOpAtomicLoad:
        r = LLVMBuildLoad2(c->b, t, p, "");
        LLVMSetOrdering(r, for_load(o));
        LLVMSetAlignment(r, size_of(c, t));
        break;
    case SpvOpAtomicStore:
    case SpvOpAtomicFlagClear: {
        LLVMValueRef x;
        if (in->opcode == SpvOpAtomicStore) {
            if (!(x = jit_value(c, spv_inst_op(in, 3))))
                return -1;
        } else {
            x = LLVMConstInt(c->t_i32, 0, 0);
        }
        LLVMValueRef s = LLVMBuildStore(c->b, x, p);
        LLVMSetOrdering(s, for_store(o));
        LLVMSetAlignment(s, size_of(c, LLVMTypeOf(x)));
        return 0;
    }
    case SpvOpAtomicFlagTestAndSet: {
        LLVMValueRef old = LLVMBuildAtomicRMW(c->b, LLVMAtomicRMWBinOpXchg, p, LLVMConstInt(c->t_i32, 1, 0), o, st);
        r = LLVMBuildICmp(c->b, LLVMIntNE, old, LLVMConstInt(c->t_i32, 0, 0), "");
        break;
    }
    case SpvOpAtomicCompareExchange:
    case SpvOpAtomicCompareExchangeWeak: {
        LLVMAtomicOrdering fail = for_load(ordering(c, spv_inst_op(in, 3)));
        if (jit_value(c, spv_inst_op(in, 4)) == NULL)
            return -1;
        v[0] = jit_value(c, spv_inst_op(in, 4)); /* Value */
        if (!(v[1] = jit_value(c, spv_inst_op(in, 5))))
            return -1; /* Comparator */
        if (o == LLVMAtomicOrderingMonotonic && fail != LLVMAtomicOrderingMonotonic)
            o = LLVMAtomicOrderingAcquire;
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(c->b, p, v[1], v[0], o, fail, st);
        r = LLVMBuildExtractValue(c->b, x, 0, "");
        break;
    }
    case SpvOpAtomicIIncrement:
    case SpvOpAtomicIDecrement:
        rmw_op(in->opcode, &op);
        r = LLVMBuildAtomicRMW(c->b, op, p, LLVMConstInt(t, 1, 0), o, st);
        break;
    default:
        if (!rmw_op(in->opcode, &op))
            return jit_fail_inst(c, in, "not an atomic instruction");
        if (!(v[0] = jit_value(c, spv_inst_op(in, 3))))
            return -1;
        r = LLVMBuildAtomicRMW(c->b, op, p, v[0], o, st);
        break;
    }
    jit_set(c, in->result_id, r);
    return 0;
}
