// testdata/jit/exports.cl — functions called from host C (spvjit_call_exported),
// and two kernels in one module (building one must not trip over the other).
// Non-static, non-kernel functions of OpenCL C 2.0 get LinkageAttributes Export.
float axpb(float a, float x, float b) { return a * x + b; }
int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
void scale(global float *p, float s) { p[0] = p[0] * s; }
static ulong mix64(ulong x) { x ^= x >> 31; x *= 0x7fb5d329728ea185ul; return x ^ (x >> 27); }
ulong hash2(ulong a, uint b) { return mix64(a + b); }
double lerp(double a, double b, double t) { return a + (b - a) * t; }
uchar addsat8(uchar a, uchar b) { return add_sat(a, b); }
int pick(bool c, int a, int b) { return c ? a : b; }
bool is_neg(float x) { return x < 0.0f; }
// not callable from host C: a vector, a work-group barrier
float4 vscale(float4 v, float s) { return v * s; }
void sync_store(local float *p, float v) { p[get_local_id(0)] = v; barrier(CLK_LOCAL_MEM_FENCE); }
kernel void scale_all(global float *p, float s) { scale(p + get_global_id(0), s); }
kernel void fill(global float *p, float v) { p[get_global_id(0)] = v; }
// reflection (spvjit_module_export_info) and more types through the call:
// a signed 16-bit value, read-only global pointers with a length, generic
// pointers the function writes results through, and a half (not callable)
short absdiff16(short a, short b) { return a > b ? a - b : b - a; }
float dot_n(const global float *a, const global float *b, uint n)
{
    float s = 0.0f;
    for (uint i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
void minmax(const global int *p, uint n, int *lo, int *hi)
{
    int l = p[0], h = p[0];
    for (uint i = 1; i < n; i++) {
        l = min(l, p[i]);
        h = max(h, p[i]);
    }
    *lo = l;
    *hi = h;
}
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
half twice_h(half x) { return x * (half)2.0f; }
