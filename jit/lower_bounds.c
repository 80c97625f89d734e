/* jit/lower_bounds.c — the memory modes robust and check: the range every
 * pointer may touch, and accesses checked against it (see lower_ctx.h).
 *
 * Every pointer value of a function carries, beside its address, an i64
 * offset into a range and the range's i64 size (jit_bounds, per id).  Roots
 * give both: a buffer binding (its bound size, from the environment), the
 * push constants and module-scope variables (their static sizes), a kernel
 * argument (its bound size), a Function variable; access chains add their
 * byte offset, casts and copies pass them on, phis and selects merge them,
 * calls pass them as hidden parameters, non-escaping Function variables that
 * hold a pointer keep them in two shadow slots.  A pointer whose provenance
 * is lost (loaded from memory, made from an integer, returned by a call) is
 * looked up at run time among the dispatch's ranges where it is made.
 *
 * An access of n bytes at offset o of a range of s bytes is in bounds when
 * o <u s - (n - 1) (saturating): plain compare-and-branch code with uniform
 * sizes and per-work-item offsets, which LLVM folds where the specialized
 * sizes and the work-item loops' bounds prove it, and a vectorizer widens.
 * Out of bounds, a load reads zero and a store or atomic does nothing
 * (robustBufferAccess2); a vector or composite is checked whole, and when it
 * does not fit, component by component.  In memory=check the failing path
 * also calls spvjit_rt_oob with a constant record of the site (jit/abi.h),
 * and every access to work-group memory calls spvjit_rt_wg_access for the
 * race detector.  No offset is ever computed from an alloca's address
 * (ptrtoint would make LLVM treat it as escaping): only the run-time search
 * for lost provenance compares raw addresses.
 */
#include "lower_ctx.h"

#include <stddef.h>
#include <string.h>

#include "rt_check.h"

bool jit_checks_on(const lower_ctx *c)
{
    return c->memory != JIT_MEMORY_UNCHECKED;
}

static LLVMValueRef k64(lower_ctx *c, uint64_t v)
{
    return LLVMConstInt(c->t_i64, v, 0);
}

static uint64_t place(uint64_t at, uint64_t align)
{
    return (at + align - 1) / align * align;
}

/* --- the bounds environment ------------------------------------------------------------------
 * Item-state entries after the Private variables: the byte size of every
 * resource slot, then per kernel parameter its base address and size. */

void jit_bounds_plan(lower_ctx *c)
{
    if (!jit_checks_on(c))
        return;
    c->env_bounds = place(c->item_size, 8);
    c->item_size = c->env_bounds + 8ull * jit_bounds_env_count(c);
    if (c->memory == JIT_MEMORY_CHECK) {
        c->item_epoch = c->item_size;
        c->item_size += 8;
    }
    if (c->memory == JIT_MEMORY_ROBUST && c->ls_known && c->ep && !c->quick) {
        c->item_fast = c->item_size;
        c->item_size += 8;
    }
    c->item_size = place(c->item_size, 16);
}

unsigned jit_bounds_env_count(const lower_ctx *c)
{
    return jit_checks_on(c) ? c->nres_slots + 2 * c->nparams : 0;
}

LLVMTypeRef jit_bounds_env_type(const lower_ctx *c, unsigned k)
{
    return k >= c->nres_slots && (k - c->nres_slots) % 2 == 0 ? c->t_ptr : c->t_i64;
}

/* Entry k of the bounds environment, loaded in the prologue. */
static LLVMValueRef env_bound(lower_ctx *c, unsigned k)
{
    LLVMBuilderRef saved = c->b;
    c->b = c->pb;
    LLVMValueRef l =
        LLVMBuildLoad2(c->b, jit_bounds_env_type(c, k), jit_ptr_at(c, c->arg_item, c->env_bounds + 8ull * k), "");
    LLVMSetAlignment(l, 8);
    c->b = saved;
    return l;
}

/* Environment slot `slot` (jit_env), loaded in the prologue. */
static LLVMValueRef env_at_prologue(lower_ctx *c, uint32_t slot)
{
    LLVMBuilderRef saved = c->b;
    c->b = c->pb;
    LLVMValueRef v = jit_env(c, slot);
    c->b = saved;
    return v;
}

static LLVMValueRef slot_size(lower_ctx *c, uint32_t slot)
{
    return env_bound(c, slot);
}

/* --- bounds of ids ------------------------------------------------------------------------------ */

static jit_bounds *entry(lower_ctx *c, uint32_t id)
{
    return id && id < c->m->bound ? &c->bnd[id] : NULL;
}

void jit_bounds_set(lower_ctx *c, uint32_t id, LLVMValueRef off, LLVMValueRef size, uint32_t kind, uint32_t index)
{
    jit_bounds *b = entry(c, id);
    if (!b || !jit_checks_on(c))
        return;
    b->off = off;
    b->size = size;
    b->kind = kind;
    b->index = index;
}

static const jit_bounds no_bytes_template = { NULL, NULL, SPVJIT_BOUND_NONE, 0 };

/* A null or undefined pointer: a range of no bytes. */
static jit_bounds no_bytes(lower_ctx *c)
{
    jit_bounds b = no_bytes_template;
    b.off = k64(c, 0);
    b.size = k64(c, 0);
    return b;
}

