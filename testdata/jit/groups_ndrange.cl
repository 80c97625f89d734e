// groups_ndrange.cl — where each work-item sits in an NDRange (smaller last
// groups, global offsets).  Item at global id g writes o[8*i .. 8*i+7],
// i = (g.x - off.x) + sx * ((g.y - off.y) + sy * (g.z - off.z)): group id,
// local id, local size, enqueued local size, number of groups
// (x | y << 10 | z << 20), local linear id, global linear id, global offset x.
//
// saxpy: y[i] = a * x[i] + y[i] for i < n (1-D, for the many-groups case).

uint pack3(size_t x, size_t y, size_t z) { return (uint)x | ((uint)y << 10) | ((uint)z << 20); }

kernel void ids(global uint *o, uint sx, uint sy)
{
    size_t i = (get_global_id(0) - get_global_offset(0)) +
               sx * ((get_global_id(1) - get_global_offset(1)) + sy * (get_global_id(2) - get_global_offset(2)));
    o[8 * i + 0] = pack3(get_group_id(0), get_group_id(1), get_group_id(2));
    o[8 * i + 1] = pack3(get_local_id(0), get_local_id(1), get_local_id(2));
    o[8 * i + 2] = pack3(get_local_size(0), get_local_size(1), get_local_size(2));
    o[8 * i + 3] = pack3(get_enqueued_local_size(0), get_enqueued_local_size(1), get_enqueued_local_size(2));
    o[8 * i + 4] = pack3(get_num_groups(0), get_num_groups(1), get_num_groups(2));
    o[8 * i + 5] = (uint)get_local_linear_id();
    o[8 * i + 6] = (uint)get_global_linear_id();
    o[8 * i + 7] = (uint)get_global_offset(0);
}

kernel void saxpy(global const float *x, global float *y, float a, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
