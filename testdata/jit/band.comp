// band.comp — a barrier-free 2-D kernel without work-group memory: the range
// loop runs its groups in bands (jit/group_range.h), a row of work-items of
// every group of a row of groups, then the next row.  Local size 16 x 4 x 2.
// Item at global id g, i = g.x + sx * (g.y + sy * g.z), n = sx * sy * sz:
//   inside the image (g.x < sx, g.y < sy):
//     o[4i]     = WorkgroupId (x | y << 10 | z << 20)
//     o[4i + 1] = LocalInvocationId, packed the same way
//     o[4i + 2] = src[j - 1] + 2 src[j] + src[j + 1] (clamped to the row), j = i
//     o[4i + 3] += 1 (atomic: every item exactly once)
//   anywhere: if (i <= n) tail[i] = i + 1 — a guard one too wide, tail
//   holding n elements: the item at i == n (y past the image in the last
//   layer) must not store, its group handed back to the checked code.
#version 450
layout(local_size_x = 16, local_size_y = 4, local_size_z = 2) in;
layout(push_constant) uniform P { uint sx, sy, sz; } pc;
layout(std430, set = 0, binding = 0) readonly buffer S { uint src[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
layout(std430, set = 0, binding = 2) buffer T { uint tail[]; };

uint pack3(uvec3 v) { return v.x | (v.y << 10) | (v.z << 20); }

void main()
{
    uvec3 g = gl_GlobalInvocationID;
    uint i = g.x + pc.sx * (g.y + pc.sy * g.z), n = pc.sx * pc.sy * pc.sz;
    if (g.x < pc.sx && g.y < pc.sy && g.z < pc.sz) {
        uint row = i - g.x;
        uint l = row + uint(clamp(int(g.x) - 1, 0, int(pc.sx) - 1));
        uint r = row + uint(clamp(int(g.x) + 1, 0, int(pc.sx) - 1));
        o[4u * i + 0u] = pack3(gl_WorkGroupID);
        o[4u * i + 1u] = pack3(gl_LocalInvocationID);
        o[4u * i + 2u] = src[l] + 2u * src[i] + src[r];
        atomicAdd(o[4u * i + 3u], 1u);
    }
    if (i <= n)
        tail[i] = i + 1u;
}
