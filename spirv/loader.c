/* spirv/loader.c — reading a .spv module into the model of module.h.
 *
 * Three passes over the words:
 *   1. header and instruction boundaries (word counts, byte order);
 *   2. per instruction: operands split by the grammar, ids checked against the
 *      bound, result ids defined once, result types defined before use — our own
 *      checks, so that nothing later reads out of bounds even without the
 *      validator;
 *   3. the SPIRV-Tools validator, then the model: types, constants, decorations,
 *      names, functions and blocks, entry points.
 * Every error names the input, the word offset and what was expected.
 */
#include "module.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operands.h"
#include "spirv_grammar.h"
#include "util/array.h"
#include "util/file.h"

#define HEADER_WORDS 5

typedef struct loader {
    spv_module *m;
    spv_diag *diag;
    const spv_inst *at; /* the instruction being read, for messages */
    char where_buf[160];
} loader;

static const char *src(const spv_module *m)
{
    return m->source ? m->source : "<memory>";
}

/* "FILE: word N: OpName" for L->at, formatted only for a message (formatting
 * it for every instruction was a seventh of a module load). */
static const char *where(loader *L)
{
    const char *name = spv_opcode_name(L->at->opcode);
    snprintf(L->where_buf, sizeof L->where_buf, "%s: word %u: %s", src(L->m), L->at->offset,
             name ? name : "instruction");
    return L->where_buf;
}

uint32_t spv_module_literal_words(void *ud, uint32_t id)
{
    const spv_module *m = ud;
    if (id == 0 || id >= m->bound)
        return 0;
    const spv_id *x = &m->ids[id];
    if (x->kind != SPV_ID_TYPE && x->type_id && x->type_id < m->bound)
        x = &m->ids[x->type_id];
    if (x->kind != SPV_ID_TYPE)
        return 0;
    if (x->type.kind != SPV_TYPE_INT && x->type.kind != SPV_TYPE_FLOAT)
        return 0;
    return x->type.width > 32 ? 2 : 1;
}

/* --- pass 1: header and instruction boundaries ------------------------------- */

