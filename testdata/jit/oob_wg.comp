#version 450
// Out-of-range indices into a work-group array and a Function array
// (test_api_memory.c): item l writes t[l + off] and pv[(l & 3) + off], then
// reads both arrays at its own and at the shifted index.
layout(local_size_x = 16) in;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint o[]; };
layout(push_constant) uniform P { int off; } p;
shared uint t[16];
void main()
{
    uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationID.x;
    int k = int(l) + p.off;
    int q = int(l & 3u) + p.off;
    uint pv[4] = uint[4](i, i + 1000u, i + 2000u, i + 3000u);
    pv[q] = 7u;
    t[l] = 0u;
    barrier();
    t[k] = i + 1u;
    barrier();
    o[4u * i] = t[l];
    o[4u * i + 1u] = t[k];
    o[4u * i + 2u] = pv[l & 3u];
    o[4u * i + 3u] = pv[q];
}
