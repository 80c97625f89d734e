// scan.comp — work-group inclusive prefix scan (Hillis–Steele), barrier-heavy.
//
// Each work-group scans its WG consecutive input floats (0 past n):
//   dst[g*WG + l] = src[g*WG] + ... + src[g*WG + l]      (for g*WG + l < n)
//   sums[g]       = the group's total
// in log2(WG) steps; step `off` adds s[l - off] to s[l] (l >= off), with a
// barrier before and after the update: 2*log2(WG) + 1 barriers per group.
// WG, the work-group size, is specialization constant 0 (default 256, a power
// of two); it sizes the work-group array too.
// Dispatch: ceil(n/WG) x 1 x 1 work-groups.
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0, local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Sums { float sums[]; };
layout(push_constant, std430) uniform Params { uint n; } pc;

shared float s[WG];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint gid = gl_GlobalInvocationID.x;
    s[lid] = gid < pc.n ? src[gid] : 0.0;
    barrier();
    for (uint off = 1; off < WG; off <<= 1) {
        float v = lid >= off ? s[lid - off] : 0.0;
        barrier();  // every read of this step before any write
        s[lid] += v;
        barrier();
    }
    if (gid < pc.n)
        dst[gid] = s[lid];
    if (lid == WG - 1)
        sums[gl_WorkGroupID.x] = s[lid];
}