static int read_header_and_insts(loader *L, const void *bytes, size_t nbytes)
{
    spv_module *m = L->m;
    if (nbytes == 0)
        return spv_fail(L->diag, "%s: empty file, expected a SPIR-V module", src(m));
    if (nbytes % 4)
        return spv_fail(L->diag, "%s: size %zu bytes is not a multiple of 4, expected whole 32-bit words", src(m),
                        nbytes);
    if (nbytes / 4 < HEADER_WORDS)
        return spv_fail(L->diag, "%s: only %zu words, expected at least the 5-word header", src(m), nbytes / 4);
    m->nwords = nbytes / 4;
    m->words = malloc(nbytes);
    if (!m->words)
        return spv_fail(L->diag, "%s: out of memory", src(m));
    memcpy(m->words, bytes, nbytes);
    if (m->words[0] != SpvMagicNumber) {
        if (__builtin_bswap32(m->words[0]) != SpvMagicNumber)
            return spv_fail(L->diag, "%s: word 0: magic number 0x%08x, expected 0x%08x (SPIR-V)", src(m), m->words[0],
                            SpvMagicNumber);
        for (size_t i = 0; i < m->nwords; i++)
            m->words[i] = __builtin_bswap32(m->words[i]);
    }
    m->version = m->words[1];
    m->generator = m->words[2];
    m->bound = m->words[3];
    m->schema = m->words[4];
    uint32_t major = (m->version >> 16) & 0xff, minor = (m->version >> 8) & 0xff;
    if (major != 1 || minor > 6 || (m->version & 0xff0000ff))
        return spv_fail(L->diag, "%s: word 1: version 0x%08x, expected SPIR-V 1.0 to 1.6", src(m), m->version);
    if (m->bound == 0 || m->bound > SPV_MAX_ID_BOUND)
        return spv_fail(L->diag, "%s: word 3: id bound %u, expected 1 to %u", src(m), m->bound, SPV_MAX_ID_BOUND);
    if (m->schema != 0)
        return spv_fail(L->diag, "%s: word 4: schema %u, expected 0", src(m), m->schema);

    /* Count, then record instructions. */
    uint32_t n = 0;
    for (size_t pos = HEADER_WORDS; pos < m->nwords;) {
        uint32_t wc = m->words[pos] >> 16;
        if (wc == 0)
            return spv_fail(L->diag, "%s: word %zu: instruction word count 0 (opcode %u), expected at least 1", src(m),
                            pos, m->words[pos] & 0xffff);
        if (pos + wc > m->nwords)
            return spv_fail(L->diag, "%s: word %zu: %s has word count %u but only %zu words remain (truncated module?)",
                            src(m), pos,
                            spv_opcode_name(m->words[pos] & 0xffff) ? spv_opcode_name(m->words[pos] & 0xffff)
                                                                    : "instruction",
                            wc, m->nwords - pos);
        pos += wc;
        n++;
    }
    m->insts = calloc(n ? n : 1, sizeof *m->insts);
    m->ids = calloc(m->bound, sizeof *m->ids);
    if (!m->insts || !m->ids)
        return spv_fail(L->diag, "%s: out of memory", src(m));
    for (uint32_t i = 0; i < m->bound; i++) {
        m->ids[i].inst = SPV_NONE;
        m->ids[i].func = SPV_NONE;
        m->ids[i].spec_id = SPV_NONE;
    }
    m->ninsts = n;
    uint32_t k = 0;
    for (size_t pos = HEADER_WORDS; pos < m->nwords; k++) {
        spv_inst *in = &m->insts[k];
        in->offset = (uint32_t)pos;
        in->w = &m->words[pos];
        in->opcode = m->words[pos] & 0xffff;
        in->nwords = m->words[pos] >> 16;
        pos += in->nwords;
    }
    return 0;
}

/* --- pass 2: operands, ids, definition order ----------------------------------- */

/* Instructions whose id operands may name ids defined later in the module. */
static bool allows_forward_refs(uint32_t op)
{
    switch (op) {
    case SpvOpName:
    case SpvOpMemberName:
    case SpvOpDecorate:
    case SpvOpMemberDecorate:
    case SpvOpDecorateId:
    case SpvOpDecorateString:
    case SpvOpMemberDecorateString:
    case SpvOpGroupDecorate:
    case SpvOpGroupMemberDecorate:
    case SpvOpEntryPoint:
    case SpvOpExecutionMode:
    case SpvOpExecutionModeId:
    case SpvOpTypePointer:
    case SpvOpTypeStruct:
    case SpvOpBranch:
    case SpvOpBranchConditional:
    case SpvOpSwitch:
    case SpvOpPhi:
    case SpvOpLoopMerge:
    case SpvOpSelectionMerge:
    case SpvOpFunctionCall:
    case SpvOpEnqueueKernel:
    case SpvOpGetKernelNDrangeSubGroupCount:
    case SpvOpGetKernelNDrangeMaxSubGroupSize:
    case SpvOpGetKernelWorkGroupSize:
    case SpvOpGetKernelPreferredWorkGroupSizeMultiple:
    case SpvOpGetKernelLocalSizeForSubgroupCount:
    case SpvOpGetKernelMaxNumSubgroups:
    case SpvOpLine:
    case SpvOpExtInst:
        return true;
    default:
        return false;
    }
}