/* The size of a module-scope variable's range, at the prologue. */
static bool variable_bounds(lower_ctx *c, uint32_t var, jit_bounds *b)
{
    uint32_t sc = jit_var_storage(c, var);
    const spv_type *pt = spv_type_get(c->m, c->m->ids[var].type_id);
    const spv_layout *l = pt ? jit_layout_of(c, pt->elem) : NULL;
    b->off = k64(c, 0);
    b->kind = SPVJIT_BOUND_VARIABLE;
    b->index = var;
    switch (sc) {
    case SpvStorageClassStorageBuffer:
    case SpvStorageClassUniform:
    case SpvStorageClassUniformConstant:
        if (c->var_slot[var] != SPV_NONE && !c->globals[var]) {
            b->kind = SPVJIT_BOUND_BINDING;
            b->index = c->var_slot[var];
            b->size = slot_size(c, c->var_slot[var]);
            return true;
        }
        break;
    case SpvStorageClassPushConstant:
        b->kind = SPVJIT_BOUND_PUSH;
        b->index = 0;
        b->size = k64(c, c->push_size);
        return true;
    default:
        break;
    }
    if (!l)
        return false;
    b->size = k64(c, l->size);
    return true;
}

/* A spec-constant pointer (a chain on program-scope data): its root's range,
 * the offset a constant expression. */
static bool constant_bounds(lower_ctx *c, uint32_t id, jit_bounds *b)
{
    uint32_t root = id;
    for (int depth = 0; depth < 16; depth++) {
        const spv_id *d = spv_id_get(c->m, root);
        if (d && d->kind == SPV_ID_GLOBAL_VARIABLE)
            break;
        const spv_inst *def = spv_def(c->m, root);
        if (!def || def->opcode != SpvOpSpecConstantOp || spv_inst_nops(def) < 2)
            return false;
        root = spv_inst_op(def, 1);
    }
    const spv_id *r = spv_id_get(c->m, root);
    if (!r || r->kind != SPV_ID_GLOBAL_VARIABLE || !c->globals[root])
        return false;
    LLVMValueRef v = jit_value(c, id), g = jit_value(c, root);
    if (!v || !g || !LLVMIsConstant(v) || !variable_bounds(c, root, b))
        return false;
    b->off = LLVMConstSub(LLVMConstPtrToInt(v, c->t_i64), LLVMConstPtrToInt(g, c->t_i64));
    return true;
}

/* --- lost provenance: the dispatch's ranges, searched at run time ------------------------------- */

typedef struct range_list {
    LLVMValueRef base[64], size[64];
    unsigned n;
} range_list;

static void add_range(range_list *r, LLVMValueRef base, LLVMValueRef size)
{
    if (r->n < sizeof r->base / sizeof r->base[0]) {
        r->base[r->n] = base;
        r->size[r->n] = size;
        r->n++;
    }
}

/* Every range a pointer of this dispatch may lie in (at most 64 are searched). */
static void dispatch_ranges(lower_ctx *c, range_list *r)
{
    r->n = 0;
    for (uint32_t s = 0; s < c->nres_slots; s++)
        add_range(r, env_at_prologue(c, JIT_ENV_RES0 + s), slot_size(c, s));
    if (c->push_size)
        add_range(r, env_at_prologue(c, JIT_ENV_PUSH), k64(c, c->push_size));
    if (c->wg_size)
        add_range(r, env_at_prologue(c, JIT_ENV_WGMEM), k64(c, c->wg_size));
    for (uint32_t i = 0; i < c->nparams; i++)
        if (c->params[i].kind != SPVJIT_PARAM_VALUE)
            add_range(r, env_bound(c, c->nres_slots + 2 * i), env_bound(c, c->nres_slots + 2 * i + 1));
    for (uint32_t v = 0; v < c->m->bound; v++)
        if (c->globals[v]) {
            jit_bounds b;
            if (variable_bounds(c, v, &b))
                add_range(r, c->globals[v], b.size);
        }
    add_range(r, c->arg_item, k64(c, c->item_size)); /* the work-item's Private variables */
}

/* Bounds of address p found among the dispatch's ranges at the builder: the
 * range p lies in (or ends at, when it lies in none), else no bytes. */
static jit_bounds search(lower_ctx *c, LLVMValueRef p)
{
    range_list r;
    dispatch_ranges(c, &r);
    jit_bounds b = no_bytes(c);
    b.kind = SPVJIT_BOUND_DYNAMIC;
    LLVMValueRef pi = LLVMBuildPtrToInt(c->b, p, c->t_i64, "");
    for (int pass = 0; pass < 2; pass++) /* ends first: a range's start wins over another's end */
        for (unsigned i = 0; i < r.n; i++) {
            LLVMValueRef d = LLVMBuildSub(c->b, pi, LLVMBuildPtrToInt(c->b, r.base[i], c->t_i64, ""), "");
            LLVMValueRef in = LLVMBuildICmp(c->b, pass ? LLVMIntULT : LLVMIntULE, d, r.size[i], "");
            b.off = LLVMBuildSelect(c->b, in, d, b.off, "");
            b.size = LLVMBuildSelect(c->b, in, r.size[i], b.size, "");
        }
    return b;
}

const jit_bounds *jit_bounds_of(lower_ctx *c, uint32_t id)
{
    jit_bounds *b = entry(c, id);
    if (!b) { /* never: ids come from validated modules */
        c->bnd_scratch = no_bytes(c);
        return &c->bnd_scratch;
    }
    if (b->size)
        return b;
    const spv_id *d = &c->m->ids[id];
    LLVMBuilderRef saved = c->b;
    c->b = c->pb; /* what is computed here dominates the whole function */
    bool ok = false;
    if (d->kind == SPV_ID_GLOBAL_VARIABLE)
        ok = variable_bounds(c, id, b);
    else if (d->kind == SPV_ID_SPEC_CONSTANT)
        ok = constant_bounds(c, id, b);
    if (!ok && (d->kind == SPV_ID_CONSTANT || d->kind == SPV_ID_UNDEF)) {
        *b = no_bytes(c);
        ok = true;
    }
    c->b = saved;
    if (ok)
        return b;
    /* a value made without bounds: found where it is used (not kept) */
    LLVMValueRef p = jit_value(c, id);
    c->bnd_scratch = p ? search(c, p) : no_bytes(c);
    return &c->bnd_scratch;
}

