/* bench/peers/vk_runner.c — a small Vulkan compute runner, the lavapipe peer.
 *
 * Picks the CPU Vulkan device (VK_PHYSICAL_DEVICE_TYPE_CPU: Mesa's lavapipe;
 * VK_ICD_FILENAMES is pointed at lavapipe's ICD when unset, so the loader does
 * not probe GPU drivers), and for every case: loads the GLSL-built .spv, sets
 * the spec constants through VkSpecializationInfo, creates the pipeline
 * (build_ms), binds host-visible storage buffers and push constants, runs one
 * dispatch + wait (first_ms; lavapipe compiles the shader variant lazily, so
 * this includes code generation), checks the output against the C reference,
 * then times --reps dispatches (submit + fence wait each).
 * lavapipe's worker threads: LP_NUM_THREADS, set from --threads before the
 * device is created.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "bench/peers/bench_util.h"

#define RUNNER "lavapipe"
#define LVP_ICD_GLOB "/usr/share/vulkan/icd.d/lvp_icd.*.json" /* one per architecture */

typedef struct vk_env {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem_props;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    VkCommandPool cmd_pool;
} vk_env;

#define VK_TRY(call)                                                                                                   \
    do {                                                                                                               \
        VkResult vk_try_r = (call);                                                                                    \
        if (vk_try_r != VK_SUCCESS) {                                                                                  \
            fprintf(stderr, "vk_runner: %s failed: VkResult %d\n", #call, (int)vk_try_r);                              \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

/* 0: ready; BENCH_EXIT_SKIP: no CPU Vulkan device; 1: error. */
static int vk_env_init(vk_env *e)
{
    memset(e, 0, sizeof(*e));
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "spvjit-bench-vk_runner",
        .apiVersion = VK_API_VERSION_1_1,
    };
    VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
    VkResult r = vkCreateInstance(&ici, NULL, &e->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED) {
        fprintf(stderr, "vk_runner: no Vulkan driver (vkCreateInstance: VkResult %d)\n", (int)r);
        return BENCH_EXIT_SKIP;
    }
    if (r != VK_SUCCESS) {
        fprintf(stderr, "vk_runner: vkCreateInstance failed: VkResult %d\n", (int)r);
        return 1;
    }
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(e->instance, &count, NULL);
    VkPhysicalDevice devs[16];
    if (count > 16)
        count = 16;
    if (count)
        vkEnumeratePhysicalDevices(e->instance, &count, devs);
    for (uint32_t i = 0; i < count && !e->phys; ++i) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
            e->phys = devs[i];
            e->props = p;
        }
    }
    if (!e->phys) {
        fprintf(stderr, "vk_runner: no CPU Vulkan device (lavapipe: apt-get install mesa-vulkan-drivers)\n");
        return BENCH_EXIT_SKIP;
    }
    vkGetPhysicalDeviceMemoryProperties(e->phys, &e->mem_props);
    VkQueueFamilyProperties qf[16];
    uint32_t nqf = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(e->phys, &nqf, qf);
    e->queue_family = UINT32_MAX;
    for (uint32_t i = 0; i < nqf && e->queue_family == UINT32_MAX; ++i)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            e->queue_family = i;
    if (e->queue_family == UINT32_MAX) {
        fprintf(stderr, "vk_runner: %s has no compute queue\n", e->props.deviceName);
        return 1;
    }
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = e->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
    };
    VK_TRY(vkCreateDevice(e->phys, &dci, NULL, &e->device));
    vkGetDeviceQueue(e->device, e->queue_family, 0, &e->queue);
    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = e->queue_family,
    };
    VK_TRY(vkCreateCommandPool(e->device, &pci, NULL, &e->cmd_pool));
    return 0;
fail:
    return 1;
}

static void vk_env_destroy(vk_env *e)
{
    if (e->device) {
        if (e->cmd_pool)
            vkDestroyCommandPool(e->device, e->cmd_pool, NULL);
        vkDestroyDevice(e->device, NULL);
    }
    if (e->instance)
        vkDestroyInstance(e->instance, NULL);
}

/* One storage buffer in host-visible, coherent memory, mapped for its lifetime. */
typedef struct vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    float *map;
    size_t len; /* floats */
} vk_buffer;