static int check_operands(loader *L)
{
    spv_module *m = L->m;
    spv_operand *ops = malloc(sizeof *ops * 65536);
    uint8_t *defined = calloc(m->bound, 1);
    int rc = 0;
    if (!ops || !defined) {
        rc = spv_fail(L->diag, "%s: out of memory", src(m));
        goto out;
    }
    for (uint32_t i = 0; i < m->ninsts && rc == 0; i++) {
        spv_inst *in = &m->insts[i];
        L->at = in;
        const spv_opcode_desc *d = spv_opcode_desc_get(in->opcode);
        if (!d) {
            rc = spv_fail(L->diag, "%s: word %u: unknown opcode %u, expected an opcode of SPIR-V %s", src(m),
                          in->offset, in->opcode, SPV_GRAMMAR_VERSION);
            break;
        }
        int nops = spv_split_operands(in->w, in->nwords, spv_module_literal_words, m, ops, 65536, NULL, NULL);
        if (nops < 0) { /* again, for the message */
            rc = spv_split_operands(in->w, in->nwords, spv_module_literal_words, m, ops, 65536, where(L), L->diag);
            break;
        }
        in->first_op = 1;
        bool fwd = allows_forward_refs(in->opcode);
        for (int k = 0; k < nops && rc == 0; k++) {
            const spv_operand *o = &ops[k];
            if (o->kind == SPV_OPERAND_IdResultType) {
                in->type_id = in->w[o->word];
                in->first_op = o->word + 1;
            } else if (o->kind == SPV_OPERAND_IdResult) {
                in->result_id = in->w[o->word];
                in->first_op = o->word + 1;
            }
            /* Every id word of this operand. */
            uint32_t first, last;
            if (!spv_operand_id_words(o, &first, &last))
                continue;
            for (uint32_t wi = first; wi < last; wi++) {
                uint32_t id = in->w[wi];
                if (id == 0 || id >= m->bound) {
                    rc = spv_fail(L->diag, "%s: id %u (word %u) is out of range, expected 1 to %u (below the bound)",
                                  where(L), id, in->offset + wi, m->bound - 1);
                    break;
                }
                if (o->kind == SPV_OPERAND_IdResult) {
                    if (defined[id]) {
                        rc = spv_fail(L->diag, "%s: result id %%%u is defined twice", where(L), id);
                        break;
                    }
                    continue;
                }
                if (o->kind == SPV_OPERAND_IdResultType && !(defined[id] && m->ids[id].kind == SPV_ID_TYPE)) {
                    rc = spv_fail(L->diag, "%s: result type %%%u is %s, expected a type defined earlier", where(L), id,
                                  defined[id] ? "not a type" : "not defined yet");
                    break;
                }
                /* Types, constants and global variables may refer only backwards. */
                if (!fwd && !defined[id] && d->klass &&
                    (!strcmp(d->klass, "Type-Declaration") || !strcmp(d->klass, "Constant-Creation"))) {
                    rc = spv_fail(L->diag, "%s: operand %%%u is used before it is defined", where(L), id);
                    break;
                }
            }
        }
        if (rc)
            break;
        if (in->result_id) {
            defined[in->result_id] = 1;
            spv_id *x = &m->ids[in->result_id];
            x->inst = i;
            x->type_id = in->type_id;
            /* Provisional kinds, needed by spv_module_literal_words() and the type check above. */
            if (d->klass && !strcmp(d->klass, "Type-Declaration"))
                x->kind = SPV_ID_TYPE;
            if (in->opcode == SpvOpTypeInt || in->opcode == SpvOpTypeFloat) {
                x->type.kind = in->opcode == SpvOpTypeInt ? SPV_TYPE_INT : SPV_TYPE_FLOAT;
                x->type.width = in->nwords > 2 ? in->w[2] : 0;
                if (x->type.width == 0 || x->type.width > 64) {
                    rc = spv_fail(L->diag, "%s: width %u, expected 8, 16, 32 or 64", where(L), x->type.width);
                    break;
                }
            }
        }
    }
out:
    free(ops);
    free(defined);
    return rc;
}

/* --- pass 3: the model ------------------------------------------------------------ */

