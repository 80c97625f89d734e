// wg_lanes.comp — work-group memory read and written at lane offsets that
// are not multiples of the sub-group, by partly active sub-groups: the vector
// code's whole-vector forms (jit/simd_memory.c), checked against C by
// test_api_wg_lanes.c.
//
// LS (SpecId 0) items per group, K (SpecId 1) a shift.  Per group g, item l
// (i = g * LS + l):
//   s[l] = x[i]; t[l] = 3l - 7; t[LS + j] = 1000 + j for j < 7        (barrier)
//   a = (l >= K ? s[l - K] : 0) + (l + K < LS ? s[l + K] : 0)
//       + t[l + 7 - K % 8]                                          (barrier)
//   s[l] = a where l % 3 != 1                                          (barrier)
//   y[i] = s[l] + pad[l % 3]                                           (barrier)
//   tree: for stride = P / 2 .. 1 (P the power of two >= LS), halving,
//         s[l] += s[l + stride] where l < stride and l + stride < LS   (barrier)
//   r[g] = s[0]
// pad[3] comes first, so s starts 12 bytes into the block (not on a vector).
#version 450

layout(constant_id = 0) const uint LS = 64;
layout(constant_id = 1) const uint K = 5;
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Red { float r[]; };

shared float pad[3];
shared float s[LS];
shared int t[LS + 7];

void main()
{
    uint l = gl_LocalInvocationID.x, g = gl_WorkGroupID.x, i = gl_GlobalInvocationID.x;
    if (l < 3u)
        pad[l] = -1.0 - float(l);
    s[l] = x[i];
    t[l] = int(l) * 3 - 7;
    if (l < 7u)
        t[LS + l] = 1000 + int(l);
    barrier();
    float a = (l >= K ? s[l - K] : 0.0) + (l + K < LS ? s[l + K] : 0.0) + float(t[l + 7u - K % 8u]);
    barrier();
    if (l % 3u != 1u)
        s[l] = a;
    barrier();
    y[i] = s[l] + pad[l % 3u];
    barrier();
    uint p = 1u;
    while (p < LS)
        p *= 2u;
    for (uint stride = p / 2u; stride > 0u; stride >>= 1) {
        if (l < stride && l + stride < LS)
            s[l] += s[l + stride];
        barrier();
    }
    if (l == 0u)
        r[g] = s[0];
}