static bool vk_buffer_create(const vk_env *e, size_t len, vk_buffer *b)
{
    memset(b, 0, sizeof(*b));
    b->len = len;
    VkDeviceSize bytes = (VkDeviceSize)(len ? len : 1) * sizeof(float);
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = bytes,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VK_TRY(vkCreateBuffer(e->device, &bci, NULL, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(e->device, b->buffer, &req);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < e->mem_props.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (e->mem_props.memoryTypes[i].propertyFlags & want) == want)
            type = i;
    if (type == UINT32_MAX) {
        fprintf(stderr, "vk_runner: no host-visible coherent memory type\n");
        return false;
    }
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    VK_TRY(vkAllocateMemory(e->device, &mai, NULL, &b->memory));
    VK_TRY(vkBindBufferMemory(e->device, b->buffer, b->memory, 0));
    void *p;
    VK_TRY(vkMapMemory(e->device, b->memory, 0, VK_WHOLE_SIZE, 0, &p));
    b->map = p;
    return true;
fail:
    return false;
}

static void vk_buffer_destroy(const vk_env *e, vk_buffer *b)
{
    if (b->map)
        vkUnmapMemory(e->device, b->memory);
    if (b->buffer)
        vkDestroyBuffer(e->device, b->buffer, NULL);
    if (b->memory)
        vkFreeMemory(e->device, b->memory, NULL);
    memset(b, 0, sizeof(*b));
}

/* Finds the module: --spv-dir/<name>.spv, else <name>.comp.spv (testdata's
 * naming) in the kernel directories. */
static uint32_t *load_spv(const bench_opts *o, const char *name, size_t *words, char *path, size_t path_len)
{
    const char *dirs[3] = { o->spv_dir, o->kernel_dir, o->bench_kernel_dir };
    char file[128];
    for (int i = 0; i < 3; ++i) {
        if (!dirs[i])
            continue;
        snprintf(file, sizeof(file), i == 0 ? "%s.spv" : "%s.comp.spv", name);
        bench_path(path, path_len, dirs[i], file);
        if (access(path, R_OK) != 0)
            continue;
        size_t len;
        char *bytes = bench_read_file(path, &len);
        if (!bytes)
            return NULL;
        if (len == 0 || len % 4 != 0) {
            fprintf(stderr, "vk_runner: %s: %zu bytes is not a whole number of SPIR-V words\n", path, len);
            free(bytes);
            return NULL;
        }
        uint32_t *code = malloc(len);
        if (!code)
            exit(2);
        memcpy(code, bytes, len); /* SPIR-V words must be 4-byte aligned */
        free(bytes);
        *words = len / 4;
        return code;
    }
    fprintf(stderr, "vk_runner: no %s.spv in --spv-dir nor %s.comp.spv in %s, %s\n", name, name, o->kernel_dir,
            o->bench_kernel_dir);
    return NULL;
}

/* Everything one case creates, so one cleanup path frees it. */
typedef struct vk_case {
    vk_buffer buf[3];
    VkShaderModule module;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipe_layout;
    VkPipeline pipeline;
    VkDescriptorPool desc_pool;
    VkDescriptorSet set;
    VkCommandBuffer cmd;
    VkFence fence;
} vk_case;

static void vk_case_destroy(const vk_env *e, vk_case *k)
{
    VkDevice d = e->device;
    if (k->fence)
        vkDestroyFence(d, k->fence, NULL);
    if (k->cmd)
        vkFreeCommandBuffers(d, e->cmd_pool, 1, &k->cmd);
    if (k->desc_pool)
        vkDestroyDescriptorPool(d, k->desc_pool, NULL);
    if (k->pipeline)
        vkDestroyPipeline(d, k->pipeline, NULL);
    if (k->pipe_layout)
        vkDestroyPipelineLayout(d, k->pipe_layout, NULL);
    if (k->set_layout)
        vkDestroyDescriptorSetLayout(d, k->set_layout, NULL);
    if (k->module)
        vkDestroyShaderModule(d, k->module, NULL);
    for (int i = 0; i < 3; ++i)
        vk_buffer_destroy(e, &k->buf[i]);
}

/* Restores the buffers' initial contents (outputs to zero), or with
 * each_run only those bench_buffer_reset_each_run names: untimed. */
static void reset_buffers(const bench_launch *L, vk_case *k, bool each_run)
{
    for (int i = 0; i < L->nbuf; ++i) {
        if (each_run && !bench_buffer_reset_each_run(&L->buf[i]))
            continue;
        if (L->buf[i].init)
            memcpy(k->buf[i].map, L->buf[i].init, sizeof(float) * L->buf[i].len);
        else
            memset(k->buf[i].map, 0, sizeof(float) * L->buf[i].len);
    }
}

static bool submit_and_wait(const vk_env *e, vk_case *k, double *ms)
{
    VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &k->cmd };
    double t0 = bench_now_ms();
    VK_TRY(vkQueueSubmit(e->queue, 1, &si, k->fence));
    VK_TRY(vkWaitForFences(e->device, 1, &k->fence, VK_TRUE, UINT64_MAX));
    *ms = bench_now_ms() - t0;
    VK_TRY(vkResetFences(e->device, 1, &k->fence));
    return true;
fail:
    return false;
}

