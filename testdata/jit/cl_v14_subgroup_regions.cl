// cl_v14_subgroup_regions.cl — a barrier kernel with two regions: the first
// sums each sub-group (an operation across its lanes), the second reads only
// the numbers of the work-item's sub-group (get_sub_group_id,
// get_sub_group_local_id, get_num_sub_groups, get_max_sub_group_size), which
// each work-item can compute alone: the quick tier runs that region work-item
// by work-item, the optimized one as lanes.  Run with 2-D groups and a global
// size that is not a multiple of the local size (smaller groups at the edges):
// sub-groups are made of consecutive linear local indices of the group's
// actual size.
kernel void subgroup_regions(global const int *src, global uint *dst, local int *tmp)
{
    uint l = get_local_linear_id();
    size_t g = get_global_linear_id();
    tmp[l] = sub_group_reduce_add(src[g]);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint n = get_local_size(0) * get_local_size(1);
    dst[4 * g + 0] = (uint)tmp[n - 1 - l];
    dst[4 * g + 1] = get_sub_group_id() * 1000u + get_sub_group_local_id();
    dst[4 * g + 2] = get_num_sub_groups() * 1000u + get_max_sub_group_size();
    dst[4 * g + 3] = l;
}
