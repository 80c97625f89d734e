// regions_big_slots.comp — a private array live across a barrier: at a local
// size of 4096 its per-item slots take more than the barrier regions keep on
// a thread's stack (jit/regions.h JIT_REGIONS_MAX_STACK), so the kernel runs
// on fibers (test_jit_barrier_path.c).
#version 450

layout(constant_id = 0) const uint LS = 64;
layout(local_size_x_id = 0, local_size_x = 64) in;

layout(set = 0, binding = 0, std430) buffer Data { float data[]; };

shared float sh[LS];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    float priv[80];
    for (int k = 0; k < 80; k++)
        priv[k] = data[(lid + uint(k)) % LS];
    sh[lid] = priv[lid % 80u];
    barrier();
    float acc = sh[(lid + 1u) % LS];
    for (int k = 0; k < 80; k++)
        acc += priv[k];
    data[lid] = acc;
}
