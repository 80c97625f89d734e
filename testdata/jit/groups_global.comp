// groups_global.comp — a 1-D-local kernel that only asks for its global id,
// dispatched 1-D, 2-D and 3-D with base groups:
// o[i] = 1 + g.x + 1000 * g.y + 100000 * g.z + 2 * x[i], i = g.x + sx * (g.y + sy * g.z).
#version 450
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint sx, sy; } pc;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { uint x[]; };

void main()
{
    uvec3 g = gl_GlobalInvocationID;
    uint i = g.x + pc.sx * (g.y + pc.sy * g.z);
    o[i] = 1u + g.x + 1000u * g.y + 100000u * g.z + 2u * x[i];
}
