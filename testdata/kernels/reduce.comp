// reduce.comp — work-group tree reduction: each work-group sums its WG
// consecutive input floats (0 past n) and writes one partial sum.
//
// WG, the work-group size, is specialization constant 0 (default 256, must be
// a power of two); it sizes the work-group array too (a spec-constant length).
// partial[g] = sum of in[g*WG .. g*WG+WG-1], added pairwise in the tree order
//   s[i] += s[i + stride] for stride = WG/2, WG/4, ..., 1.
// Dispatch: ceil(n/WG) x 1 x 1 work-groups.
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0, local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Partial { float partial[]; };
layout(push_constant, std430) uniform Params { uint n; } pc;

shared float s[WG];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint gid = gl_GlobalInvocationID.x;
    s[lid] = gid < pc.n ? src[gid] : 0.0;
    barrier();
    for (uint stride = WG / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            s[lid] += s[lid + stride];
        barrier();
    }
    if (lid == 0)
        partial[gl_WorkGroupID.x] = s[0];
}
