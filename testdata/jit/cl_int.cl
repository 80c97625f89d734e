// cl_int.cl — OpenCL C integer builtins, 8/16/64-bit arithmetic and conversions.
// Work-item i reads a[i], b[i] (int), c[i] (long), f[i] (float) and writes
// NOUT words of o[NOUT*i ..] and NOUTL longs of ol[NOUTL*i ..]; see test_jit_cl.c.
#define NOUT 44
#define NOUTL 8
kernel void ints(global const int *a, global const int *b, global const long *c, global const float *f,
                 global int *o, global long *ol)
{
    size_t i = get_global_id(0);
    int x = a[i], y = b[i];
    uint ux = (uint)x, uy = (uint)y;
    long lx = c[i], ly = c[i] ^ ((long)x << 17);
    float fx = f[i];
    char cx = (char)x, cy = (char)y;
    uchar ucx = (uchar)x, ucy = (uchar)y;
    short sx = (short)x, sy = (short)y;
    ushort usx = (ushort)x, usy = (ushort)y;
    global int *r = o + NOUT * i;
    r[0] = add_sat(x, y);
    r[1] = sub_sat(x, y);
    r[2] = (int)add_sat(ux, uy);
    r[3] = (int)sub_sat(ux, uy);
    r[4] = mul_hi(x, y);
    r[5] = (int)mul_hi(ux, uy);
    r[6] = rotate(x, y);
    r[7] = clz(x);
    r[8] = popcount(x);
    r[9] = hadd(x, y);
    r[10] = rhadd(x, y);
    r[11] = (int)abs_diff(x, y);
    r[12] = (int)abs(x);
    r[13] = mad_sat(x, y, x);
    r[14] = mad24(x & 0x7fffff, y & 0x7fffff, x);
    r[15] = ctz(x);
    r[16] = add_sat(cx, cy);
    r[17] = sub_sat(ucx, ucy);
    r[18] = (char)(cx * cy);
    r[19] = (uchar)(ucx / (ucy | 1));
    r[20] = (char)(cx % (cy == 0 ? (char)1 : cy));
    r[21] = add_sat(sx, sy);
    r[22] = sub_sat(usx, usy);
    r[23] = (short)(sx * sy);
    r[24] = mul_hi(sx, sy);
    r[25] = rotate(ucx, ucy);
    r[26] = clz(usx);
    r[27] = popcount(cx);
    r[28] = convert_int_sat_rte(fx);
    r[29] = convert_int_sat_rtz(fx);
    r[30] = convert_int_sat_rtp(fx);
    r[31] = convert_int_sat_rtn(fx);
    r[32] = convert_uchar_sat(x);
    r[33] = convert_char_sat(y);
    r[34] = convert_short_sat(fx * 1000.0f);
    r[35] = convert_ushort_sat_rte(fx);
    r[36] = (int)convert_uint_sat(fx);
    r[37] = convert_int(fx);
    r[38] = upsample((short)sx, (ushort)usy);
    r[39] = max(x, y) - min(ux, uy) + clamp(x, -100, 100);
    r[40] = as_int(convert_float_rtz(x));
    r[41] = as_int(convert_float_rtn(ux));
    r[42] = as_int(convert_float_rtp(lx));
    r[43] = as_int(convert_float_rtz((double)fx * 1.00000001));
    global long *q = ol + NOUTL * i;
    q[0] = lx * ly;
    q[1] = mul_hi(lx, ly);
    q[2] = (long)mul_hi((ulong)lx, (ulong)ly);
    q[3] = add_sat(lx, ly);
    q[4] = rotate(lx, ly);
    q[5] = clz(lx) + 100 * popcount(lx);
    q[6] = ly != 0 ? lx / ly : 0;
    q[7] = convert_long_sat_rtn((double)fx * 1e12);
}
