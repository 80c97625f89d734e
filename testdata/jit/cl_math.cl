// cl_math.cl — OpenCL.std math through the whole pipeline: float4, double2 and
// half, vload/vstore (vector, 3-element, half with rounding modes).
// Work-item i: see test_jit_cl.c for the layout of the outputs.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void math(global const float *x, global const float *y, global const double *dx,
                 global const half *hx, global float *of, global double *od, global half *oh,
                 global float *o3, global int *oi)
{
    size_t i = get_global_id(0);
    float4 a = vload4(i, x), b = vload4(i, y);
    float4 s, c, fr, ip, fl;
    s = sincos(a, &c);
    fr = fract(a, &fl);
    float4 m = modf(b, &ip);
    int4 e;
    float4 mant = frexp(b, &e);
    vstore4(s, 0, of + 64 * i);
    vstore4(c, 1, of + 64 * i);
    vstore4(exp(a), 2, of + 64 * i);
    vstore4(log(fabs(b) + 0.5f), 3, of + 64 * i);
    vstore4(pow(fabs(a), b), 4, of + 64 * i);
    vstore4(sqrt(fabs(b)), 5, of + 64 * i);
    vstore4(fma(a, b, a), 6, of + 64 * i);
    vstore4(mix(a, b, 0.25f), 7, of + 64 * i);
    vstore4(clamp(a, -0.5f, 0.75f), 8, of + 64 * i);
    vstore4(fmax(a, b) + fmin(a, b), 9, of + 64 * i);
    vstore4(rsqrt(fabs(a) + 1.0f), 10, of + 64 * i);
    vstore4(atan2(a, b), 11, of + 64 * i);
    vstore4(fr + fl, 12, of + 64 * i);
    vstore4(m + ip * 2.0f, 13, of + 64 * i);
    vstore4(mant, 14, of + 64 * i);
    vstore4(floor(a) + ceil(b) * 3.0f + round(a) * 7.0f, 15, of + 64 * i);
    vstore4(e, 0, oi + 4 * i);
    double2 d = vload2(i, dx);
    vstore2(exp(d), 0, od + 10 * i);
    vstore2(log1p(fabs(d)), 1, od + 10 * i);
    vstore2(hypot(d, d.yx), 2, od + 10 * i);
    vstore2(cbrt(d), 3, od + 10 * i);
    vstore2(fmod(d, (double2)(0.75, -1.25)), 4, od + 10 * i);
    // 3-element vectors are packed (stride 3) in memory
    float3 t = vload3(i, x);
    vstore3(t * 2.0f + (float3)(1.0f, 2.0f, 3.0f), i, o3);
    // half: loads and stores with rounding modes, and half arithmetic
    float4 h4 = vload_half4(i, hx);
    vstore_half4(h4 * 3.0f, i, oh);
    vstore_half4_rtz(a, i + 64, oh);
    vstore_half4_rtp(a, i + 128, oh);
    vstore_half4_rtn(a, i + 192, oh);
    half hh = hx[4 * i] * hx[4 * i + 1] + hx[4 * i + 2];
    oh[4 * 256 + i] = hh;
}
