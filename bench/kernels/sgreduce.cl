// sgreduce.cl — work-group reduction through sub-group operations, OpenCL C
// (cl_khr_subgroups), Kernel flavour.  Same computation as sgreduce.comp:
// sub_group_reduce_add per sub-group, sums in scratch[get_sub_group_id()],
// one barrier, work-item 0 adds the get_num_sub_groups() sums in order.  The
// work-group size is the launch's local size and the scratch array a
// __local float * argument of local_size * 4 bytes, as in reduce.cl.
//
// partial[g] = sum of in[g*L .. g*L+L-1] (0 past n), L = get_local_size(0).
// Arguments: 0 src (__global const float *), 1 partial (__global float *),
//            2 n (uint), 3 scratch (__local float *).
// No specialization constants.  Global size ceil(n/L)*L (1-D).
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

__kernel void sgreduce(__global const float *src, __global float *partial, uint n,
                       __local float *scratch)
{
    uint gid = get_global_id(0);
    float t = sub_group_reduce_add(gid < n ? src[gid] : 0.0f);
    if (get_sub_group_local_id() == 0)
        scratch[get_sub_group_id()] = t;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        float acc = 0.0f;
        for (uint i = 0; i < get_num_sub_groups(); i++)
            acc += scratch[i];
        partial[get_group_id(0)] = acc;
    }
}
