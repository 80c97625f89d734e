// regions_uniform.comp — work-group uniform values across barriers (the
// divergence analysis of jit/regions.c).  pc.mode 0:
//   - a uniform loop with barriers whose trip count and stride come from push
//     constants; its counter t (stored twice: uniform, one slot for the group)
//     indexes work-group memory;
//   - uniform values stored under varying control, live across barriers (must
//     stay per item): w (an if on the local id), last (a loop whose trip count
//     depends on the local id), flag (stored by one item per iteration of a
//     uniform loop with a barrier);
//   - u: a uniform value chosen by a uniform branch, live across a barrier.
// pc.mode 1 diverges on purpose: f is uniform-valued but stored by item 3 only,
// and only the items with f == pc.b reach the second barrier.
#version 450

layout(constant_id = 0) const uint LS = 64;
layout(local_size_x_id = 0, local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Tag { uint tag[]; };
layout(push_constant, std430) uniform Params { uint iters; uint step; uint a; uint b; uint k; uint mode; } pc;

shared float sh[LS];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint gid = gl_GlobalInvocationID.x;
    if (pc.mode == 1u) {
        uint f = 0u;
        if (lid == 3u) f = pc.b;
        barrier();
        if (f == pc.b) barrier();
        dst[gid] = 1.0;
        return;
    }

    uint w = pc.a;
    if (lid % 3u == 1u) w = pc.b;
    uint last = 7u;
    for (uint j = 0u; j < (lid & 3u); j++) last = pc.a + pc.k;

    float acc = 0.0;
    uint flag = 0u;
    for (uint t = 0u; t < pc.iters * pc.step; t += pc.step) {
        sh[lid] = src[gid] + float(t);
        barrier();
        acc += sh[(lid + t + 1u) % LS];
        if (lid == t / pc.step) flag = pc.b;
        barrier();
    }

    uint u = pc.k;
    if (pc.k > 2u) u = pc.k * 2u;
    barrier();
    dst[gid] = acc;
    tag[gid] = w * 1000000u + last * 1000u + u + flag * 100000000u;
}