void jit_bounds_derive(lower_ctx *c, uint32_t id, uint32_t from, LLVMValueRef extra)
{
    if (!jit_checks_on(c))
        return;
    const jit_bounds *f = jit_bounds_of(c, from);
    LLVMValueRef off = f->off;
    if (extra && !(LLVMIsAConstantInt(extra) && LLVMConstIntGetZExtValue(extra) == 0))
        off = LLVMBuildAdd(c->b, off, extra, "");
    jit_bounds_set(c, id, off, f->size, f->kind, f->index);
}

/* --- descriptor arrays ------------------------------------------------------------------------- */

LLVMValueRef jit_descriptor_element(lower_ctx *c, uint32_t var, LLVMValueRef slots, LLVMValueRef idx, uint32_t count,
                                    jit_bounds *out)
{
    if (!jit_checks_on(c))
        return LLVMBuildLoad2(c->b, c->t_ptr, jit_byte_gep(c, slots, LLVMBuildMul(c->b, idx, k64(c, 8), ""), true), "");
    /* an element past the array reads no slot: a range of no bytes */
    LLVMValueRef ok = LLVMBuildICmp(c->b, LLVMIntULT, idx, k64(c, count), "");
    LLVMValueRef i = LLVMBuildSelect(c->b, ok, idx, k64(c, 0), "");
    LLVMValueRef base =
        LLVMBuildLoad2(c->b, c->t_ptr, jit_byte_gep(c, slots, LLVMBuildMul(c->b, i, k64(c, 8), ""), true), "");
    LLVMValueRef sizes = jit_ptr_at(c, c->arg_item, c->env_bounds + 8ull * c->var_slot[var]);
    LLVMValueRef size =
        LLVMBuildLoad2(c->b, c->t_i64, jit_byte_gep(c, sizes, LLVMBuildMul(c->b, i, k64(c, 8), ""), true), "");
    out->off = k64(c, 0);
    out->size = LLVMBuildSelect(c->b, ok, size, k64(c, 0), "");
    out->kind = SPVJIT_BOUND_BINDING;
    out->index = c->var_slot[var];
    return base;
}

/* --- phis, selects, casts: the driver's catch-all ---------------------------------------------------- */

static bool is_pointer_type(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = spv_type_get(c->m, type_id);
    return t && t->kind == SPV_TYPE_POINTER;
}

void jit_bounds_phi(lower_ctx *c, uint32_t id, uint32_t type_id)
{
    if (!jit_checks_on(c) || !is_pointer_type(c, type_id))
        return;
    LLVMValueRef off = LLVMBuildPhi(c->b, c->t_i64, ""), size = LLVMBuildPhi(c->b, c->t_i64, "");
    jit_bounds_set(c, id, off, size, SPVJIT_BOUND_DYNAMIC, 0);
}

void jit_bounds_phi_incoming(lower_ctx *c, uint32_t phi_id, uint32_t from, LLVMBasicBlockRef pred, unsigned edges)
{
    jit_bounds *b = entry(c, phi_id);
    if (!jit_checks_on(c) || !b || !b->size || !LLVMIsAPHINode(b->off))
        return;
    LLVMBuilderRef saved = c->b;
    LLVMPositionBuilderBefore(c->xb, LLVMGetBasicBlockTerminator(pred));
    c->b = c->xb; /* a value found at run time is found at the end of the predecessor */
    const jit_bounds *f = jit_bounds_of(c, from);
    c->b = saved;
    for (unsigned e = 0; e < edges; e++) {
        LLVMAddIncoming(b->off, (LLVMValueRef *)&f->off, &pred, 1);
        LLVMAddIncoming(b->size, (LLVMValueRef *)&f->size, &pred, 1);
    }
}

/* Selects, casts and copies of pointers pass their operands' bounds on;
 * anything else that makes a pointer without bounds is looked up. */
void jit_bounds_after(lower_ctx *c, const spv_inst *in)
{
    jit_bounds *b = entry(c, in->result_id);
    if (!jit_checks_on(c) || !b || b->size || !is_pointer_type(c, in->type_id) || !c->vals[in->result_id])
        return;
    switch (in->opcode) {
    case SpvOpCopyObject:
    case SpvOpCopyLogical:
    case SpvOpBitcast:
    case SpvOpPtrCastToGeneric:
    case SpvOpGenericCastToPtr:
    case SpvOpGenericCastToPtrExplicit:
        if (is_pointer_type(c, c->m->ids[spv_inst_op(in, 0)].type_id)) {
            jit_bounds_derive(c, in->result_id, spv_inst_op(in, 0), NULL);
            return;
        }
        break;
    case SpvOpSelect: {
        LLVMValueRef cond = jit_value(c, spv_inst_op(in, 0));
        if (!cond || LLVMGetTypeKind(LLVMTypeOf(cond)) == LLVMVectorTypeKind)
            break;
        jit_bounds x = *jit_bounds_of(c, spv_inst_op(in, 1)), y = *jit_bounds_of(c, spv_inst_op(in, 2));
        bool same = x.kind == y.kind && x.index == y.index;
        jit_bounds_set(c, in->result_id, LLVMBuildSelect(c->b, cond, x.off, y.off, ""),
                       LLVMBuildSelect(c->b, cond, x.size, y.size, ""), same ? x.kind : SPVJIT_BOUND_DYNAMIC,
                       same ? x.index : 0);
        return;
    }
    case SpvOpUndef:
    case SpvOpConstantNull: {
        jit_bounds n = no_bytes(c);
        *b = n;
        return;
    }
    default:
        break;
    }
    jit_bounds f = search(c, c->vals[in->result_id]);
    *b = f;
}

