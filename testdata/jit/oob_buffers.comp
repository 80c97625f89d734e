#version 450
// Out-of-bounds reads, writes and atomics on storage buffers, a uniform
// buffer and push constants (test_api_memory.c).  Work-item i uses the index
// j = i + off into the storage buffers, (i & 3) + off into the uniform array
// and (i % 3) + off into the push constants' array, off from the push
// constants; with a robust memory mode the accesses outside a binding's range
// read zero or do nothing.
layout(local_size_x = 16) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint s[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Rd { uint r[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Wr { uint w[]; };
layout(std430, set = 0, binding = 3) buffer At { uint a[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Old { uint old[]; };
layout(std430, set = 0, binding = 5) buffer V4 { uvec4 v[]; };
layout(std430, set = 0, binding = 6) writeonly buffer RV { uvec4 rv[]; };
layout(std140, set = 0, binding = 7) uniform U { uvec4 u[4]; };
layout(push_constant) uniform P {
    int off;
    uint pv[3];
} p;
void main()
{
    uint i = gl_GlobalInvocationID.x;
    int j = int(i) + p.off;
    r[3u * i] = s[j];
    r[3u * i + 1u] = u[int(i & 3u) + p.off].y;
    r[3u * i + 2u] = p.pv[int(i % 3u) + p.off];
    w[j] = i + 1u;
    old[i] = atomicAdd(a[j], 1u);
    uvec4 x = v[j];
    rv[i] = x;
    v[j] = x + uvec4(1u);
}
