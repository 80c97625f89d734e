// conv3x3.comp — 2D 3x3 convolution of a row-major float W x H image,
// clamp-to-edge (a tap outside the image reads the nearest edge pixel).
//
//   out[y][x] = sum_{j=0..2} sum_{i=0..2} K[j*3+i] * in[clamp(y+j-1)][clamp(x+i-1)]
//
// accumulated in that order (j outer, i inner) from 0.0.  The nine
// coefficients are specialization constants 0..8 (K[j*3+i] has SpecId j*3+i).
// GLSL only allows vectors as spec-constant composites, so each row of taps is
// a vec3 OpSpecConstantComposite (R0, R1, R2).
// Defaults: the 3x3 binomial blur 1 2 1 / 2 4 2 / 1 2 1, divided by 16.
// Local size 16 x 16 x 1; dispatch ceil(W/16) x ceil(H/16) x 1 work-groups.
#version 450

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(constant_id = 0) const float K0 = 0.0625;
layout(constant_id = 1) const float K1 = 0.125;
layout(constant_id = 2) const float K2 = 0.0625;
layout(constant_id = 3) const float K3 = 0.125;
layout(constant_id = 4) const float K4 = 0.25;
layout(constant_id = 5) const float K5 = 0.125;
layout(constant_id = 6) const float K6 = 0.0625;
layout(constant_id = 7) const float K7 = 0.125;
layout(constant_id = 8) const float K8 = 0.0625;
const vec3 R0 = vec3(K0, K1, K2);
const vec3 R1 = vec3(K3, K4, K5);
const vec3 R2 = vec3(K6, K7, K8);

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };
layout(push_constant, std430) uniform Params { uint w; uint h; } pc;

// Adds one row of three taps to acc (i = 0, 1, 2 in order).
float row_taps(float acc, vec3 k, int sy, int x, int w)
{
    for (int i = 0; i < 3; ++i) {
        int sx = clamp(x + i - 1, 0, w - 1);
        acc += k[i] * src[sy * w + sx];
    }
    return acc;
}

void main()
{
    int w = int(pc.w), h = int(pc.h);
    int x = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    if (x >= w || y >= h)
        return;
    float acc = 0.0;
    acc = row_taps(acc, R0, clamp(y - 1, 0, h - 1), x, w);
    acc = row_taps(acc, R1, y, x, w);
    acc = row_taps(acc, R2, clamp(y + 1, 0, h - 1), x, w);
    dst[y * w + x] = acc;
}
