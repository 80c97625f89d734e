// std_table.comp — std140, std430 and scalar blocks whose layouts the test
// layout_shader_blocks_match_glslang checks against glslang's reflection:
// vec3 followed by a scalar, mat3 in both majors (MatrixStride 16), mat2,
// arrays of structs, nested structs, runtime arrays of structs, doubles.
#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 1) in;

struct Inner { vec3 v; float f; };
struct Item { float a; vec3 b; mat3 m; Inner in2[2]; vec2 c; };
struct Tail { vec3 p; uint id; };

layout(std430, set = 0, binding = 0) buffer Mat430 { mat3 m; } mat430;
layout(std430, set = 0, binding = 1) buffer Row430 { layout(row_major) mat3 m; } row430;
layout(std140, set = 0, binding = 2) uniform Mat140 { mat3 m; } mat140;
layout(std140, set = 0, binding = 3) uniform Row140 { layout(row_major) mat3 m; float after; } row140;
layout(std430, set = 0, binding = 4) buffer Vec430 { vec3 v; float f; vec3 w; vec2 x; } vec430;
layout(std140, set = 0, binding = 5) uniform Vec140 { vec3 v; float f; float g[3]; vec2 h; mat2 k; } vec140;
layout(std430, set = 0, binding = 6) buffer Items430 { uint n; Item items[3]; layout(row_major) mat4 r; } items430;
layout(std140, set = 0, binding = 7) uniform Items140 { float n; Item items[2]; vec3 last; } items140;
layout(std430, set = 0, binding = 8) buffer Runtime430 { vec4 head; Tail tails[]; } runtime430;
layout(std430, set = 0, binding = 9) buffer Doubles430 { float f; dvec3 d; double e; dmat3 dm; } doubles430;
layout(scalar, set = 0, binding = 10) buffer Scalar { float f; vec3 v; mat3 m; vec2 w; Inner in3[2]; } scalar_blk;
layout(std430, push_constant) uniform Push { vec2 p; vec3 q; float r; } push;

void main()
{
    mat430.m[0][0] = row430.m[1][2] + mat140.m[2][1] + row140.m[0][1] + row140.after;
    vec430.f = vec430.v.x + vec430.w.y + vec430.x.y + vec140.v.z + vec140.f + vec140.g[2] + vec140.h.y + vec140.k[1][0];
    items430.n = uint(items430.items[2].in2[1].f + items430.items[1].m[2][2] + items430.r[3][0] + items140.items[1].c.y +
                      items140.last.z + items140.n);
    runtime430.tails[3].id = uint(runtime430.head.w + runtime430.tails[1].p.y);
    doubles430.f = float(doubles430.d.z + doubles430.e + doubles430.dm[2][1]);
    scalar_blk.f = scalar_blk.v.y + scalar_blk.m[2][2] + scalar_blk.w.x + scalar_blk.in3[1].f + push.p.y + push.q.z +
                   push.r;
}