/* --- Function variables and parameters --------------------------------------------------------------- */

/* Whether Function variable `var` is only loaded from and stored to (its
 * address goes nowhere), so the bounds of the pointer it holds can live in
 * shadow slots. */
static bool only_loaded_and_stored(lower_ctx *c, uint32_t var)
{
    const spv_function *f = c->fn;
    if (!f)
        return false;
    for (uint32_t bi = 0; bi < f->nblocks; bi++)
        for (uint32_t i = f->blocks[bi].first; i < f->blocks[bi].end; i++) {
            const spv_inst *in = &c->m->insts[i];
            for (uint32_t k = 0; k < spv_inst_nops(in); k++) {
                if (spv_inst_op(in, k) != var)
                    continue;
                if ((in->opcode == SpvOpLoad || in->opcode == SpvOpStore) && k == 0)
                    continue;
                if (in->opcode == SpvOpName || in->opcode == SpvOpDecorate)
                    continue;
                return false;
            }
        }
    return true;
}

void jit_bounds_variable(lower_ctx *c, uint32_t var, uint32_t pointee, uint64_t size)
{
    if (!jit_checks_on(c))
        return;
    jit_bounds_set(c, var, k64(c, 0), k64(c, size), SPVJIT_BOUND_VARIABLE, var);
    if (!is_pointer_type(c, pointee) || !only_loaded_and_stored(c, var))
        return;
    jit_bounds *s = &c->shadow[var];
    s->off = LLVMBuildAlloca(c->pb, c->t_i64, "bounds.off");
    s->size = LLVMBuildAlloca(c->pb, c->t_i64, "bounds.size");
    LLVMBuildStore(c->pb, k64(c, 0), s->off);
    LLVMBuildStore(c->pb, k64(c, 0), s->size);
    s->kind = SPVJIT_BOUND_DYNAMIC;
}

void jit_bounds_store(lower_ctx *c, uint32_t ptr_id, uint32_t value_id)
{
    const jit_bounds *s = entry(c, ptr_id) ? &c->shadow[ptr_id] : NULL;
    if (!jit_checks_on(c) || !s || !s->off)
        return;
    const jit_bounds *v = jit_bounds_of(c, value_id);
    LLVMBuildStore(c->b, v->off, s->off);
    LLVMBuildStore(c->b, v->size, s->size);
}

/* What memory=check's reports name as the range of a pointer loaded from a
 * shadowed variable: the origin every store into it agrees on, once all of
 * the function's stores into it are lowered (-O0 code spills each pointer
 * parameter once, before its loads); else a range chosen at run time. */
static void stored_origin(lower_ctx *c, uint32_t var, uint32_t *kind, uint32_t *index)
{
    *kind = SPVJIT_BOUND_DYNAMIC;
    *index = 0;
    if (c->memory != JIT_MEMORY_CHECK || !c->fn)
        return;
    uint32_t k = 0, ix = 0;
    bool any = false;
    for (uint32_t i = c->fn->inst; i < c->fn->end; i++) {
        const spv_inst *in = &c->m->insts[i];
        if (in->opcode != SpvOpStore || spv_inst_op(in, 0) != var)
            continue;
        const jit_bounds *v = entry(c, spv_inst_op(in, 1));
        if (!v || !v->off || (any && (v->kind != k || v->index != ix)))
            return;
        k = v->kind;
        ix = v->index;
        any = true;
    }
    if (any) {
        *kind = k;
        *index = ix;
    }
}

void jit_bounds_load(lower_ctx *c, uint32_t result_id, uint32_t ptr_id)
{
    const jit_bounds *s = entry(c, ptr_id) ? &c->shadow[ptr_id] : NULL;
    if (!jit_checks_on(c) || !s || !s->off)
        return;
    uint32_t kind, index;
    stored_origin(c, ptr_id, &kind, &index);
    jit_bounds_set(c, result_id, LLVMBuildLoad2(c->b, c->t_i64, s->off, ""),
                   LLVMBuildLoad2(c->b, c->t_i64, s->size, ""), kind, index);
}

unsigned jit_bounds_params(lower_ctx *c, uint32_t fn_type)
{
    const spv_type *t = jit_checks_on(c) ? spv_type_get(c->m, fn_type) : NULL;
    unsigned n = 0;
    for (uint32_t i = 0; t && i < t->nmembers; i++)
        n += is_pointer_type(c, t->members[i]) ? 2 : 0;
    return n;
}

/* What memory=check's reports name as the range of pointer parameter p of
 * f: the entry point's parameters are the Kernel arguments; a function every
 * call of which passes the same argument straight on (llvm-spirv's entry
 * wrappers around the kernel's body) has that argument's range; anything
 * else, the parameter's. */
static void param_origin(lower_ctx *c, const spv_function *f, uint32_t p, uint32_t *kind, uint32_t *index)
{
    const spv_module *m = c->m;
    *kind = SPVJIT_BOUND_PARAM;
    *index = f->params[p];
    if (!c->ep) /* an exported function */
        return;
    const spv_function *entry = &m->funcs[c->ep->func];
    if (f == entry) {
        *kind = SPVJIT_BOUND_ARG;
        *index = p;
        return;
    }
    uint32_t arg = SPV_NONE;
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpFunctionCall || in->w[in->first_op] != f->id)
            continue;
        uint32_t passed = in->first_op + 1 + p < in->nwords ? in->w[in->first_op + 1 + p] : 0;
        uint32_t k = 0;
        while (k < entry->nparams && entry->params[k] != passed)
            k++;
        if (k == entry->nparams || (arg != SPV_NONE && arg != k))
            return;
        arg = k;
    }
    if (arg != SPV_NONE) {
        *kind = SPVJIT_BOUND_ARG;
        *index = arg;
    }
}

