/* spirv/operands.c — grammar-driven operand splitting (see operands.h). */
#include "operands.h"

#include <string.h>
#include <spirv/unified1/spirv.h>

typedef struct walker {
    const uint32_t *w;
    uint32_t nwords;
    uint32_t pos; /* next word */
    spv_operand *out;
    int n, max;
    spv_literal_words_fn width_of;
    void *ud;
    const char *where;
    spv_diag *diag;
    uint32_t switch_width; /* OpSwitch: literal words of the selector */
    uint32_t value_width;  /* OpConstant: literal words of the result type */
} walker;

int spv_operand_is_id(uint8_t kind)
{
    return kind < SPV_OPERAND_KIND_COUNT && spv_operand_kinds[kind].category == SPV_CAT_ID;
}

static int emit(walker *wk, uint8_t kind, uint32_t nw)
{
    if (wk->pos + nw > wk->nwords)
        return spv_fail(wk->diag, "%s: operand %s runs past the end of the instruction", wk->where,
                        spv_operand_kinds[kind].name);
    if (wk->n >= wk->max)
        return spv_fail(wk->diag, "%s: too many operands", wk->where);
    wk->out[wk->n++] = (spv_operand){ kind, (uint16_t)wk->pos, (uint16_t)nw };
    wk->pos += nw;
    return 0;
}

static int operand(walker *wk, uint8_t kind);

/* One enum value, then the parameters its enumerant(s) take. */
static int enum_operand(walker *wk, uint8_t kind)
{
    const spv_operand_kind_desc *k = &spv_operand_kinds[kind];
    uint32_t value = wk->w[wk->pos];
    if (emit(wk, kind, 1))
        return -1;
    if (k->category == SPV_CAT_VALUE_ENUM) {
        const spv_enumerant_desc *e = spv_enumerant_get(kind, value);
        if (!e)
            return spv_fail(wk->diag, "%s: unknown %s value %u", wk->where, k->name, value);
        for (uint8_t i = 0; i < e->nparams; i++)
            if (operand(wk, e->params[i]))
                return -1;
        return 0;
    }
    /* Bit enum: parameters of each set bit, lowest bit first. */
    for (uint32_t bit = 0; bit < 32; bit++) {
        uint32_t mask = 1u << bit;
        if (!(value & mask))
            continue;
        const spv_enumerant_desc *e = spv_enumerant_get(kind, mask);
        if (!e)
            return spv_fail(wk->diag, "%s: unknown %s bit 0x%x", wk->where, k->name, mask);
        for (uint8_t i = 0; i < e->nparams; i++)
            if (operand(wk, e->params[i]))
                return -1;
    }
    return 0;
}

static int string_operand(walker *wk, uint8_t kind)
{
    for (uint32_t i = wk->pos; i < wk->nwords; i++) {
        uint32_t x = wk->w[i];
        if (!(x & 0xff) || !(x & 0xff00) || !(x & 0xff0000) || !(x & 0xff000000))
            return emit(wk, kind, i - wk->pos + 1);
    }
    return spv_fail(wk->diag, "%s: literal string is not NUL-terminated within the instruction", wk->where);
}

