// scan.cl — work-group inclusive prefix scan (Hillis–Steele), OpenCL C,
// Kernel flavour.  Same computation and step order as scan.comp, but the
// work-group size is the launch's local size (a power of two) and the scratch
// array is a __local float * argument of local_size * 4 bytes
// (clSetKernelArg(k, 4, local_size * sizeof(float), NULL)).
//
// dst[g*L + l] = src[g*L] + ... + src[g*L + l] (for g*L + l < n), sums[g] = the
// group's total, L = get_local_size(0).
// Arguments: 0 src (__global const float *), 1 dst, 2 sums (__global float *),
//            3 n (uint), 4 scratch (__local float *).
// No specialization constants.  Global size ceil(n/L)*L (1-D).

__kernel void scan(__global const float *src, __global float *dst, __global float *sums,
                   uint n, __local float *s)
{
    uint lid = get_local_id(0);
    uint gid = get_global_id(0);
    uint lsize = get_local_size(0);
    s[lid] = gid < n ? src[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < lsize; off <<= 1) {
        float v = lid >= off ? s[lid - off] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);  // every read of this step before any write
        s[lid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n)
        dst[gid] = s[lid];
    if (lid == lsize - 1)
        sums[get_group_id(0)] = s[lid];
}
