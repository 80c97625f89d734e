// reduce.cl — work-group tree reduction, OpenCL C, Kernel flavour.  Same
// computation and summation order as reduce.comp, but the work-group size is
// the launch's local size (a power of two) and the scratch array is a
// __local float * kernel argument of local_size * 4 bytes
// (clSetKernelArg(k, 3, local_size * sizeof(float), NULL)).
//
// partial[g] = sum of in[g*L .. g*L+L-1] (0 past n), L = get_local_size(0),
// added pairwise: s[i] += s[i + stride] for stride = L/2, L/4, ..., 1.
// Arguments: 0 src (__global const float *), 1 partial (__global float *),
//            2 n (uint), 3 scratch (__local float *).
// No specialization constants.  Global size ceil(n/L)*L (1-D).

__kernel void reduce(__global const float *src, __global float *partial, uint n,
                     __local float *scratch)
{
    uint lid = get_local_id(0);
    uint gid = get_global_id(0);
    uint lsize = get_local_size(0);
    scratch[lid] = gid < n ? src[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = lsize / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