static bool run_case(const vk_env *e, const bench_opts *o, const bench_case *c)
{
    const bench_data *d = bench_data_for(c, &o->sizes);
    bench_launch L;
    bench_launch_for(c, &o->sizes, d, &L);
    vk_case k;
    memset(&k, 0, sizeof(k));
    bool ok = false;
    double build_ms = 0, first_ms = 0;
    bench_stats st = { 0, 0, 0 };
    double *ms = NULL;
    uint32_t *code = NULL;
    size_t words = 0;
    char path[512];

    if ((uint64_t)L.local[0] * L.local[1] > e->props.limits.maxComputeWorkGroupInvocations) {
        fprintf(stderr, "vk_runner: %s %s: local size %ux%u exceeds the device's %u invocations\n", c->name, c->variant,
                L.local[0], L.local[1], e->props.limits.maxComputeWorkGroupInvocations);
        goto fail;
    }
    code = load_spv(o, c->name, &words, path, sizeof(path));
    if (!code)
        goto fail;
    for (int i = 0; i < L.nbuf; ++i)
        if (!vk_buffer_create(e, L.buf[i].len, &k.buf[i]))
            goto fail;

    VkDescriptorSetLayoutBinding binds[3];
    for (int i = 0; i < L.nbuf; ++i)
        binds[i] = (VkDescriptorSetLayoutBinding){
            .binding = (uint32_t)i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo dslci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = (uint32_t)L.nbuf,
        .pBindings = binds,
    };
    VK_TRY(vkCreateDescriptorSetLayout(e->device, &dslci, NULL, &k.set_layout));
    VkPushConstantRange pcr = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .offset = 0,
        .size = (uint32_t)(sizeof(uint32_t) * (size_t)L.npush),
    };
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &k.set_layout,
        .pushConstantRangeCount = L.npush ? 1 : 0,
        .pPushConstantRanges = &pcr,
    };
    VK_TRY(vkCreatePipelineLayout(e->device, &plci, NULL, &k.pipe_layout));

    VkSpecializationMapEntry entries[9];
    uint32_t spec_data[9];
    for (int i = 0; i < L.nspec; ++i) {
        entries[i] = (VkSpecializationMapEntry){
            .constantID = L.spec[i].id,
            .offset = (uint32_t)(sizeof(uint32_t) * (size_t)i),
            .size = sizeof(uint32_t),
        };
        spec_data[i] = L.spec[i].bits;
    }
    VkSpecializationInfo spec = {
        .mapEntryCount = (uint32_t)L.nspec,
        .pMapEntries = entries,
        .dataSize = sizeof(uint32_t) * (size_t)L.nspec,
        .pData = spec_data,
    };
    /* build: shader module + pipeline (no pipeline cache) */
    double t0 = bench_now_ms();
    VkShaderModuleCreateInfo smci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = words * 4,
        .pCode = code,
    };
    VK_TRY(vkCreateShaderModule(e->device, &smci, NULL, &k.module));
    VkComputePipelineCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = k.module,
            .pName = "main",
            .pSpecializationInfo = L.nspec ? &spec : NULL,
        },
        .layout = k.pipe_layout,
    };
    VK_TRY(vkCreateComputePipelines(e->device, VK_NULL_HANDLE, 1, &cpci, NULL, &k.pipeline));
    build_ms = bench_now_ms() - t0;

    VkDescriptorPoolSize dps = { .type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = (uint32_t)L.nbuf };
    VkDescriptorPoolCreateInfo dpci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 1,
        .poolSizeCount = 1,
        .pPoolSizes = &dps,
    };
    VK_TRY(vkCreateDescriptorPool(e->device, &dpci, NULL, &k.desc_pool));
    VkDescriptorSetAllocateInfo dsai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = k.desc_pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &k.set_layout,
    };
    VK_TRY(vkAllocateDescriptorSets(e->device, &dsai, &k.set));
    VkDescriptorBufferInfo dbi[3];
    VkWriteDescriptorSet wds[3];
    for (int i = 0; i < L.nbuf; ++i) {
        dbi[i] = (VkDescriptorBufferInfo){ .buffer = k.buf[i].buffer, .offset = 0, .range = VK_WHOLE_SIZE };
        wds[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = k.set,
            .dstBinding = (uint32_t)i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &dbi[i],
        };
    }
    vkUpdateDescriptorSets(e->device, (uint32_t)L.nbuf, wds, 0, NULL);

    /* one command buffer, recorded once, submitted for every run */
    VkCommandBufferAllocateInfo cbai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = e->cmd_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_TRY(vkAllocateCommandBuffers(e->device, &cbai, &k.cmd));
    VkCommandBufferBeginInfo cbbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    VK_TRY(vkBeginCommandBuffer(k.cmd, &cbbi));
    vkCmdBindPipeline(k.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
    vkCmdBindDescriptorSets(k.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipe_layout, 0, 1, &k.set, 0, NULL);
    if (L.npush)
        vkCmdPushConstants(k.cmd, k.pipe_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, pcr.size, L.push);
    vkCmdDispatch(k.cmd, L.groups[0], L.groups[1], 1);
    /* make the shader's writes visible to the host mapping */
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(k.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                         NULL);
    VK_TRY(vkEndCommandBuffer(k.cmd));
    VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    VK_TRY(vkCreateFence(e->device, &fci, NULL, &k.fence));

    /* first run: checked, not timed into the median */
    reset_buffers(&L, &k, false);
    if (!submit_and_wait(e, &k, &first_ms))
        goto fail;
    char why[256];
    for (int i = 0; i < L.nbuf; ++i)
        if (L.buf[i].ref_index >= 0 && !bench_check(c, d, L.buf[i].ref_index, k.buf[i].map, why, sizeof(why))) {
            fprintf(stderr, "vk_runner: check failed (%s): %s\n", path, why);
            goto fail;
        }
    ms = malloc(sizeof(double) * (size_t)o->reps);
    if (!ms)
        exit(2);
    for (int r = 0; r < o->reps; ++r) {
        reset_buffers(&L, &k, true);
        if (!submit_and_wait(e, &k, &ms[r]))
            goto fail;
    }
    st = bench_stats_of(ms, o->reps);
    ok = true;
fail:
    bench_print_result(o, c, RUNNER, st, build_ms, first_ms, ok);
    free(ms);
    free(code);
    vk_case_destroy(e, &k);
    return ok;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_parse_args(argc, argv, RUNNER, &o);
    /* Before the driver loads: lavapipe reads these when its device is created. */
    char threads[16];
    snprintf(threads, sizeof(threads), "%d", o.threads);
    setenv("LP_NUM_THREADS", threads, 1);
    glob_t icd;
    if (glob(LVP_ICD_GLOB, 0, NULL, &icd) == 0) {
        bench_setenv_default("VK_ICD_FILENAMES", icd.gl_pathv[0]);
        globfree(&icd);
    }

    vk_env e;
    int rc = vk_env_init(&e);
    if (rc != 0) {
        vk_env_destroy(&e);
        return rc;
    }
    fprintf(stderr, "vk_runner: %s, LP_NUM_THREADS=%s\n", e.props.deviceName, threads);
    bool all_ok = true;
    const bench_case *first = bench_first_selected(&o);
    if (first) {
        bench_opts warm = bench_warmup_opts(&o);
        all_ok &= run_case(&e, &warm, first);
    }
    for (size_t i = 0; i < bench_case_count; ++i)
        if (bench_selected(&o, &bench_cases[i]))
            all_ok &= run_case(&e, &o, &bench_cases[i]);
    bench_data_release();
    vk_env_destroy(&e);
    return all_ok ? 0 : 1;
}
