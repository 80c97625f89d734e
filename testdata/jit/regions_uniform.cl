// regions_uniform.cl — a uniform loop with barriers whose trip count and stride
// are kernel arguments; its counter indexes local memory.  The local size is
// 16 (at most: the last group of an NDRange not divisible by 16 is smaller).
kernel void regions_uniform(global const float *src, global float *dst, uint iters, uint step)
{
    local float sh[16];
    uint lid = get_local_id(0), gid = get_global_id(0), ls = get_local_size(0);
    float acc = 0.0f;
    for (uint t = 0; t < iters * step; t += step) {
        sh[lid] = src[gid] + (float)t;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += sh[(lid + t + 1) % ls];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    dst[gid] = acc;
}