static uint64_t literal_value(const spv_inst *in, uint32_t width)
{
    uint64_t v = in->w[in->first_op];
    if (width > 32 && in->nwords > in->first_op + 1)
        v |= (uint64_t)in->w[in->first_op + 1] << 32;
    if (width < 64)
        v &= (1ull << width) - 1;
    return v;
}

static int build_type(loader *L, const spv_inst *in, spv_id *x)
{
    spv_module *m = L->m;
    spv_type *t = &x->type;
    uint32_t nops = spv_inst_nops(in);
    const uint32_t *op = in->w + in->first_op;
    switch (in->opcode) {
    case SpvOpTypeVoid:
        t->kind = SPV_TYPE_VOID;
        break;
    case SpvOpTypeBool:
        t->kind = SPV_TYPE_BOOL;
        break;
    case SpvOpTypeInt:
        t->kind = SPV_TYPE_INT;
        t->width = op[0];
        t->is_signed = op[1] != 0;
        break;
    case SpvOpTypeFloat:
        t->kind = SPV_TYPE_FLOAT;
        t->width = op[0];
        break;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
        t->kind = in->opcode == SpvOpTypeVector ? SPV_TYPE_VECTOR : SPV_TYPE_MATRIX;
        t->elem = op[0];
        t->count = op[1];
        if (t->count < 2)
            return spv_fail(L->diag, "%s: %u components, expected at least 2", where(L), t->count);
        break;
    case SpvOpTypeArray: {
        t->kind = SPV_TYPE_ARRAY;
        t->elem = op[0];
        t->length_id = op[1];
        const spv_id *len = &m->ids[op[1]];
        if (len->kind == SPV_ID_CONSTANT && !len->is_composite)
            t->count = len->scalar > UINT32_MAX ? UINT32_MAX : (uint32_t)len->scalar;
        break;
    }
    case SpvOpTypeRuntimeArray:
        t->kind = SPV_TYPE_RUNTIME_ARRAY;
        t->elem = op[0];
        break;
    case SpvOpTypeStruct:
        t->kind = SPV_TYPE_STRUCT;
        t->nmembers = nops;
        t->members = op;
        break;
    case SpvOpTypePointer: {
        t->kind = SPV_TYPE_POINTER;
        t->storage = op[0];
        t->elem = op[1];
        break;
    }
    case SpvOpTypeForwardPointer:
        return 0; /* declares the storage class of a pointer defined later */
    case SpvOpTypeFunction:
        t->kind = SPV_TYPE_FUNCTION;
        t->elem = op[0];
        t->nmembers = nops - 1;
        t->members = op + 1;
        break;
    default:
        t->kind = SPV_TYPE_OPAQUE;
        t->opaque_op = in->opcode;
        break;
    }
    return 0;
}

static int build_constant(loader *L, const spv_inst *in, spv_id *x)
{
    spv_module *m = L->m;
    const spv_type *t = spv_type_get(m, in->type_id);
    switch (in->opcode) {
    case SpvOpConstantTrue:
    case SpvOpSpecConstantTrue:
        x->scalar = 1;
        break;
    case SpvOpConstantFalse:
    case SpvOpSpecConstantFalse:
        x->scalar = 0;
        break;
    case SpvOpConstant:
    case SpvOpSpecConstant:
        if (!t || (t->kind != SPV_TYPE_INT && t->kind != SPV_TYPE_FLOAT))
            return spv_fail(L->diag, "%s: result type %%%u is not an integer or float type", where(L), in->type_id);
        x->scalar = literal_value(in, t->width);
        break;
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite:
        x->is_composite = true;
        x->nparts = spv_inst_nops(in);
        x->parts = in->w + in->first_op;
        break;
    case SpvOpConstantNull:
        x->is_null = true;
        break;
    default:
        break; /* OpSpecConstantOp, OpConstantSampler, ...: no stored value */
    }
    return 0;
}

static int cmp_dec(const void *a, const void *b)
{
    const spv_decoration *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    return x->inst < y->inst ? -1 : x->inst > y->inst;
}

