// proof.comp — bounds checks memory=robust proves once per row of work-groups
// (jit/guard_versions.h), one access pattern per value of PATTERN (SpecId 0;
// specialized, the other patterns fold away).  Local size 16 x 4; the test
// (test_api_proof.c) dispatches sizes no multiple of it, with buffers of
// exactly the elements the guards allow, and counts the groups handed to the
// checked fallback code.
//   0  2-D, an early return:  if (x >= w || y >= h) return; out[y*w + x] = 2 in[y*w + x]
//   1  a short-circuit guard (glslang: a branch and a phi):
//        out[i] = i < n && i + 1 < n ? in[i + 1] : 0, i = y*w + x, n = w*h
//   2  a sum the guard bounds in part (the matrix multiply's tile load):
//        for t in 0, 16, ...: acc += row < h && t + x < w ? in[row*w + t + x] : 0
//   3  work-group memory over a halving stride and a doubling one (a tree
//        reduction, a scan's offsets), the guards bounding the index: each
//        pixel gets its group's sum plus the prefix sum of its local index
//   4  a guard one too wide: if (i <= n) out[i] = 1, out holding n elements —
//        the groups reaching i = n must not be proven (the store is dropped)
#version 450

layout(local_size_x = 16, local_size_y = 4, local_size_z = 1) in;
layout(constant_id = 0) const int PATTERN = 0;

layout(set = 0, binding = 0, std430) readonly buffer In { float a[]; } src;
layout(set = 0, binding = 1, std430) buffer Out { float a[]; } dst;
layout(push_constant, std430) uniform Params { uint w; uint h; } pc;

shared float s[64];

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    uint w = pc.w, h = pc.h;
    uint lid = gl_LocalInvocationIndex;
    if (PATTERN == 0) {
        if (x >= w || y >= h)
            return;
        dst.a[y * w + x] = 2.0 * src.a[y * w + x];
    } else if (PATTERN == 1) {
        uint i = y * w + x, n = w * h;
        float v = i < n && i + 1 < n ? src.a[i + 1] : 0.0;
        if (i < n)
            dst.a[i] = v;
    } else if (PATTERN == 2) {
        float acc = 0.0;
        for (uint t = 0; t < w; t += 16)
            acc += y < h && t + gl_LocalInvocationID.x < w ? src.a[y * w + t + gl_LocalInvocationID.x] : 0.0;
        if (x < w && y < h)
            dst.a[y * w + x] = acc;
    } else if (PATTERN == 3) {
        uint i = y * w + x;
        bool in_image = x < w && y < h;
        s[lid] = in_image ? src.a[i] : 0.0;
        barrier();
        for (uint stride = 32; stride > 0; stride >>= 1) {
            if (lid < stride)
                s[lid] += s[lid + stride];
            barrier();
        }
        float total = s[0];
        barrier();
        s[lid] = float(lid);
        barrier();
        for (uint off = 1; off < 64; off <<= 1) {
            float v = lid >= off ? s[lid - off] : 0.0;
            barrier();
            s[lid] += v;
            barrier();
        }
        if (in_image)
            dst.a[i] = total + s[lid];
    } else {
        uint i = y * w + x, n = w * h;
        if (i <= n)
            dst.a[i] = 1.0;
    }
}
