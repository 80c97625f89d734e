// regions_partial.cl — a barrier kernel run with a smaller last work-group
// (global size not a multiple of the local size): each work-item sums the
// values of its group (its actual size, get_local_size), then the group's
// slots are written in reverse order through local memory.
kernel void regions_partial(global const float *src, global float *dst, local float *tmp)
{
    uint l = get_local_id(0), n = get_local_size(0);
    size_t g = get_global_id(0);
    tmp[l] = src[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint i = 0; i < n; i++) s += tmp[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[n - 1 - l] = s * (float)(l + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[g] = tmp[l];
}
