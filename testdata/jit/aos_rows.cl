/* Vectors, one per work-item, in a row (test_jit_aos.c): the vectorizer
 * loads and stores the sub-group's copies as one run of memory.  int3 (16
 * bytes for 12) is not in a row and takes the element-by-element path. */
kernel void aos_rows(global const float4 *a, global float4 *b, global int2 *c, global char4 *e, global short2 *f,
                     global long2 *g, global int3 *h, uint n, float s)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    float4 va = a[i];
    b[i] = va * s + b[i].wzyx;
    c[i] = c[i].yx + (int2)((int)i, -(int)i);
    e[i] = e[i].wzyx + (char4)(1, 2, 3, (char)i);
    f[i] = f[i].yx - (short2)((short)i, 3);
    g[i] = g[i].yx * (long2)(3, (long)i);
    h[i] = h[i].zxy ^ (int3)((int)i);
    if (i % 3 == 1) /* divergent: every third work-item again */
        b[i] = b[i].yzwx - (float4)(1.0f);
}
