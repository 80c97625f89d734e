/* lib/api_fault.c — memory=check's reports as text (api_internal.h).
 *
 * The compiled code reports raw facts (lib/mem_check.c): the index of the
 * instruction in the module it was compiled from, what its access touched
 * and where.  Here they get their words: the instruction disassembled by
 * SPIRV-Tools (its result id with it), its source line from the nearest
 * OpLine (or NonSemantic.Shader.DebugInfo.100 DebugLine) before it in its
 * block, and the range by its binding, argument or variable with its type.
 *
 *   <file>: kernel "<entry>": out-of-bounds <access> by work-item (x,y,z) of work-group (x,y,z):
 *     <instruction> (<source>:<line>): <range>: <n> bytes at byte offset <o>[ (element <i>)], but it
 *     has <bound> bytes[ (<k> elements)]
 *   <file>: kernel "<entry>": data race on work-group memory in work-group (x,y,z) after <e> barriers:
 *     work-item (x,y,z) <access>s <n> bytes at byte offset <o> of work-group memory (<variable>) at
 *     <instruction> (<source>:<line>), which work-item (x,y,z) <access>ed at <instruction> (<line>)
 *     with no barrier between them
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

typedef struct text {
    char *buf;
    size_t len, at;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    if (t->at >= t->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->at, t->len - t->at, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->at += (size_t)n < t->len - t->at ? (size_t)n : t->len - t->at - 1;
}

static const char *access_word(uint32_t access)
{
    switch (access) {
    case SPVJIT_ACCESS_LOAD:
        return "load";
    case SPVJIT_ACCESS_STORE:
        return "store";
    case SPVJIT_ACCESS_ATOMIC:
        return "atomic";
    case SPVJIT_ACCESS_ATOMIC_LOAD:
        return "atomic load";
    case SPVJIT_ACCESS_COPY_FROM:
        return "copy from";
    case SPVJIT_ACCESS_COPY_TO:
        return "copy to";
    default:
        return "access";
    }
}

/* "loads", "stores", "writes atomically to", ... */
static const char *access_verb(uint32_t access, bool past)
{
    switch (access) {
    case SPVJIT_ACCESS_LOAD:
    case SPVJIT_ACCESS_COPY_FROM:
        return past ? "read" : "reads";
    case SPVJIT_ACCESS_ATOMIC_LOAD:
        return past ? "read atomically" : "reads atomically";
    case SPVJIT_ACCESS_ATOMIC:
        return past ? "updated atomically" : "updates atomically";
    default:
        return past ? "wrote" : "writes";
    }
}

/* The string of an OpString id, or NULL. */
static const char *string_of(const spv_module *m, uint32_t id)
{
    const spv_inst *s = spv_def(m, id);
    return s && s->opcode == SpvOpString ? spv_literal_string(&s->w[2], s->nwords - 2) : NULL;
}

/* " (file:line)" of instruction i from the nearest OpLine / DebugLine before it in its block. */
static void source_line(text *t, const spv_module *m, uint32_t i)
{
    for (uint32_t k = i; k-- > 0;) {
        const spv_inst *in = &m->insts[k];
        if (in->opcode == SpvOpLabel || in->opcode == SpvOpNoLine || in->opcode == SpvOpFunction)
            return;
        if (in->opcode == SpvOpLine && in->nwords >= 4) {
            const char *file = string_of(m, in->w[1]);
            put(t, " (%s:%u)", file ? file : "?", in->w[2]);
            return;
        }
        /* NonSemantic.Shader.DebugInfo.100 DebugLine (103): Source, LineStart, ... */
        if (in->opcode == SpvOpExtInst && spv_inst_nops(in) >= 5 && spv_inst_op(in, 1) == 103) {
            const spv_id *set = spv_id_get(m, spv_inst_op(in, 0));
            if (!set || set->ext_set != SPV_EXT_NONSEMANTIC)
                continue;
            const spv_inst *src = spv_def(m, spv_inst_op(in, 2));
            uint64_t line = 0;
            spv_const_u64(m, spv_inst_op(in, 3), &line);
            const char *file = src && src->opcode == SpvOpExtInst && spv_inst_nops(src) >= 3
                                   ? string_of(m, spv_inst_op(src, 2))
                                   : NULL;
            put(t, " (%s:%llu)", file ? file : "?", (unsigned long long)line);
            return;
        }
    }
}