static int push_dec(loader *L, util_array *decs, spv_decoration d)
{
    return UTIL_ARRAY_PUSH(decs, spv_decoration, d) ? 0 : spv_fail(L->diag, "%s: out of memory", src(L->m));
}

static int build_decorations(loader *L)
{
    spv_module *m = L->m;
    util_array decs = { 0 };
    /* Direct decorations first; groups are expanded onto their targets below. */
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        uint32_t n = in->nwords;
        switch (in->opcode) {
        case SpvOpDecorate:
        case SpvOpDecorateId:
        case SpvOpDecorateString:
            if (push_dec(L, &decs, (spv_decoration){ in->w[1], -1, in->w[2], n - 3, in->w + 3, i }))
                goto fail;
            break;
        case SpvOpMemberDecorate:
        case SpvOpMemberDecorateString:
            if (push_dec(L, &decs, (spv_decoration){ in->w[1], (int32_t)in->w[2], in->w[3], n - 4, in->w + 4, i }))
                goto fail;
            break;
        default:
            break;
        }
    }
    size_t direct = UTIL_ARRAY_COUNT(&decs, spv_decoration);
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpGroupDecorate && in->opcode != SpvOpGroupMemberDecorate)
            continue;
        uint32_t group = in->w[1];
        bool member = in->opcode == SpvOpGroupMemberDecorate;
        for (uint32_t k = 2; k < in->nwords; k += member ? 2 : 1) {
            uint32_t target = in->w[k];
            int32_t mi = member ? (int32_t)in->w[k + 1] : -1;
            for (size_t d = 0; d < direct; d++) {
                spv_decoration g = UTIL_ARRAY_AT(&decs, spv_decoration, d);
                if (g.target != group || g.member != -1)
                    continue;
                g.target = target;
                g.member = mi;
                if (push_dec(L, &decs, g))
                    goto fail;
            }
        }
    }
    if (UTIL_ARRAY_COUNT(&decs, spv_decoration) > UINT32_MAX) {
        spv_fail(L->diag, "%s: more than 2^32 decorations", src(m));
        goto fail;
    }
    m->ndecs = (uint32_t)UTIL_ARRAY_COUNT(&decs, spv_decoration);
    m->decs = util_array_steal(&decs);
    if (m->ndecs)
        qsort(m->decs, m->ndecs, sizeof *m->decs, cmp_dec);
    for (uint32_t d = 0; d < m->ndecs; d++) {
        spv_id *x = &m->ids[m->decs[d].target];
        if (x->dec_count == 0)
            x->dec_first = d;
        x->dec_count++;
        if (m->decs[d].member == -1 && m->decs[d].decoration == SpvDecorationSpecId && m->decs[d].nargs >= 1)
            x->spec_id = m->decs[d].args[0];
        if (m->decs[d].member == -1 && m->decs[d].decoration == SpvDecorationBuiltIn && m->decs[d].nargs >= 1 &&
            m->decs[d].args[0] == SpvBuiltInWorkgroupSize && x->inst != SPV_NONE &&
            (x->kind == SPV_ID_CONSTANT || x->kind == SPV_ID_SPEC_CONSTANT))
            m->workgroup_size_id = m->decs[d].target;
    }
    return 0;
fail:
    util_array_fini(&decs);
    return -1;
}

/* A zeroed array with one element per instruction of `opcode` (at least one). */
static void *calloc_per_inst(const spv_module *m, uint16_t opcode, size_t elem_size)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->ninsts; i++)
        n += m->insts[i].opcode == opcode;
    return calloc(n ? n : 1, elem_size);
}

