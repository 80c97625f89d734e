/* lib/api_bind.c — binding buffers, push constants and kernel arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

static const char *src(const spvjit_kernel *k)
{
    return k->module->m->source;
}
static const char *ename(const spvjit_kernel *k)
{
    return k->entry->e->name;
}

/* --- Shader flavour --------------------------------------------------------- */

const char *api_resource_name(const spvjit_kernel *k, uint32_t set, uint32_t binding, const char *jit_name)
{
    if (jit_name && *jit_name)
        return jit_name;
    /* glslang leaves block instances unnamed: the reflection falls back to the block's type name. */
    const api_entry_info *ei = k->entry;
    for (int i = 0; i < ei->nres; i++) {
        const spv_resource *r = &ei->res[i];
        if ((r->kind == SPV_RES_STORAGE_BUFFER || r->kind == SPV_RES_UNIFORM_BUFFER) && r->set == set &&
            r->binding == binding && r->name && *r->name)
            return r->name;
    }
    return "unnamed";
}

static spvjit_status need_shader(const spvjit_kernel *k, const char *fn)
{
    if (!k)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: the kernel is NULL", fn);
    if (k->module->m->is_kernel)
        return api_fail(SPVJIT_ERROR_BINDING,
                        "%s: \"%s\" is a Kernel-flavour (OpenCL) entry point; set its "
                        "arguments with spvjit_set_arg_buffer/value/local",
                        src(k), ename(k));
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_bind_buffer_element(spvjit_kernel *k, uint32_t set, uint32_t binding, uint32_t element,
                                                    void *data, size_t bytes)
{
    spvjit_status st = need_shader(k, "spvjit_bind_buffer");
    if (st != SPVJIT_OK)
        return st;
    const spvjit_kernel_facts *f = k->compiled->facts;
    const spvjit_resource *r = NULL;
    for (uint32_t i = 0; i < f->nresources && !r; i++)
        if (f->resources[i].set == set && f->resources[i].binding == binding)
            r = &f->resources[i];
    if (!r) {
        char list[1024] = "";
        size_t n = 0;
        for (uint32_t i = 0; i < f->nresources && n < sizeof list; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%u/%u", i ? ", " : "", f->resources[i].set,
                                  f->resources[i].binding);
        return api_fail(SPVJIT_ERROR_BINDING,
                        "%s: entry point \"%s\" has no buffer at set %u binding %u; "
                        "its set/bindings are: %s",
                        src(k), ename(k), set, binding, *list ? list : "none");
    }
    const char *name = api_resource_name(k, set, binding, r->name);
    if (element >= r->array_count)
        return api_fail(SPVJIT_ERROR_BINDING,
                        "%s: set %u binding %u (%s) has %u element%s; element %u "
                        "does not exist",
                        src(k), set, binding, name, r->array_count, r->array_count == 1 ? "" : "s", element);
    if (!data)
        return api_fail(SPVJIT_ERROR_BINDING, "%s: set %u binding %u (%s): the buffer pointer is NULL", src(k), set,
                        binding, name);
    pthread_mutex_lock(&k->lock);
    k->slots[r->slot + element] = (api_slot){ .bound = true, .ptr = data, .bytes = bytes };
    pthread_mutex_unlock(&k->lock);
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_bind_buffer(spvjit_kernel *k, uint32_t set, uint32_t binding, void *data, size_t bytes)
{
    return spvjit_bind_buffer_element(k, set, binding, 0, data, bytes);
}

SPVJIT_API spvjit_status spvjit_set_push_constants(spvjit_kernel *k, const void *data, size_t bytes)
{
    spvjit_status st = need_shader(k, "spvjit_set_push_constants");
    if (st != SPVJIT_OK)
        return st;
    if (!data && bytes)
        return api_fail(SPVJIT_ERROR_BINDING, "%s: push constants: data is NULL", src(k));
    /* Copied, as vkCmdPushConstants does: the caller's block may go away. */
    unsigned char *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    if (bytes)
        memcpy(copy, data, bytes);
    pthread_mutex_lock(&k->lock);
    free(k->push);
    k->push = copy;
    k->push_bytes = bytes;
    pthread_mutex_unlock(&k->lock);
    return SPVJIT_OK;
}

/* --- Kernel flavour ------------------------------------------------------------ */

static const char *kind_name(api_arg_kind kind)
{
    switch (kind) {
    case API_ARG_POINTER:
        return "global pointer argument (use spvjit_set_arg_buffer)";
    case API_ARG_LOCAL:
        return "local pointer argument (use spvjit_set_arg_local)";
    default:
        return "by-value argument (use spvjit_set_arg_value)";
    }
}

/* The argument `index` if it is of kind `want`, else NULL with the error set. */
static api_kernel_arg *arg_of(spvjit_kernel *k, uint32_t index, api_arg_kind want, const char *fn, spvjit_status *st)
{
    *st = SPVJIT_OK;
    if (!k) {
        *st = api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: the kernel is NULL", fn);
        return NULL;
    }
    if (!k->module->m->is_kernel) {
        *st = api_fail(SPVJIT_ERROR_BINDING,
                       "%s: \"%s\" is a Shader-flavour (Vulkan) entry point; bind its "
                       "buffers with spvjit_bind_buffer and spvjit_set_push_constants",
                       src(k), ename(k));
        return NULL;
    }
    if (index >= k->nargs) {
        *st = api_fail(SPVJIT_ERROR_BINDING, "%s: kernel \"%s\" has %u argument%s; there is no argument %u", src(k),
                       ename(k), k->nargs, k->nargs == 1 ? "" : "s", index);
        return NULL;
    }
    api_kernel_arg *a = &k->args[index];
    if (a->kind != want) {
        *st = api_fail(SPVJIT_ERROR_BINDING, "%s: kernel \"%s\" argument %u (%s) is a %s; %s does not apply", src(k),
                       ename(k), index, a->name ? a->name : "unnamed", kind_name(a->kind), fn);
        return NULL;
    }
    return a;
}

SPVJIT_API spvjit_status spvjit_set_arg_buffer(spvjit_kernel *k, uint32_t index, void *data, size_t bytes)
{
    spvjit_status st;
    api_kernel_arg *a = arg_of(k, index, API_ARG_POINTER, "spvjit_set_arg_buffer", &st);
    if (!a)
        return st;
    /* NULL is a valid global pointer argument (OpenCL allows it); with every
     * access checked (memory robust or check) any size is (OpenCL sets no
     * rule, the kernel's accesses are what must fit) */
    if (data && a->size && bytes < a->size && !api_small_buffers_ok(k))
        return api_fail(SPVJIT_ERROR_BINDING,
                        "%s: kernel \"%s\" argument %u (%s): the buffer is %zu bytes, "
                        "less than one %llu-byte element",
                        src(k), ename(k), index, a->name ? a->name : "unnamed", bytes, (unsigned long long)a->size);
    pthread_mutex_lock(&k->lock);
    a->ptr = data;
    a->bytes = data ? bytes : 0;
    a->set = true;
    pthread_mutex_unlock(&k->lock);
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_set_arg_value(spvjit_kernel *k, uint32_t index, const void *value, size_t bytes)
{
    spvjit_status st;
    api_kernel_arg *a = arg_of(k, index, API_ARG_VALUE, "spvjit_set_arg_value", &st);
    if (!a)
        return st;
    if (bytes != a->size)
        return api_fail(SPVJIT_ERROR_BINDING, "%s: kernel \"%s\" argument %u (%s) is %llu bytes; %zu given", src(k),
                        ename(k), index, a->name ? a->name : "unnamed", (unsigned long long)a->size, bytes);
    if (!value)
        return api_fail(SPVJIT_ERROR_BINDING, "%s: kernel \"%s\" argument %u (%s): value is NULL", src(k), ename(k),
                        index, a->name ? a->name : "unnamed");
    pthread_mutex_lock(&k->lock);
    memcpy(a->value, value, bytes);
    a->set = true;
    pthread_mutex_unlock(&k->lock);
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_set_arg_local(spvjit_kernel *k, uint32_t index, size_t bytes)
{
    spvjit_status st;
    api_kernel_arg *a = arg_of(k, index, API_ARG_LOCAL, "spvjit_set_arg_local", &st);
    if (!a)
        return st;
    if (bytes == 0 || bytes > ((size_t)1 << 32))
        return api_fail(SPVJIT_ERROR_BINDING,
                        "%s: kernel \"%s\" argument %u (%s): local memory size %zu is "
                        "not 1 to 2^32 bytes",
                        src(k), ename(k), index, a->name ? a->name : "unnamed", bytes);
    pthread_mutex_lock(&k->lock);
    a->bytes = bytes;
    a->set = true;
    pthread_mutex_unlock(&k->lock);
    return SPVJIT_OK;
}
