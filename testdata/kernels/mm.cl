// mm.cl — blocked matrix multiply C = A * B (row-major float N x N),
// OpenCL C, Kernel flavour.  Same algorithm as mm.comp.
//
// BS, the block size, is specialization constant 0 (uint, default 16).  OpenCL C
// cannot size an array by a specialization constant, so the two tiles are
// fixed-size __local arrays of MM_MAX_BS * MM_MAX_BS floats (module-scope
// Workgroup variables in SPIR-V) of which the first BS*BS are used: BS <= 32.
// The host must launch with local size BS x BS (OpenCL has no way to tie the
// work-group size to a spec constant) and global size ceil(N/BS)*BS per dimension.
// Arguments: 0 A, 1 B (__global const float *), 2 C (__global float *), 3 n (uint).

#define MM_MAX_BS 32

uint __spirv_SpecConstant(int spec_id, uint default_value) __attribute__((overloadable));

__kernel void mm(__global const float *a, __global const float *b, __global float *c, uint n)
{
    __local float as[MM_MAX_BS * MM_MAX_BS];
    __local float bs[MM_MAX_BS * MM_MAX_BS];
    const uint BS = __spirv_SpecConstant(0, 16u);
    uint tx = get_local_id(0);
    uint ty = get_local_id(1);
    uint col = get_group_id(0) * BS + tx;
    uint row = get_group_id(1) * BS + ty;
    float acc = 0.0f;

    for (uint t = 0; t < n; t += BS) {
        // Stage one tile of A and one of B (zero outside the matrix).
        as[ty * BS + tx] = (row < n && t + tx < n) ? a[row * n + t + tx] : 0.0f;
        bs[ty * BS + tx] = (t + ty < n && col < n) ? b[(t + ty) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < BS; ++k)
            acc += as[ty * BS + k] * bs[k * BS + tx];
        barrier(CLK_LOCAL_MEM_FENCE);  // the tile is re-staged in the next iteration
    }
    if (row < n && col < n)
        c[row * n + col] = acc;
}
