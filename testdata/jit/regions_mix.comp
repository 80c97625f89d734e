// regions_mix.comp — barriers the region compiler (jit/regions.c) must handle.
// pc.mode 0: a barrier in a loop with values (and a private array) live across
// it, a barrier inside a called function, nested loops with barriers, and an
// inclusive work-group scan (Hillis-Steele).  Modes 1-3 diverge on purpose:
// 1: the upper half of the group returns before a barrier; 2: if/else with a
// barrier in each branch; 3: one work-item (3,0,0) of group 1 returns early.
#version 450

layout(constant_id = 0) const uint LS = 64;
layout(local_size_x_id = 0, local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Scan { uint scan[]; };
layout(push_constant, std430) uniform Params { uint iters; uint m; uint mode; } pc;

shared float sh[LS];
shared uint su[LS];

void sync_group() { barrier(); }

float part_a(uint lid, float x)
{
    float priv[4];
    for (int k = 0; k < 4; k++) priv[k] = x * float(k + 1);
    float acc = x;
    for (uint it = 0u; it < pc.iters; it++) {
        sh[lid] = acc;
        sync_group();
        float left = sh[(lid + LS - 1u) % LS];
        priv[it % 4u] += left;
        barrier();
        acc = acc * 0.5 + left;
    }
    return acc + priv[0] + priv[1] * 2.0 + priv[2] * 3.0 + priv[3] * 4.0;
}

float part_b(uint lid, float v)
{
    for (uint i = 0u; i < 3u; i++) {
        for (uint j = 0u; j < pc.m; j++) {
            sh[lid] = v;
            barrier();
            v += sh[(lid + j + 1u) % LS] * 0.25;
            barrier();
        }
        v *= 0.5;
    }
    return v;
}

uint part_c(uint lid, uint x)
{
    su[lid] = x;
    barrier();
    for (uint off = 1u; off < LS; off *= 2u) {
        uint add = lid >= off ? su[lid - off] : 0u;
        barrier();
        su[lid] += add;
        barrier();
    }
    return su[lid];
}

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint gid = gl_GlobalInvocationID.x;
    if (pc.mode == 1u) {
        if (lid >= LS / 2u) return;
        barrier();
        dst[gid] = 1.0;
        return;
    }
    if (pc.mode == 2u) {
        if ((lid & 1u) == 0u) { barrier(); dst[gid] = 2.0; } else { barrier(); dst[gid] = 3.0; }
        return;
    }
    if (pc.mode == 3u) {
        if (gl_WorkGroupID.x == 1u && lid == 3u) return;
        barrier();
        dst[gid] = 4.0;
        return;
    }
    float x = src[gid];
    dst[gid] = part_b(lid, part_a(lid, x));
    scan[gid] = part_c(lid, floatBitsToUint(x) & 0xFFu);
}
