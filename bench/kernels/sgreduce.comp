// sgreduce.comp — work-group reduction through sub-group operations: each
// work-group sums its WG consecutive input floats (0 past n) and writes one
// partial sum, as reduce.comp does, but each sub-group first adds its
// invocations' values with subgroupAdd (GL_KHR_shader_subgroup_arithmetic),
// the first invocation of each sub-group writes that sum to s[gl_SubgroupID],
// and after one barrier invocation 0 adds the gl_NumSubgroups sums in order.
// The summation order depends on the sub-group size (the implementation's).
//
// WG, the work-group size, is specialization constant 0 (default 256).
// Dispatch: ceil(n/WG) x 1 x 1 work-groups.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0, local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Partial { float partial[]; };
layout(push_constant, std430) uniform Params { uint n; } pc;

shared float s[WG];

void main()
{
    uint gid = gl_GlobalInvocationID.x;
    float t = subgroupAdd(gid < pc.n ? src[gid] : 0.0);
    if (subgroupElect())
        s[gl_SubgroupID] = t;
    barrier();
    if (gl_LocalInvocationID.x == 0) {
        float acc = 0.0;
        for (uint i = 0; i < gl_NumSubgroups; i++)
            acc += s[i];
        partial[gl_WorkGroupID.x] = acc;
    }
}
