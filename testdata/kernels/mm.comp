// mm.comp — blocked matrix multiply C = A * B (row-major float N x N).
//
// Each work-group computes one BS x BS tile of C; each work-item one element.
// The block size BS is specialization constant 0: it is both the work-group
// size (local_size_x_id = local_size_y_id = 0, so the local size is BS x BS x 1)
// and the length of the two work-group arrays (BS*BS, an OpSpecConstantOp IMul).
// Specializing BS turns the inner k loop's trip count into a literal.
// N need not be a multiple of BS: out-of-range tile elements load as 0.
// Dispatch: ceil(N/BS) x ceil(N/BS) x 1 work-groups.
#version 450

layout(constant_id = 0) const uint BS = 16;
layout(local_size_x_id = 0, local_size_y_id = 0, local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MatA { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer MatB { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer MatC { float c[]; };
layout(push_constant, std430) uniform Params { uint n; } pc;

shared float As[BS * BS];
shared float Bs[BS * BS];

void main()
{
    uint n = pc.n;
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint col = gl_WorkGroupID.x * BS + tx;
    uint row = gl_WorkGroupID.y * BS + ty;
    float acc = 0.0;

    for (uint t = 0; t < n; t += BS) {
        // Stage one tile of A and one of B (zero outside the matrix).
        As[ty * BS + tx] = (row < n && t + tx < n) ? a[row * n + t + tx] : 0.0;
        Bs[ty * BS + tx] = (t + ty < n && col < n) ? b[(t + ty) * n + col] : 0.0;
        barrier();
        for (uint k = 0; k < BS; ++k)
            acc += As[ty * BS + k] * Bs[k * BS + tx];
        barrier();  // the tile is re-staged in the next iteration
    }
    if (row < n && col < n)
        c[row * n + col] = acc;
}
