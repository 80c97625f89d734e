// atomics.comp — OpAtomic* on buffer and work-group memory, with a barrier.
// Build: glslangValidator -V --target-env vulkan1.1 atomics.comp -o atomics.comp.spv
// o[0] sum of v, o[1] max, o[2] min (signed), o[3] xor, o[4] items that won
// a compare-exchange of o[5] from 0 (exactly 1), o[6+g] per-group sum via shared memory.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer V { int v[]; };
layout(std430, set = 0, binding = 1) buffer O { int o[]; };
shared int gsum;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    int x = v[i];
    if (gl_LocalInvocationIndex == 0) gsum = 0;
    barrier();
    atomicAdd(o[0], x);
    atomicMax(o[1], x);
    atomicMin(o[2], x);
    atomicXor(o[3], x);
    if (atomicCompSwap(o[5], 0, int(i) + 1) == 0) atomicAdd(o[4], 1);
    atomicAdd(gsum, x);
    barrier();
    if (gl_LocalInvocationIndex == 0) o[6 + gl_WorkGroupID.x] = gsum;
}