static int build_functions(loader *L)
{
    spv_module *m = L->m;
    m->funcs = calloc_per_inst(m, SpvOpFunction, sizeof *m->funcs);
    if (!m->funcs)
        return spv_fail(L->diag, "%s: out of memory", src(m));
    m->first_func_inst = m->ninsts;
    spv_function *f = NULL;
    uint32_t cur_block = SPV_NONE;
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        L->at = in;
        switch (in->opcode) {
        case SpvOpFunction:
            if (f)
                return spv_fail(L->diag, "%s: OpFunction inside a function, expected OpFunctionEnd first", where(L));
            if (m->first_func_inst == m->ninsts)
                m->first_func_inst = i;
            f = &m->funcs[m->nfuncs++];
            f->id = in->result_id;
            f->type_id = in->type_id;
            f->control = in->w[3];
            f->fn_type = in->w[4];
            f->inst = i;
            f->is_declaration = true;
            m->ids[in->result_id].kind = SPV_ID_FUNCTION;
            break;
        case SpvOpFunctionEnd:
            if (!f)
                return spv_fail(L->diag, "%s: OpFunctionEnd outside a function", where(L));
            if (cur_block != SPV_NONE)
                return spv_fail(L->diag, "%s: block %%%u has no terminator", where(L), f->blocks[cur_block].label);
            f->end = i;
            f = NULL;
            break;
        case SpvOpFunctionParameter: {
            if (!f || f->nblocks)
                return spv_fail(L->diag, "%s: parameter outside a function header", where(L));
            uint32_t *p = UTIL_APPEND(f->params, f->nparams);
            if (!p)
                return spv_fail(L->diag, "%s: out of memory", src(m));
            *p = in->result_id;
            m->ids[in->result_id].kind = SPV_ID_PARAM;
            m->ids[in->result_id].func = m->nfuncs - 1;
            break;
        }
        case SpvOpLabel: {
            if (!f)
                return spv_fail(L->diag, "%s: OpLabel outside a function", where(L));
            if (cur_block != SPV_NONE)
                return spv_fail(L->diag, "%s: block %%%u has no terminator before the next OpLabel", where(L),
                                f->blocks[cur_block].label);
            spv_block *b = UTIL_APPEND(f->blocks, f->nblocks);
            if (!b)
                return spv_fail(L->diag, "%s: out of memory", src(m));
            cur_block = f->nblocks - 1;
            *b = (spv_block){ in->result_id, i + 1, i + 1 };
            f->is_declaration = false;
            m->ids[in->result_id].kind = SPV_ID_LABEL;
            m->ids[in->result_id].func = m->nfuncs - 1;
            break;
        }
        default:
            if (!f)
                break;
            if (cur_block == SPV_NONE) {
                if (in->opcode != SpvOpLine && in->opcode != SpvOpNoLine)
                    return spv_fail(L->diag, "%s: instruction outside a block, expected OpLabel first", where(L));
                break;
            }
            if (in->result_id) {
                spv_id *x = &m->ids[in->result_id];
                x->kind = in->opcode == SpvOpUndef ? SPV_ID_UNDEF : SPV_ID_VALUE;
                x->func = m->nfuncs - 1;
            }
            switch (in->opcode) {
            case SpvOpBranch:
            case SpvOpBranchConditional:
            case SpvOpSwitch:
            case SpvOpReturn:
            case SpvOpReturnValue:
            case SpvOpKill:
            case SpvOpUnreachable:
            case SpvOpTerminateInvocation:
                f->blocks[cur_block].end = i + 1;
                cur_block = SPV_NONE;
                break;
            default:
                break;
            }
        }
    }
    if (f)
        return spv_fail(L->diag, "%s: function %%%u has no OpFunctionEnd (truncated module?)", src(m), f->id);
    return 0;
}

