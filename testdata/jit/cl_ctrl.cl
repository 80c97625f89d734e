// cl_ctrl.cl — control flow (switch, loops with break/continue, calls of real
// functions), a struct passed by value, a __constant table and printf.
typedef struct params { int mode; float scale; long offset; char tag; } params;

__constant int table[8] = {3, -1, 4, 1, -5, 9, -2, 6};

__attribute__((noinline)) int collatz_steps(uint v, int limit)
{
    int n = 0;
    while (v != 1 && n < limit) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        n++;
    }
    return n;
}

__attribute__((noinline)) int classify(int v, params p)
{
    switch ((v ^ p.mode) % 9) {
    case 0: return v + 1;
    case 1: case 2: return v * 3;
    case 3: return table[v & 7] * 10;
    case 5: return -v;
    case -4: case 8: return v - 7;
    default: break;
    }
    return (int)(v * p.scale) + (int)p.offset + p.tag;
}

__attribute__((noinline)) int sum_table(int from, int to)
{
    int s = 0;
    for (int k = from; k < to; k++) {
        if (table[k & 7] < 0) continue;
        if (s > 12) break;
        s += table[k & 7];
    }
    return s;
}

__attribute__((noinline)) int accumulate(int v)
{
    int acc = 0, k = 0;
    do {
        if ((k * v) & 4) acc += k; else acc ^= k << 2;
        if (acc > 200) return -1;
    } while (++k < (v & 31));
    return acc;
}

kernel void ctrl(global const int *in, global int *out, params p)
{
    size_t i = get_global_id(0);
    int v = in[i];
    out[4 * i] = classify(v, p);
    out[4 * i + 1] = collatz_steps((uint)(v & 0xffff) + 1, 200);
    out[4 * i + 2] = sum_table(v & 7, (v & 7) + ((v >> 3) & 15));
    int acc = accumulate(v);
    if (acc < 0) return;   // early return: out[4i+3] keeps its value
    out[4 * i + 3] = acc;
    if (i < 2)
        printf("item %d: v=%d tag=%c scale=%.2f %s v2=%v2d\n", (int)i, v, p.tag, p.scale, "ok",
               (int2)(v & 7, -3));
}
