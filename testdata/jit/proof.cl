// proof.cl — OpenCL C patterns for memory=robust's proofs (test_api_proof.c):
// ids are size_t, compared and indexed through truncations and extensions.
//   wide_id:   size_t i; if (i < n) out[i] = in[i] * 3           (an i64 compare)
//   narrow_id: uint i = get_global_id(0); if (i < n) out[i] = in[i] + 1
//              (the id truncated to 32 bits, indexed zero-extended)
//   rows:      2-D, if (x < w && y < h) out[y * w + x] = in[y * w + x] - 1
__kernel void wide_id(__global const float *in, __global float *out, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[i] = in[i] * 3.0f;
}

__kernel void narrow_id(__global const float *in, __global float *out, uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        out[i] = in[i] + 1.0f;
}

__kernel void rows(__global const float *in, __global float *out, uint w, uint h)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x < w && y < h)
        out[y * w + x] = in[y * w + x] - 1.0f;
}