void jit_bounds_of_params(lower_ctx *c, const spv_function *f, LLVMValueRef fn)
{
    if (!jit_checks_on(c))
        return;
    unsigned k = 2 + f->nparams;
    for (uint32_t p = 0; p < f->nparams; p++) {
        uint32_t id = f->params[p];
        if (!is_pointer_type(c, c->m->ids[id].type_id))
            continue;
        uint32_t kind, index;
        param_origin(c, f, p, &kind, &index);
        jit_bounds_set(c, id, LLVMGetParam(fn, k), LLVMGetParam(fn, k + 1), kind, index);
        k += 2;
    }
}

unsigned jit_bounds_args(lower_ctx *c, const uint32_t *arg_ids, uint32_t n, LLVMValueRef *out)
{
    unsigned k = 0;
    if (!jit_checks_on(c))
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!is_pointer_type(c, c->m->ids[arg_ids[i]].type_id))
            continue;
        const jit_bounds *b = jit_bounds_of(c, arg_ids[i]);
        out[k++] = b->off;
        out[k++] = b->size;
    }
    return k;
}

/* --- checked accesses -------------------------------------------------------------------------------- */

/* o <u s - (n - 1), saturating: the n bytes at offset o lie in the s bytes. */
static LLVMValueRef in_bounds(lower_ctx *c, LLVMValueRef off, LLVMValueRef bytes, LLVMValueRef size)
{
    if (LLVMIsAConstantInt(bytes) && LLVMConstIntGetZExtValue(bytes) <= 1)
        return LLVMBuildICmp(c->b, LLVMIntULT, off, size, "");
    LLVMValueRef nm1 = LLVMBuildSub(c->b, bytes, k64(c, 1), "");
    LLVMValueRef limit;
    if (LLVMIsAConstantInt(size) && LLVMIsAConstantInt(nm1)) {
        uint64_t s = LLVMConstIntGetZExtValue(size), n = LLVMConstIntGetZExtValue(nm1);
        limit = k64(c, s > n ? s - n : 0);
    } else {
        LLVMTypeRef t = c->t_i64;
        limit = jit_intrinsic(c, "llvm.usub.sat", &t, 1, (LLVMValueRef[]){ size, nm1 }, 2);
    }
    return LLVMBuildICmp(c->b, LLVMIntULT, off, limit, "");
}

/* The constant record of an access site for the runtime (memory=check). */
static LLVMValueRef site_record(lower_ctx *c, const spv_inst *at, uint32_t kind, const jit_bounds *b)
{
    LLVMValueRef f[4] = { LLVMConstInt(c->t_i32, at ? (uint64_t)(at - c->m->insts) : UINT32_MAX, 0),
                          LLVMConstInt(c->t_i32, kind, 0), LLVMConstInt(c->t_i32, b->kind, 0),
                          LLVMConstInt(c->t_i32, b->index, 0) };
    LLVMValueRef init = LLVMConstStructInContext(c->llc, f, 4, 0);
    LLVMValueRef g = LLVMAddGlobal(c->mod, LLVMTypeOf(init), "spvjit.site");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return g;
}

static void local_ids(lower_ctx *c, LLVMValueRef *id)
{
    for (unsigned i = 0; i < 3; i++) {
        id[i] = LLVMBuildLoad2(c->b, c->t_i32, jit_item_field_ptr(c, JIT_ITEM_LID + 4 * i), "");
        LLVMSetAlignment(id[i], 4);
    }
}

static void call_runtime(lower_ctx *c, const char *name, LLVMTypeRef *params, unsigned n, LLVMValueRef *args, bool cold)
{
    LLVMTypeRef ft = LLVMFunctionType(c->t_void, params, n, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(c->mod, name);
    if (!fn) {
        fn = LLVMAddFunction(c->mod, name, ft);
        jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
        jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "willreturn");
        if (cold)
            jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "cold");
        /* it reads its arguments and writes only the executor's state (MemoryEffects:
         * argmem read, inaccessiblemem readwrite): buffers and work-group memory stay
         * as LLVM knew them */
        unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->llc, kind, 1 | 3 << 2));
    }
    LLVMBuildCall2(c->b, ft, fn, args, n, "");
}

/* memory=check: an out-of-bounds access, reported from the failing path. */
static void report_oob(lower_ctx *c, const spv_inst *at, uint32_t kind, const jit_bounds *b, LLVMValueRef off,
                       LLVMValueRef bytes)
{
    LLVMValueRef id[3];
    local_ids(c, id);
    LLVMValueRef epoch = c->item_epoch ? LLVMBuildLoad2(c->b, c->t_i32, jit_item_field_ptr(c, c->item_epoch), "")
                                       : LLVMConstInt(c->t_i32, 0, 0);
    LLVMTypeRef p[9] = { c->t_ptr, c->t_ptr, c->t_i64, c->t_i64, c->t_i64, c->t_i32, c->t_i32, c->t_i32, c->t_i32 };
    LLVMValueRef a[9] = { c->arg_ctx, site_record(c, at, kind, b), off, bytes, b->size, epoch, id[0], id[1], id[2] };
    call_runtime(c, JIT_RT_OOB, p, 9, a, true);
}

/* memory=check: a work-group memory access, for the race detector (the
 * runtime ignores addresses outside work-group memory). */
