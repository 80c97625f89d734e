// matrix.comp — matrix/vector products, transpose, outer product, dot, and the
// std430 layout of mat3 (MatrixStride 16) and row_major matrices.
// Build: glslangValidator -V --target-env vulkan1.1 matrix.comp -o matrix.comp.spv
#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer In { mat3 ms[8]; layout(row_major) mat3 rs[8]; vec4 vs[8]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float o[]; };

void put3(uint k, vec3 v) { o[k] = v.x; o[k + 1] = v.y; o[k + 2] = v.z; }

void main()
{
    uint i = gl_GlobalInvocationID.x;
    mat3 m = ms[i], r = rs[i];
    vec3 v = vs[i].xyz;
    float s = vs[i].w;
    uint k = 40u * i;
    put3(k + 0, m * v);
    put3(k + 3, v * m);
    mat3 p = m * r;
    put3(k + 6, p[0]); put3(k + 9, p[1]); put3(k + 12, p[2]);
    mat3 t = transpose(m);
    put3(k + 15, t[1]);
    mat3 op = outerProduct(v, v * s);
    put3(k + 18, op[2]);
    o[k + 21] = dot(v, m[1]);
    put3(k + 22, (m * s)[2]);
    o[k + 25] = r[1][2];                    // column 1, row 2 of a row-major matrix
    o[k + 26] = mod(v.x, s);                // OpFMod: sign of s
    put3(k + 27, v * s);
}
