// glsl_shared.comp — atomics on shared (work-group) memory with barriers.
// Group g writes o[8*g .. 8*g+7]: min, max, or, and, unsigned max, compare-and-swap
// winners, the sum of the values atomicExchange returned, the final exchanged value.
#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer V { int v[]; };
layout(std430, set = 0, binding = 1) buffer O { int o[]; };
shared int smin, smax, sor, sand, sxchg, scas, swon, sprev;
shared uint sumax;

void main()
{
    uint l = gl_LocalInvocationIndex, g = gl_WorkGroupID.x;
    int x = v[gl_GlobalInvocationID.x];
    if (l == 0u) {
        smin = 0x7fffffff; smax = int(0x80000000); sor = 0; sand = -1; sumax = 0u;
        sxchg = 0; scas = 0; swon = 0; sprev = 0;
    }
    barrier();
    atomicMin(smin, x);
    atomicMax(smax, x);
    atomicOr(sor, x);
    atomicAnd(sand, x);
    atomicMax(sumax, uint(x));
    atomicAdd(sprev, atomicExchange(sxchg, int(l) + 1));
    if (atomicCompSwap(scas, 0, int(l) + 1) == 0) atomicAdd(swon, 1);
    barrier();
    if (l == 0u) {
        o[8u * g + 0u] = smin; o[8u * g + 1u] = smax; o[8u * g + 2u] = sor; o[8u * g + 3u] = sand;
        o[8u * g + 4u] = int(sumax); o[8u * g + 5u] = swon; o[8u * g + 6u] = sprev; o[8u * g + 7u] = sxchg;
    }
}