static void note_wg_access(lower_ctx *c, const spv_inst *at, uint32_t kind, const jit_bounds *b, LLVMValueRef p,
                           LLVMValueRef extra, LLVMValueRef off, LLVMValueRef bytes)
{
    bool maybe_wg =
        b->kind == SPVJIT_BOUND_DYNAMIC || b->kind == SPVJIT_BOUND_PARAM ||
        (b->kind == SPVJIT_BOUND_ARG && b->index < c->nparams && c->params[b->index].kind == SPVJIT_PARAM_LOCAL_PTR) ||
        (b->kind == SPVJIT_BOUND_VARIABLE && jit_var_storage(c, b->index) == SpvStorageClassWorkgroup);
    if (c->memory != JIT_MEMORY_CHECK || !c->item_epoch || !maybe_wg)
        return;
    LLVMValueRef id[3];
    local_ids(c, id);
    LLVMValueRef epoch = LLVMBuildLoad2(c->b, c->t_i32, jit_item_field_ptr(c, c->item_epoch), "");
    LLVMTypeRef t[9] = { c->t_ptr, c->t_ptr, c->t_ptr, c->t_i64, c->t_i64, c->t_i32, c->t_i32, c->t_i32, c->t_i32 };
    LLVMValueRef addr = extra ? jit_byte_gep(c, p, extra, false) : p;
    LLVMValueRef a[9] = { c->arg_ctx, site_record(c, at, kind, b), addr, bytes, off, epoch, id[0], id[1], id[2] };
    call_runtime(c, JIT_RT_WG_ACCESS, t, 9, a, false);
}

bool jit_guard_open(lower_ctx *c, jit_guard *g, const spv_inst *at, uint32_t ptr_id, LLVMValueRef p, LLVMValueRef extra,
                    LLVMValueRef bytes, uint32_t kind)
{
    memset(g, 0, sizeof *g);
    if (!jit_checks_on(c))
        return false;
    jit_bounds b = *jit_bounds_of(c, ptr_id);
    LLVMValueRef off = b.off;
    if (extra && !(LLVMIsAConstantInt(extra) && LLVMConstIntGetZExtValue(extra) == 0))
        off = LLVMBuildAdd(c->b, off, extra, "");
    bool quiet = c->leaf_quiet;
    LLVMValueRef ok = in_bounds(c, off, bytes, b.size);
    if (c->item_fast && !LLVMIsAConstantInt(ok)) { /* true when the group start proved it (guard_versions.h) */
        LLVMValueRef f = LLVMBuildLoad2(c->b, c->t_i8, jit_item_field_ptr(c, c->item_fast), "");
        ok = LLVMBuildOr(c->b, LLVMBuildICmp(c->b, LLVMIntNE, f, LLVMConstInt(c->t_i8, 0, 0), ""), ok, "");
        LLVMSetMetadata(ok, LLVMGetMDKindIDInContext(c->llc, JIT_GUARD_MD, strlen(JIT_GUARD_MD)),
                        LLVMMetadataAsValue(c->llc, LLVMMDNodeInContext2(c->llc, NULL, 0)));
    }
    if (LLVMIsAConstantInt(ok) && LLVMConstIntGetZExtValue(ok)) {
        if (!quiet)
            note_wg_access(c, at, kind, &b, p, extra, off, bytes);
        return false; /* proven in bounds */
    }
    g->fail = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "oob");
    g->join = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "inb.join");
    LLVMBasicBlockRef pass = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "inb");
    jit_weigh_likely(LLVMBuildCondBr(c->b, ok, pass, g->fail), JIT_GUARD_WEIGHT);
    LLVMPositionBuilderAtEnd(c->b, g->fail);
    if (c->memory == JIT_MEMORY_CHECK && !quiet)
        report_oob(c, at, kind, &b, off, bytes);
    g->fail_end = NULL;
    LLVMPositionBuilderAtEnd(c->b, pass);
    if (!quiet)
        note_wg_access(c, at, kind, &b, p, extra, off, bytes);
    g->active = true;
    return true;
}

void jit_guard_else(lower_ctx *c, jit_guard *g)
{
    g->pass_end = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, g->join);
    LLVMPositionBuilderAtEnd(c->b, g->fail);
}

LLVMValueRef jit_guard_close(lower_ctx *c, jit_guard *g, LLVMValueRef pass_v, LLVMValueRef fail_v)
{
    if (!g->active)
        return pass_v;
    if (!g->pass_end) {
        jit_guard_else(c, g);
        fail_v = NULL;
    }
    LLVMBasicBlockRef fail_end = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, g->join);
    LLVMPositionBuilderAtEnd(c->b, g->join);
    g->active = false;
    if (!pass_v)
        return NULL;
    LLVMValueRef phi = LLVMBuildPhi(c->b, LLVMTypeOf(pass_v), "");
    LLVMValueRef z = fail_v ? fail_v : LLVMConstNull(LLVMTypeOf(pass_v));
    LLVMAddIncoming(phi, (LLVMValueRef[]){ pass_v, z }, (LLVMBasicBlockRef[]){ g->pass_end, fail_end }, 2);
    return phi;
}

/* --- typed loads and stores ---------------------------------------------------------------------------- */

/* Bytes from the start of a value of type_id in memory (mat: how a matrix sits) to its end. */
static uint64_t extent(lower_ctx *c, uint32_t type_id, uint32_t mat)
{
    const spv_type *t = spv_type_get(c->m, type_id);
    const spv_layout *l = jit_layout_of(c, type_id);
    if (!t || !l)
        return 1;
    uint64_t stride = mat & ~JIT_MAT_ROW_MAJOR;
    if (t->kind == SPV_TYPE_VECTOR && (mat & JIT_MAT_ROW_MAJOR)) /* a column of a row-major matrix */
        return (t->count - 1) * stride + jit_layout_of(c, t->elem)->size;
    if (t->kind == SPV_TYPE_MATRIX && stride) {
        const spv_type *ct = spv_type_get(c->m, t->elem);
        uint64_t esize = jit_layout_of(c, ct->elem)->size;
        return (mat & JIT_MAT_ROW_MAJOR) ? (ct->count - 1) * stride + t->count * esize
                                         : (t->count - 1) * stride + ct->count * esize;
    }
    return l->size ? l->size : 1;
}

