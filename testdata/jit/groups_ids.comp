// groups_ids.comp — where each work-item sits, and work-group memory that
// starts from its initializer in every group (GL_EXT_null_initializer: zero).
// Item at global id g writes o[5*i .. 5*i+4], i = g.x + sx * (g.y + sy * g.z):
// WorkgroupId, LocalInvocationId and NumWorkgroups (x | y << 10 | z << 20),
// LocalInvocationIndex, and the value s[index] had before the item wrote it
// (0 in every group: the initializer runs per group).
#version 450
#extension GL_EXT_null_initializer : require
layout(local_size_x = 2, local_size_y = 3, local_size_z = 2) in;
layout(push_constant) uniform P { uint sx, sy; } pc;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
shared uint s[12] = {};

uint pack3(uvec3 v) { return v.x | (v.y << 10) | (v.z << 20); }

void main()
{
    uvec3 g = gl_GlobalInvocationID;
    uint i = g.x + pc.sx * (g.y + pc.sy * g.z);
    uint li = gl_LocalInvocationIndex;
    uint before = s[li];
    s[li] = 1000u + li + 100u * pack3(gl_WorkGroupID); // what a later group must not see
    o[5u * i + 0u] = pack3(gl_WorkGroupID);
    o[5u * i + 1u] = pack3(gl_LocalInvocationID);
    o[5u * i + 2u] = pack3(gl_NumWorkGroups);
    o[5u * i + 3u] = li;
    o[5u * i + 4u] = before;
}