static int build_entry_points(loader *L)
{
    spv_module *m = L->m;
    m->entries = calloc_per_inst(m, SpvOpEntryPoint, sizeof *m->entries);
    if (!m->entries)
        return spv_fail(L->diag, "%s: out of memory", src(m));
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpEntryPoint)
            continue;
        spv_entry_point *e = &m->entries[m->nentries++];
        e->model = in->w[1];
        e->func_id = in->w[2];
        e->name = (const char *)(in->w + 3);
        uint32_t sw = 0;
        while (3 + sw < in->nwords) {
            uint32_t x = in->w[3 + sw++];
            if (!(x & 0xff) || !(x & 0xff00) || !(x & 0xff0000) || !(x & 0xff000000))
                break;
        }
        e->interface = in->w + 3 + sw;
        e->ninterface = in->nwords - 3 - sw;
        e->func = SPV_NONE;
        for (uint32_t f = 0; f < m->nfuncs; f++)
            if (m->funcs[f].id == e->func_id)
                e->func = f;
        if (e->func == SPV_NONE) {
            L->at = in;
            return spv_fail(L->diag, "%s: entry point \"%s\" names %%%u, expected a function", where(L), e->name,
                            e->func_id);
        }
    }
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpExecutionMode && in->opcode != SpvOpExecutionModeId)
            continue;
        for (uint32_t k = 0; k < m->nentries; k++) {
            spv_entry_point *e = &m->entries[k];
            if (e->func_id != in->w[1])
                continue;
            spv_exec_mode *md = UTIL_APPEND(e->modes, e->nmodes);
            if (!md)
                return spv_fail(L->diag, "%s: out of memory", src(m));
            md->mode = in->w[2];
            md->is_id = in->opcode == SpvOpExecutionModeId;
            md->nargs = in->nwords - 3;
            md->args = in->w + 3;
            if (md->nargs >= 3) {
                uint32_t *dst = NULL;
                if (md->mode == SpvExecutionModeLocalSize) {
                    dst = e->local_size;
                    e->has_local_size = true;
                } else if (md->mode == SpvExecutionModeLocalSizeId) {
                    dst = e->local_size_id;
                    e->has_local_size_id = true;
                } else if (md->mode == SpvExecutionModeLocalSizeHint) {
                    dst = e->local_size_hint;
                    e->has_local_size_hint = true;
                }
                if (dst)
                    memcpy(dst, md->args, 3 * sizeof *dst);
            }
        }
    }
    return 0;
}

static int build_model(loader *L)
{
    spv_module *m = L->m;
    m->addressing = SpvAddressingModelLogical;
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        L->at = in;
        const spv_opcode_desc *d = spv_opcode_desc_get(in->opcode);
        spv_id *x = in->result_id ? &m->ids[in->result_id] : NULL;
        switch (in->opcode) {
        case SpvOpCapability:
            if (!UTIL_APPEND(m->caps, m->ncaps))
                return spv_fail(L->diag, "%s: out of memory", src(m));
            m->caps[m->ncaps - 1] = in->w[1];
            if (in->w[1] == SpvCapabilityKernel)
                m->is_kernel = true;
            if (in->w[1] == SpvCapabilityShader)
                m->is_shader = true;
            break;
        case SpvOpExtension:
            if (!UTIL_APPEND(m->extensions, m->nextensions))
                return spv_fail(L->diag, "%s: out of memory", src(m));
            m->extensions[m->nextensions - 1] = (const char *)(in->w + 1);
            break;
        case SpvOpMemoryModel:
            m->addressing = in->w[1];
            m->memory_model = in->w[2];
            break;
        case SpvOpExtInstImport: {
            const char *name = (const char *)(in->w + 2);
            x->kind = SPV_ID_EXT_IMPORT;
            x->ext_set = !strcmp(name, "GLSL.std.450")        ? SPV_EXT_GLSL_STD_450
                         : !strcmp(name, "OpenCL.std")        ? SPV_EXT_OPENCL_STD
                         : !strncmp(name, "NonSemantic.", 12) ? SPV_EXT_NONSEMANTIC
                                                              : SPV_EXT_UNKNOWN;
            break;
        }
        case SpvOpName:
            m->ids[in->w[1]].name = (const char *)(in->w + 2);
            break;
        case SpvOpString:
            x->kind = SPV_ID_STRING;
            break;
        case SpvOpDecorationGroup:
            x->kind = SPV_ID_DECORATION_GROUP;
            break;
        case SpvOpTypeForwardPointer:
            break;
        case SpvOpVariable:
            if (i < m->first_func_inst)
                x->kind = SPV_ID_GLOBAL_VARIABLE;
            break;
        case SpvOpUndef:
            x->kind = SPV_ID_UNDEF;
            break;
        default:
            if (d && d->klass && !strcmp(d->klass, "Type-Declaration") && x) {
                x->kind = SPV_ID_TYPE;
                if (build_type(L, in, x))
                    return -1;
            } else if (d && d->klass && !strcmp(d->klass, "Constant-Creation") && x) {
                bool spec = in->opcode == SpvOpSpecConstant || in->opcode == SpvOpSpecConstantTrue ||
                            in->opcode == SpvOpSpecConstantFalse || in->opcode == SpvOpSpecConstantComposite ||
                            in->opcode == SpvOpSpecConstantOp;
                if (i < m->first_func_inst) {
                    x->kind = spec ? SPV_ID_SPEC_CONSTANT : SPV_ID_CONSTANT;
                    if (build_constant(L, in, x))
                        return -1;
                }
            }
            break;
        }
    }
    return 0;
}