static bool one_scalar(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = spv_type_get(c->m, type_id);
    return t && t->kind != SPV_TYPE_VECTOR && t->kind != SPV_TYPE_MATRIX && t->kind != SPV_TYPE_ARRAY &&
           t->kind != SPV_TYPE_STRUCT;
}

/* Whether a function of the module calls the entry point (asked once). */
static bool entry_called(lower_ctx *c)
{
    const spv_module *m = c->m;
    uint32_t entry_id = m->funcs[c->ep->func].id;
    for (uint32_t i = 0; i < m->ninsts && !c->entry_calls; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode == SpvOpFunctionCall && in->w[in->first_op] == entry_id)
            c->entry_calls = 1;
    }
    if (!c->entry_calls)
        c->entry_calls = 2;
    return c->entry_calls == 1;
}

/* Whether pointer parameter `id` points at the start of its range at every
 * call: an argument of the entry point, which the work-group function alone
 * calls, with offset 0 (workgroup.c), when nothing in the module calls the
 * entry point; or a parameter every call passes such an argument straight on
 * (param_origin's Kernel argument).  Answered once per parameter. */
static bool param_at_start(lower_ctx *c, uint32_t id)
{
    const spv_module *m = c->m;
    if (!c->param_starts)
        c->param_starts = jit_alloc(c, m->bound, 1);
    if (c->param_starts[id])
        return c->param_starts[id] == 1;
    const spv_id *d = spv_id_get(m, id);
    bool at_start = c->ep && d && d->func < m->nfuncs;
    uint32_t p = 0, kind = SPVJIT_BOUND_PARAM, index;
    const spv_function *f = at_start ? &m->funcs[d->func] : NULL;
    while (f && p < f->nparams && f->params[p] != id)
        p++;
    if (f && p < f->nparams)
        param_origin(c, f, p, &kind, &index);
    at_start = kind == SPVJIT_BOUND_ARG && !entry_called(c);
    c->param_starts[id] = at_start ? 1 : 2;
    return at_start;
}

/* Whether ptr_id's value p is made by GEPs from the value of the root of its
 * access chains, that root at offset 0 of its range (a binding, a
 * module-scope or Function variable, a Kernel argument: param_at_start) and
 * made by no GEP itself: p's offset in the range is then its offset from the
 * root of its GEPs, whatever the passes fold.  False for other roots (a
 * pointer loaded or selected, another parameter).  memory=unchecked keeps no
 * ranges: a variable's own memory, an argument's buffer is the range, which
 * a trusted kernel stays in. */
static bool made_from_origin(lower_ctx *c, uint32_t ptr_id, LLVMValueRef p)
{
    for (int depth = 0; depth < 64; depth++) {
        const spv_id *d = spv_id_get(c->m, ptr_id);
        const spv_inst *def = spv_def(c->m, ptr_id);
        if (!d || !def)
            return false;
        bool param = def->opcode == SpvOpFunctionParameter;
        if (d->kind == SPV_ID_GLOBAL_VARIABLE || def->opcode == SpvOpVariable || param) {
            LLVMValueRef root = jit_value(c, ptr_id);
            const jit_bounds *b = param || !jit_checks_on(c) ? NULL : entry(c, ptr_id); /* derived already */
            bool at_start =
                param ? param_at_start(c, ptr_id)
                      : !jit_checks_on(c) || (b && b->size && b->kind != SPVJIT_BOUND_NONE &&
                                              LLVMIsAConstantInt(b->off) && !LLVMConstIntGetZExtValue(b->off));
            if (!at_start || !root || LLVMIsAGetElementPtrInst(root) || LLVMIsAConstantExpr(root))
                return false; /* (a root made by a GEP: the passes may fold it into the access's) */
            while (p != root && LLVMIsAGetElementPtrInst(p))
                p = LLVMGetOperand(p, 0);
            return p == root;
        }
        switch (def->opcode) {
        case SpvOpAccessChain:
        case SpvOpInBoundsAccessChain:
        case SpvOpPtrAccessChain:
        case SpvOpInBoundsPtrAccessChain:
        case SpvOpCopyObject:
        case SpvOpCopyLogical:
            ptr_id = spv_inst_op(def, 0);
            break;
        default:
            return false;
        }
    }
    return false;
}

LLVMValueRef jit_checked_load(lower_ctx *c, const spv_inst *at, uint32_t ptr_id, uint32_t type_id, LLVMValueRef p,
                              LLVMValueRef extra, uint32_t align, bool vol, uint32_t mat, uint32_t kind)
{
    LLVMValueRef addr = extra ? jit_byte_gep(c, p, extra, false) : p;
    jit_guard g;
    bool open = jit_guard_open(c, &g, at, ptr_id, p, extra, k64(c, extent(c, type_id, mat)), kind);
    c->in_bounds = made_from_origin(c, ptr_id, addr); /* under the check, or proven, or trusted */
    LLVMValueRef v = jit_load_mem(c, type_id, addr, align, vol, mat);
    if (open && v && !one_scalar(c, type_id)) { /* not all of it fits: each component that does */
        jit_guard_else(c, &g);
        jit_leaf_guard leaf = { at, ptr_id, extra, kind };
        c->leaf_guard = &leaf;
        LLVMValueRef part = jit_load_mem(c, type_id, addr, align, vol, mat);
        c->leaf_guard = NULL;
        v = part ? jit_guard_close(c, &g, v, part) : NULL;
    } else if (open && v) {
        v = jit_guard_close(c, &g, v, NULL);
    }
    c->in_bounds = false;
    return v;
}

