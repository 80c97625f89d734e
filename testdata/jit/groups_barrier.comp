// groups_barrier.comp — groups_ids.comp with a barrier: the same five words,
// the fifth being s[index] before the item wrote it (0 in every group: the
// initializer runs per group) plus 1 + the index of the next item, read from
// s after the barrier.  An item of the group push constant `bad` returns
// before the barrier when its x is 1: barrier divergence in that group only.
#version 450
#extension GL_EXT_null_initializer : require
layout(local_size_x = 2, local_size_y = 3, local_size_z = 2) in;
layout(push_constant) uniform P { uint sx, sy, bad; } pc;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
shared uint s[12] = {};

uint pack3(uvec3 v) { return v.x | (v.y << 10) | (v.z << 20); }

void main()
{
    uvec3 g = gl_GlobalInvocationID;
    uint i = g.x + pc.sx * (g.y + pc.sy * g.z);
    uint li = gl_LocalInvocationIndex;
    uint before = s[li];
    s[li] = li + 1u;
    if (pack3(gl_WorkGroupID) == pc.bad && gl_LocalInvocationID.x == 1u)
        return;
    barrier();
    o[5u * i + 0u] = pack3(gl_WorkGroupID);
    o[5u * i + 1u] = pack3(gl_LocalInvocationID);
    o[5u * i + 2u] = pack3(gl_NumWorkGroups);
    o[5u * i + 3u] = li;
    o[5u * i + 4u] = before + s[(li + 1u) % 12u];
}