/* Global variables are told apart from function variables by position: find
 * where the function section starts before building the rest. */
static void find_function_section(spv_module *m)
{
    m->first_func_inst = m->ninsts;
    for (uint32_t i = 0; i < m->ninsts; i++)
        if (m->insts[i].opcode == SpvOpFunction) {
            m->first_func_inst = i;
            break;
        }
}

spv_module *spv_module_load(const void *bytes, size_t nbytes, const char *source, const spv_load_options *opts,
                            spv_diag *diag)
{
    spv_module *m = calloc(1, sizeof *m);
    if (!m) {
        spv_fail(diag, "%s: out of memory", source ? source : "<memory>");
        return NULL;
    }
    m->source = strdup(source ? source : "<memory>");
    loader L = { .m = m, .diag = diag };
    if (!m->source || read_header_and_insts(&L, bytes, nbytes) || check_operands(&L))
        goto fail;
    if (!(opts && opts->skip_validation) && !spv_validate_words(m->words, m->nwords, m->source, diag))
        goto fail;
    /* The provisional kinds from check_operands are rebuilt from scratch. */
    for (uint32_t i = 0; i < m->bound; i++) {
        spv_id *x = &m->ids[i];
        spv_id_kind k = x->kind;
        memset(&x->type, 0, sizeof x->type);
        x->kind = k == SPV_ID_TYPE ? SPV_ID_UNUSED : k;
    }
    find_function_section(m);
    if (build_model(&L) || build_functions(&L) || build_decorations(&L) || build_entry_points(&L))
        goto fail;
    return m;
fail:
    spv_module_free(m);
    return NULL;
}

spv_module *spv_module_load_file(const char *path, const spv_load_options *opts, spv_diag *diag)
{
    size_t n = 0;
    void *buf = util_read_file(path, &n);
    if (!buf) {
        spv_fail(diag, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    spv_module *m = spv_module_load(buf, n, path, opts, diag);
    free(buf);
    return m;
}

bool spv_module_words_are(const spv_module *m, const uint32_t *words, size_t nwords)
{
    return nwords == m->nwords && !memcmp(words, m->words, nwords * sizeof *words);
}

void spv_module_free(spv_module *m)
{
    if (!m)
        return;
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        free(m->funcs[f].params);
        free(m->funcs[f].blocks);
    }
    for (uint32_t e = 0; e < m->nentries; e++)
        free(m->entries[e].modes);
    free(m->funcs);
    free(m->entries);
    free(m->decs);
    free(m->caps);
    free(m->extensions);
    free(m->ids);
    free(m->insts);
    free(m->words);
    free((void *)m->source);
    free(m);
}