int jit_checked_store(lower_ctx *c, const spv_inst *at, uint32_t ptr_id, uint32_t type_id, LLVMValueRef p,
                      LLVMValueRef extra, LLVMValueRef v, uint32_t align, bool vol, uint32_t mat, uint32_t kind)
{
    LLVMValueRef addr = extra ? jit_byte_gep(c, p, extra, false) : p;
    jit_guard g;
    bool open = jit_guard_open(c, &g, at, ptr_id, p, extra, k64(c, extent(c, type_id, mat)), kind);
    c->in_bounds = made_from_origin(c, ptr_id, addr);
    int rc = jit_store_mem(c, type_id, addr, v, align, vol, mat);
    if (open && !rc && !one_scalar(c, type_id)) {
        jit_guard_else(c, &g);
        jit_leaf_guard leaf = { at, ptr_id, extra, kind };
        c->leaf_guard = &leaf;
        rc = jit_store_mem(c, type_id, addr, v, align, vol, mat);
        c->leaf_guard = NULL;
    }
    if (open && !rc)
        jit_guard_close(c, &g, NULL, NULL);
    c->in_bounds = false;
    return rc ? -1 : 0;
}

/* The access of one component at `at` bytes into a split access (lower_access.c). */
bool jit_leaf_open(lower_ctx *c, jit_guard *g, uint64_t at, uint64_t bytes)
{
    jit_leaf_guard *l = c->leaf_guard;
    LLVMValueRef extra = l->extra ? LLVMBuildAdd(c->b, l->extra, k64(c, at), "") : k64(c, at);
    c->leaf_guard = NULL;
    c->leaf_quiet = true; /* reported (and noted for races) as the whole access */
    bool open = jit_guard_open(c, g, l->at, l->ptr_id, jit_value(c, l->ptr_id), extra, k64(c, bytes), l->kind);
    c->leaf_quiet = false;
    c->leaf_guard = l;
    return open;
}

/* --- OpCopyMemorySized ------------------------------------------------------------------------------- */

/* memmove of the bytes both ranges hold; destination bytes whose source is out
 * of bounds read zero; the rest is dropped (byte by byte robustBufferAccess2). */
int jit_checked_copy(lower_ctx *c, const spv_inst *at, uint32_t dst_id, uint32_t src_id, LLVMValueRef dst,
                     LLVMValueRef src, LLVMValueRef n, unsigned align, bool vol)
{
    if (!jit_checks_on(c)) {
        LLVMValueRef mc = LLVMBuildMemMove(c->b, dst, align, src, align, n);
        if (vol)
            LLVMSetVolatile(mc, 1);
        return 0;
    }
    jit_bounds d = *jit_bounds_of(c, dst_id), s = *jit_bounds_of(c, src_id);
    LLVMTypeRef t = c->t_i64;
    LLVMValueRef droom = jit_intrinsic(c, "llvm.usub.sat", &t, 1, (LLVMValueRef[]){ d.size, d.off }, 2);
    LLVMValueRef sroom = jit_intrinsic(c, "llvm.usub.sat", &t, 1, (LLVMValueRef[]){ s.size, s.off }, 2);
    LLVMValueRef dn = jit_intrinsic(c, "llvm.umin", &t, 1, (LLVMValueRef[]){ n, droom }, 2);
    LLVMValueRef both = jit_intrinsic(c, "llvm.umin", &t, 1, (LLVMValueRef[]){ dn, sroom }, 2);
    LLVMValueRef whole = LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntULE, n, droom, ""),
                                      LLVMBuildICmp(c->b, LLVMIntULE, n, sroom, ""), "");
    if (c->memory == JIT_MEMORY_CHECK) { /* name the side that does not fit, the destination first */
        LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "oob");
        LLVMBasicBlockRef bad_src = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "oob.src");
        LLVMBasicBlockRef bad_dst = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "oob.dst");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "inb.join");
        jit_weigh_likely(LLVMBuildCondBr(c->b, whole, join, bad), JIT_GUARD_WEIGHT);
        LLVMPositionBuilderAtEnd(c->b, bad);
        LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULE, n, droom, ""), bad_src, bad_dst);
        LLVMPositionBuilderAtEnd(c->b, bad_src);
        report_oob(c, at, SPVJIT_ACCESS_COPY_FROM, &s, s.off, n);
        LLVMBuildBr(c->b, join);
        LLVMPositionBuilderAtEnd(c->b, bad_dst);
        report_oob(c, at, SPVJIT_ACCESS_COPY_TO, &d, d.off, n);
        LLVMBuildBr(c->b, join);
        LLVMPositionBuilderAtEnd(c->b, join);
    }
    note_wg_access(c, at, SPVJIT_ACCESS_COPY_FROM, &s, src, NULL, s.off, both);
    note_wg_access(c, at, SPVJIT_ACCESS_COPY_TO, &d, dst, NULL, d.off, dn);
    LLVMValueRef mc = LLVMBuildMemMove(c->b, dst, align, src, align, both);
    if (vol)
        LLVMSetVolatile(mc, 1);
    LLVMValueRef tail = LLVMBuildSub(c->b, dn, both, "");
    LLVMValueRef ms = LLVMBuildMemSet(c->b, jit_byte_gep(c, dst, both, false), LLVMConstInt(c->t_i8, 0, 0), tail, 1);
    if (vol)
        LLVMSetVolatile(ms, 1);
    return 0;
}

/* --- barriers -------------------------------------------------------------------------------------------- */

void jit_bounds_barrier(lower_ctx *c)
{
    if (c->memory != JIT_MEMORY_CHECK || !c->item_epoch)
        return;
    LLVMValueRef p = jit_item_field_ptr(c, c->item_epoch);
    LLVMValueRef e = LLVMBuildLoad2(c->b, c->t_i32, p, "");
    LLVMBuildStore(c->b, LLVMBuildAdd(c->b, e, LLVMConstInt(c->t_i32, 1, 0), ""), p);
}