static int operand(walker *wk, uint8_t kind)
{
    if (wk->pos >= wk->nwords)
        return spv_fail(wk->diag, "%s: missing operand %s", wk->where, spv_operand_kinds[kind].name);
    switch (kind) {
    case SPV_OPERAND_LiteralString:
        return string_operand(wk, kind);
    case SPV_OPERAND_LiteralContextDependentNumber:
        /* OpConstant / OpSpecConstant value: as many words as the type needs. */
        if (!wk->value_width)
            return spv_fail(wk->diag, "%s: the result type is not a numeric scalar type", wk->where);
        return emit(wk, kind, wk->value_width);
    case SPV_OPERAND_PairLiteralIntegerIdRef:
        if (!wk->switch_width)
            return spv_fail(wk->diag, "%s: the selector is not an integer", wk->where);
        return emit(wk, kind, wk->switch_width + 1);
    case SPV_OPERAND_PairIdRefLiteralInteger:
    case SPV_OPERAND_PairIdRefIdRef:
        return emit(wk, kind, 2);
    case SPV_OPERAND_LiteralSpecConstantOpInteger: {
        /* The opcode, then that opcode's operands without result type and id. */
        uint32_t op = wk->w[wk->pos];
        const spv_opcode_desc *d = spv_opcode_desc_get(op);
        if (!d)
            return spv_fail(wk->diag, "%s: unknown opcode %u in OpSpecConstantOp", wk->where, op);
        if (emit(wk, kind, 1))
            return -1;
        for (uint8_t i = 0; i < d->noperands; i++) {
            const spv_operand_desc *o = &d->operands[i];
            if (o->kind == SPV_OPERAND_IdResultType || o->kind == SPV_OPERAND_IdResult)
                continue;
            if (o->quantifier == SPV_Q_ONE) {
                if (operand(wk, o->kind))
                    return -1;
            } else {
                while (wk->pos < wk->nwords) {
                    if (operand(wk, o->kind))
                        return -1;
                    if (o->quantifier == SPV_Q_OPTIONAL)
                        break;
                }
            }
        }
        return 0;
    }
    default:
        break;
    }
    switch (spv_operand_kinds[kind].category) {
    case SPV_CAT_BIT_ENUM:
    case SPV_CAT_VALUE_ENUM:
        return enum_operand(wk, kind);
    default:
        return emit(wk, kind, 1);
    }
}

int spv_split_operands(const uint32_t *w, uint32_t nwords, spv_literal_words_fn width_of, void *ud, spv_operand *out,
                       int max, const char *where, spv_diag *diag)
{
    uint32_t opcode = w[0] & 0xffff;
    const spv_opcode_desc *d = spv_opcode_desc_get(opcode);
    if (!d)
        return spv_fail(diag, "%s: unknown opcode %u", where, opcode);
    walker wk = { .w = w,
                  .nwords = nwords,
                  .pos = 1,
                  .out = out,
                  .max = max,
                  .width_of = width_of,
                  .ud = ud,
                  .where = where,
                  .diag = diag };
    if ((opcode == SpvOpConstant || opcode == SpvOpSpecConstant) && nwords >= 3)
        wk.value_width = width_of ? width_of(ud, w[1]) : 0;
    if (opcode == SpvOpSwitch && nwords >= 2)
        wk.switch_width = width_of ? width_of(ud, w[1]) : 0;

    for (uint8_t i = 0; i < d->noperands; i++) {
        const spv_operand_desc *o = &d->operands[i];
        if (o->quantifier == SPV_Q_ONE) {
            if (operand(&wk, o->kind))
                return -1;
        } else {
            while (wk.pos < nwords) {
                if (operand(&wk, o->kind))
                    return -1;
                if (o->quantifier == SPV_Q_OPTIONAL)
                    break;
            }
        }
    }
    if (wk.pos != nwords)
        return spv_fail(diag, "%s: %u extra word(s) after the last operand of %s", where, nwords - wk.pos, d->name);
    return wk.n;
}

int spv_operand_id_words(const spv_operand *o, uint32_t *first, uint32_t *last)
{
    if (!spv_operand_is_id(o->kind) && o->kind != SPV_OPERAND_PairIdRefIdRef &&
        o->kind != SPV_OPERAND_PairIdRefLiteralInteger && o->kind != SPV_OPERAND_PairLiteralIntegerIdRef)
        return 0;
    *first = o->word;
    *last = o->word + o->nwords;
    if (o->kind == SPV_OPERAND_PairIdRefLiteralInteger)
        *last = *first + 1;
    else if (o->kind == SPV_OPERAND_PairLiteralIntegerIdRef)
        *first = *last - 1;
    return 1;
}
