#version 450
// Vectors, arrays and structs of one scalar type, one per invocation, in a
// row (test_jit_aos.c): the vectorizer loads and stores the sub-group's
// copies as one run of memory.  uvec3 (a 16-byte stride for 12 bytes) is not
// in a row and takes the member-by-member path.
layout(local_size_x = 24) in;
struct P3 { float x, y, z; };
layout(std430, set = 0, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, set = 0, binding = 1) buffer B { vec4 b[]; };
layout(std430, set = 0, binding = 2) buffer C { ivec2 c[]; };
layout(std430, set = 0, binding = 3) buffer D { P3 p[]; };
layout(std430, set = 0, binding = 4) buffer E { float d[][2]; };
layout(std430, set = 0, binding = 5) buffer F { uvec3 u[]; };
layout(push_constant) uniform PC { uint n; float s; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= n)
        return;
    vec4 va = a[i];
    b[i] = va * s + b[i].wzyx;
    c[i] = c[i].yx + ivec2(int(i), -int(i));
    P3 q = p[i];
    p[i] = P3(q.y + q.z, q.x * 2.0, q.z - va.x);
    float d0 = d[i][0], d1 = d[i][1];
    d[i] = float[2](d1, d0 + s);
    u[i] = u[i].zxy ^ uvec3(i);
    if ((i % 3u) == 1u) /* divergent: every third invocation again */
        b[i] = b[i].yzwx - vec4(1.0);
}
