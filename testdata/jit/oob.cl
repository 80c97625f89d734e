// Out-of-bounds reads, writes and atomics through Kernel-flavour pointers
// (test_api_memory.c): work-item i uses the index j = i + off.  q reaches s
// through an integer, so its origin is lost and it is checked against every
// range the dispatch binds.
kernel void oob(global const uint *s, global uint *r, global uint *w, volatile global uint *a, global uint *old,
                global uint4 *v, global uint4 *rv, constant uint *c, int off)
{
    size_t i = get_global_id(0);
    long j = (long)i + off;
    global const uint *q = (global const uint *)((ulong)s + (ulong)j * 4);
    r[3 * i] = s[j];
    r[3 * i + 1] = c[j];
    r[3 * i + 2] = *q;
    w[j] = (uint)i + 1;
    old[i] = atomic_add(&a[j], 1u);
    uint4 x = v[j];
    rv[i] = x;
    v[j] = x + (uint4)(1);
}

// The same on work-group memory: a static __local array and a __local argument.
kernel void oob_local(global uint *o, int off, local uint *la)
{
    local uint t[16];
    uint l = get_local_id(0), i = get_global_id(0);
    int k = (int)l + off;
    t[l] = 0;
    la[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    t[k] = i + 1;
    la[k] = i + 101;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[4 * i] = t[l];
    o[4 * i + 1] = t[k];
    o[4 * i + 2] = la[l];
    o[4 * i + 3] = la[k];
}
