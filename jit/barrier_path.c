/* jit/barrier_path.c — regions or fibers, and why (see barrier_path.h). */
#include "barrier_path.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barrier_intrinsic.h"
#include "kernel_internal.h"
#include "llvm_facts.h"
#include "region_loops.h"
#include "regions.h"
#include "sg_marker.h"
#include "simd.h"
#include "slots.h"
#include "uniformity.h"

static void say(jit_barrier_path *path, jit_barrier_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(jit_barrier_path *path, jit_barrier_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    path->kind = kind;
    vsnprintf(path->why, sizeof path->why, fmt, ap);
    va_end(ap);
}

/* How the work-items of a group run, for the first line. */
static void say_simd(jit_barrier_path *path, unsigned asked, unsigned width, const char *why)
{
    path->subgroup_size = width;
    if (width > 1) /* why: regions run work-item by work-item (region_loops.c) */
        snprintf(path->simd, sizeof path->simd, "sub-groups of %u work-items as SIMD lanes%s%s", width,
                 *why ? ", " : "", why);
    else if (asked > 1)
        snprintf(path->simd, sizeof path->simd, "work-items one at a time (sub-groups of 1): %s", why);
    else
        snprintf(path->simd, sizeof path->simd, "work-items one at a time (sub-groups of 1)");
}

/* Sub-group markers across the work-group: the size is the same in every
 * sub-group (a value computed from it alone needs one slot per group, not
 * one per item); every other marker may differ between sub-groups.  The
 * proof's flag (JIT_GROUP_PROVEN) is the group's. */
static int group_uniform_marker(void *user, const jit_uniformity *u, LLVMValueRef call)
{
    (void)user;
    (void)u;
    if (jit_is_group_proven(call))
        return 0; /* the proof's flag: one value for the group */
    jit_sg_kind k = jit_sg_decode(call).kind;
    return k == JIT_SG_NONE ? -1 : k != JIT_SG_SIZE;
}

/* The regions of spvjit.item.in.group: 0 built, 1 not possible (msg says why), -1 failed (msg). */
static int try_regions(lower_ctx *c, uint32_t nitems, char *msg, jit_barrier_path *path)
{
    LLVMValueRef item = LLVMGetNamedFunction(c->mod, JIT_SYM_ITEM_IN_GROUP);
    if (!item || LLVMGetNamedFunction(c->mod, JIT_SYM_WG_RANGE)) {
        snprintf(msg, JIT_REGIONS_MSG, "internal error: barrier regions: no %s, or a %s already", JIT_SYM_ITEM_IN_GROUP,
                 JIT_SYM_WG_RANGE);
        return -1;
    }
    int rc = jit_regions_prepare(c->mod, item, c->quick, msg);
    if (rc)
        return rc;
    jit_regions rg;
    jit_uniformity *u = NULL;
    jit_slot_plan plan = { 0 };
    char simd_why[JIT_SIMD_MSG] = "";
    unsigned asked = c->simd_width, width = c->simd_narrow ? jit_simd_width(c, asked, simd_why) : asked;
    rc = jit_regions_find(&rg, item, c->kernel, msg);
    if (!rc) {
        /* ctx, lx, ly, lz, the group's size and WorkgroupId */
        const bool varies[10] = { false, true, true, true, false, false, false, false, false, false };
        jit_uniformity_config uc = { .param_varies = varies,
                                     .memory = JIT_MEMORY_ITEMS_IN_SEQUENCE,
                                     .read_only = jit_item_read_only,
                                     .call_varying = group_uniform_marker,
                                     .user = &rg };
        if (jit_uniformity_run(&u, &rg.cfg, &uc)) {
            snprintf(msg, JIT_REGIONS_MSG, "out of memory");
            rc = -1;
        }
    }
    if (!rc)
        rc = jit_slots_plan(&plan, &rg, u, c->td, nitems, msg);
    if (!rc)
        rc = jit_region_loops_emit(c, &rg, u, &plan, &width, simd_why, msg);
    if (!rc) {
        /* no barrier call is left outside the item function after inlining; should
         * one be, it keeps the meaning it had: the declaration goes */
        jit_barriers_to_fibers(c);
        say(path, JIT_BARRIERS_REGIONS,
            "barriers compiled into %u region loops (%u barrier site%s; %u per-item slot%s and next[]: %llu bytes "
            "per group)",
            rg.nresume + 1, c->nbarriers, c->nbarriers == 1 ? "" : "s", plan.item_slots,
            plan.item_slots == 1 ? "" : "s", (unsigned long long)plan.item_bytes);
        say_simd(path, asked, width, simd_why);
    }
    jit_slots_free(&plan);
    jit_uniformity_free(u);
    jit_regions_free(&rg);
    return rc;
}

static int choose(lower_ctx *c, jit_barrier_mode mode, jit_barrier_path *path)
{
    if (!c->uses_barriers) { /* the range is built: c->simd_width is what it got */
        say(path, JIT_BARRIERS_NONE, "no work-group barriers: %s loops over the work-items", JIT_SYM_WG_RANGE);
        say_simd(path, *c->simd_why ? 2 : c->simd_width, c->simd_width, c->simd_why);
        return 0;
    }
    say_simd(path, c->simd_width, 1, "barriers on fibers");
    uint64_t n = (uint64_t)c->local_size[0] * c->local_size[1] * c->local_size[2];
    char why[JIT_REGIONS_MSG + 64] = "";
    if (mode == JIT_BARRIER_MODE_FIBERS) {
        snprintf(why, sizeof why, "asked for (the barriers option, SPVJIT_BARRIERS=fibers)");
    } else if (!c->ls_known) {
        snprintf(why, sizeof why, "the local size is not known at compile time");
    } else if (n > JIT_REGIONS_MAX_ITEMS) {
        snprintf(why, sizeof why, "%llu work-items per group (regions take at most %u)", (unsigned long long)n,
                 JIT_REGIONS_MAX_ITEMS);
    } else {
        char msg[JIT_REGIONS_MSG] = "";
        int rc = try_regions(c, (uint32_t)n, msg, path);
        if (rc < 0)
            return jit_fail(c, "%s", msg);
        if (rc == 0)
            return jit_verify(c);
        /* spvjit.item.in.group may have been inlined and demoted meanwhile: still the same function */
        snprintf(why, sizeof why, "no barrier regions: %s", msg);
    }
    if (mode == JIT_BARRIER_MODE_REGIONS)
        return jit_fail(c, "entry point %s: barriers = regions, but its barriers cannot be compiled into regions: %s",
                        c->ep ? c->ep->name : "(none)", why);
    say(path, JIT_BARRIERS_FIBERS, "barriers on fibers: %s", why);
    jit_barriers_to_fibers(c);
    jit_group_proven_is(c, false); /* the fibers run every check (the range loop proves nothing for them) */
    jit_build_fiber_item(c);
    return jit_verify(c);
}

int jit_choose_barrier_path(lower_ctx *c, jit_barrier_mode mode, jit_barrier_path *path)
{
    int rc = choose(c, mode, path);
    jit_sg_lower_scalar(c->mod);   /* what the vectorizer did not take: sub-groups of one */
    jit_group_proven_is(c, false); /* a flag the regions did not give a value keeps its checks */
    return rc;
}

char *jit_barrier_path_note(const jit_barrier_path *path, const char *comment, char *text)
{
    if (!text)
        return NULL;
    size_t n = strlen(comment) + strlen(path->why) + strlen(path->simd) + strlen(text) + 16;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s spvjit: %s; %s\n%s", comment, path->why, path->simd, text);
    free(text);
    return s;
}