/* "%42 = OpLoad %float %41 (file:7)" */
static void instruction(text *t, const spv_module *m, const spvjit_check_site *site)
{
    if (!site || site->inst >= m->ninsts) {
        put(t, "an access of the generated code");
        return;
    }
    const spv_inst *in = &m->insts[site->inst];
    char dis[512];
    spv_disasm_inst(m, in, dis, sizeof dis);
    if (in->result_id && !strchr(dis, '='))
        put(t, "%%%u = ", in->result_id);
    put(t, "%s", dis);
    if (in->result_id && strncmp(dis, "%", 1) == 0 && !isdigit((unsigned char)dis[1]))
        put(t, " [result id %%%u]", in->result_id);
    source_line(t, m, site->inst);
}

static const spv_resource *resource_at(const spv_resource *res, int nres, spv_resource_kind kind, uint32_t set,
                                       uint32_t binding, uint32_t index)
{
    for (int i = 0; i < nres; i++)
        if (res[i].kind == kind &&
            (kind == SPV_RES_KERNEL_ARG ? res[i].index == index : res[i].set == set && res[i].binding == binding))
            return &res[i];
    return NULL;
}

static const char *storage_name(uint32_t sc)
{
    switch (sc) {
    case SpvStorageClassWorkgroup:
        return "Workgroup";
    case SpvStorageClassPrivate:
        return "Private";
    case SpvStorageClassFunction:
        return "Function";
    case SpvStorageClassCrossWorkgroup:
        return "CrossWorkgroup";
    case SpvStorageClassUniformConstant:
        return "UniformConstant";
    case SpvStorageClassPushConstant:
        return "PushConstant";
    default:
        return "memory";
    }
}

/* What the range is ("set 0 binding 1 (Src)", "argument 2 (out)", "variable s (Workgroup, float[256])"),
 * and the element size of the array it is, where it is one (0 otherwise). */
static uint64_t range_name(text *t, const api_compiled *c, const spv_resource *res, int nres,
                           const spvjit_check_site *site, uint64_t *fixed)
{
    const spv_module *m = c->module;
    const spvjit_kernel_facts *f = c->facts;
    *fixed = 0;
    switch (site ? site->bound : SPVJIT_BOUND_DYNAMIC) {
    case SPVJIT_BOUND_BINDING:
        for (uint32_t i = 0; i < f->nresources; i++) {
            const spvjit_resource *r = &f->resources[i];
            if (site->index < r->slot || site->index >= r->slot + r->array_count)
                continue;
            /* (a Uniform BufferBlock is a storage buffer) */
            const spv_resource *sr = resource_at(res, nres, SPV_RES_STORAGE_BUFFER, r->set, r->binding, 0);
            if (!sr)
                sr = resource_at(res, nres, SPV_RES_UNIFORM_BUFFER, r->set, r->binding, 0);
            const char *name = r->name && *r->name ? r->name : sr && sr->name && *sr->name ? sr->name : "unnamed";
            put(t, "set %u binding %u", r->set, r->binding);
            if (r->array_count > 1)
                put(t, " element %u", site->index - r->slot);
            put(t, " (%s)", name);
            *fixed = r->size;
            return r->runtime_stride;
        }
        put(t, "resource slot %u", site->index);
        return 0;
    case SPVJIT_BOUND_PUSH:
        put(t, "the push constants");
        return 0;
    case SPVJIT_BOUND_ARG: {
        const spv_resource *sr = resource_at(res, nres, SPV_RES_KERNEL_ARG, 0, 0, site->index);
        put(t, "argument %u (%s)", site->index, sr && sr->name ? sr->name : "unnamed");
        return sr && sr->is_pointer ? sr->size : 0;
    }
    case SPVJIT_BOUND_VARIABLE: {
        const spv_id *d = spv_id_get(m, site->index);
        const spv_type *pt = d ? spv_type_get(m, d->type_id) : NULL;
        char type[160] = "?";
        if (pt && pt->kind == SPV_TYPE_POINTER)
            spv_type_name(m, pt->elem, type, sizeof type);
        put(t, "variable %s (%s, %s)", d && d->name ? d->name : "unnamed", pt ? storage_name(pt->storage) : "memory",
            type);
        return 0;
    }
    case SPVJIT_BOUND_NONE:
        put(t, "a null or undefined pointer");
        return 0;
    case SPVJIT_BOUND_PARAM: {
        const spv_id *d = spv_id_get(m, site->index);
        const spv_id *fn = d && d->func < m->nfuncs ? spv_id_get(m, m->funcs[d->func].id) : NULL;
        put(t, "the range passed in parameter %s of function %s", d && d->name ? d->name : "unnamed",
            fn && fn->name ? fn->name : "unnamed");
        return 0;
    }
    default:
        put(t, "the range found at run time for a pointer the code computed");
        return 0;
    }
}

