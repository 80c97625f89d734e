// cl_local.cl — work-group memory (a static __local array and a __local
// pointer argument), atomics on global and local memory, barriers.
#define LS 64
kernel void local_mem(global const int *in, global int *out, global int *gstat, local int *scratch)
{
    local int tile[LS];
    local int lstat[4];
    size_t l = get_local_id(0), g = get_global_id(0), n = get_local_size(0);
    if (l == 0) { lstat[0] = 0; lstat[1] = 0; lstat[2] = 0x7fffffff; lstat[3] = (int)0x80000000; }
    int v = in[g];
    tile[l] = v;
    scratch[l] = v * 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    // neighbour exchange through both memories, reversed inside the group
    out[2 * g] = tile[n - 1 - l] + scratch[(l + 1) % n];
    atomic_add(&lstat[0], v & 0xff);
    atomic_inc(&lstat[1]);
    atomic_min(&lstat[2], v);
    atomic_max(&lstat[3], v);
    // tree reduction of the tile
    for (size_t s = n / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s) tile[l] += tile[l + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[2 * g + 1] = tile[0];
    if (l == 0) {
        size_t grp = get_group_id(0);
        gstat[8 + 4 * grp + 0] = lstat[0];
        gstat[8 + 4 * grp + 1] = lstat[1];
        gstat[8 + 4 * grp + 2] = lstat[2];
        gstat[8 + 4 * grp + 3] = lstat[3];
    }
    // global atomics across all groups
    atomic_add(&gstat[0], v & 0xfff);
    atomic_inc(&gstat[1]);
    atomic_min(&gstat[2], v);
    atomic_max(&gstat[3], v);
    atomic_xor(&gstat[4], v);
    // a lock-free counter: every work-item adds 1 through compare-and-swap
    int old = gstat[5], seen;
    while ((seen = atomic_cmpxchg(&gstat[5], old, old + 1)) != old) old = seen;
    atomic_max((global uint *)&gstat[6], (uint)v);
}
