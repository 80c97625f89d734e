// glsl_misc.comp — a barrier-free Shader kernel through the whole pipeline:
// push constants with an std430 struct, an std140 uniform block, GLSL.std.450
// math, sub-group operations (sub-group size 1), switch / loops with break,
// continue and [[unroll]] / [[dont_unroll]], an early return, a pointer to a
// column of a row-major matrix, OpArrayLength through a descriptor array.
// Work-item i < pc.n writes o[24*i .. 24*i+15] and column (i+1)%4 of rm.m[i]; see test_jit_glsl.c.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 16) in;
struct Item { vec3 dir; float w; ivec2 off; };
layout(push_constant, std430) uniform PC { uint n; float scale; Item item; } pc;
layout(std140, set = 0, binding = 0) uniform U { float coef[4]; vec2 shift; mat2 m2; } u;
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 2) buffer Out { float o[]; };
layout(std430, set = 0, binding = 3) buffer RM { layout(row_major) mat4 m[]; } rm;
layout(std430, set = 0, binding = 4) readonly buffer D { int d[]; } darr[2];

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) return;
    float v = x[i];
    uint b = 24u * i;
    o[b + 0] = sin(v) + exp(v * 0.5) + pow(abs(v) + 1.0, 1.5);
    o[b + 1] = fma(v, pc.scale, 1.0) + clamp(v, -1.0, 1.0) + mix(v, 2.0, 0.25);
    o[b + 2] = smoothstep(-1.0, 1.0, v) + atan(v, 2.0) + inversesqrt(abs(v) + 1.0);
    int e;
    float mant = frexp(v, e);
    o[b + 3] = mant + float(e) * 10.0;
    o[b + 4] = length(pc.item.dir * v) + dot(pc.item.dir, vec3(1.0, 2.0, 3.0)) * pc.item.w +
               float(pc.item.off.x - pc.item.off.y);
    o[b + 5] = u.coef[i & 3u] * v + u.shift.y + (u.m2 * vec2(v, 1.0)).y;
    o[b + 6] = subgroupAdd(v) + subgroupExclusiveAdd(v) * 100.0 + float(gl_SubgroupSize) * 1000.0 +
               (subgroupElect() ? 10000.0 : 0.0) + float(subgroupBallotBitCount(subgroupBallot(v > 0.0))) * 100000.0;
    o[b + 7] = subgroupBroadcastFirst(v) - subgroupMax(v);
    int k = int(i % 7u);
    float acc = 0.0;
    switch (k) {
    case 0: acc = 1.0; break;
    case 1: case 2: acc = v; break;
    case 5: acc = -v;   // falls through
    case 6: acc += 3.0; break;
    default: acc = 7.0; break;
    }
    o[b + 8] = acc;
    float s = 0.0;
    [[dont_unroll]] for (int j = 0; j < 20; j++) {
        if (j == int(i % 5u)) continue;
        if (j > 12 + k) break;
        s += float(j) * v;
    }
    o[b + 9] = s;
    float t = 0.0;
    [[unroll]] for (int j = 0; j < 4; j++) t += u.coef[j] * float(j + 1);
    o[b + 10] = t;
    uint c = i & 3u;
    vec4 col = rm.m[i][c];
    o[b + 11] = col.x; o[b + 12] = col.y; o[b + 13] = col.z; o[b + 14] = col.w;
    rm.m[i][(c + 1u) & 3u] = col * 2.0 + vec4(1.0, 2.0, 3.0, 4.0);
    o[b + 15] = float(darr[1].d.length()) + float(darr[0].d.length()) * 1000.0 + float(darr[i & 1u].d[0]);
}