/* "out-of-bounds <access> in <where>: <instruction>: <range>: <offset>, but it has <bound>" */
static void oob(text *t, const api_compiled *c, const spv_resource *res, int nres, const spvjit_exec_fault *f,
                const char *where)
{
    put(t, "out-of-bounds %s in %s: ", access_word(f->site->access), where);
    instruction(t, c->module, f->site);
    put(t, ": ");
    uint64_t fixed, stride = range_name(t, c, res, nres, f->site, &fixed);
    /* offsets are 64-bit two's complement: an index below the base is negative */
    put(t, ": %llu bytes at byte offset %lld", (unsigned long long)f->bytes, (long long)f->offset);
    if (stride && (int64_t)f->offset >= (int64_t)fixed)
        put(t, " (element %llu)", (unsigned long long)((f->offset - fixed) / stride));
    put(t, ", but it has %llu bytes", (unsigned long long)f->bound);
    if (stride && f->bound >= fixed)
        put(t, " (%llu elements)", (unsigned long long)((f->bound - fixed) / stride));
}

static void race(text *t, const api_compiled *c, const spv_resource *res, int nres, const spvjit_exec_fault *f)
{
    put(t,
        "data race on work-group memory in work-group (%u,%u,%u) after %u barrier%s: work-item (%u,%u,%u) %s %llu "
        "bytes at byte offset %llu of ",
        f->group[0], f->group[1], f->group[2], f->epoch, f->epoch == 1 ? "" : "s", f->item[0], f->item[1], f->item[2],
        access_verb(f->site->access, false), (unsigned long long)f->bytes, (unsigned long long)f->offset);
    uint64_t fixed;
    range_name(t, c, res, nres, f->site, &fixed);
    put(t, " at ");
    instruction(t, c->module, f->site);
    put(t, ", where work-item (%u,%u,%u) %s at ", f->other_item[0], f->other_item[1], f->other_item[2],
        access_verb(f->other ? f->other->access : 0, true));
    instruction(t, c->module, f->other);
    put(t, ", with no barrier between them");
}

void api_format_fault(const api_compiled *c, const char *entry, const spvjit_exec_fault *f, char *buf, size_t len)
{
    text t = { buf, len, 0 };
    buf[0] = 0;
    const spv_module *m = c->module;
    put(&t, "%s: kernel \"%s\": ", m->source ? m->source : "<memory>", entry);
    spv_resource *res = NULL;
    spv_diag d = { { 0 } };
    const spv_entry_point *e = spv_find_entry(m, entry);
    int nres = e ? spv_entry_resources(m, e, &res, &d) : -1;
    if (nres < 0)
        nres = 0;
    char where[96];
    snprintf(where, sizeof where, "work-group (%u,%u,%u), work-item (%u,%u,%u)", f->group[0], f->group[1], f->group[2],
             f->item[0], f->item[1], f->item[2]);
    if (f->kind == SPVJIT_FAULT_RACE)
        race(&t, c, res, nres, f);
    else
        oob(&t, c, res, nres, f, where);
    free(res);
}

void api_format_call_fault(const api_compiled *c, const char *fname, unsigned lane, const spvjit_exec_fault *f,
                           char *buf, size_t len)
{
    text t = { buf, len, 0 };
    buf[0] = 0;
    put(&t, "%s: function \"%s\": ", c->module->source ? c->module->source : "<memory>", fname);
    char where[64];
    snprintf(where, sizeof where, "lane %u of the call", lane);
    oob(&t, c, NULL, 0, f, where);
}
