// conv3x3.cl — 2D 3x3 convolution of a row-major float W x H image,
// clamp-to-edge, OpenCL C, Kernel flavour.  Same computation and summation
// order as conv3x3.comp:
//
//   out[y][x] = sum_{j=0..2} sum_{i=0..2} K[j*3+i] * in[clamp(y+j-1)][clamp(x+i-1)]
//
// The nine coefficients are specialization constants 0..8 (float), one
// __spirv_SpecConstant call each; defaults 1 2 1 / 2 4 2 / 1 2 1, divided by 16.
// Arguments: 0 src (__global const float *), 1 dst (__global float *), 2 w, 3 h (uint).
// Any local size; global size >= (w, h) (2-D).

float __spirv_SpecConstant(int spec_id, float default_value) __attribute__((overloadable));

__kernel void conv3x3(__global const float *src, __global float *dst, uint w, uint h)
{
    const float k[9] = {
        __spirv_SpecConstant(0, 0.0625f), __spirv_SpecConstant(1, 0.125f), __spirv_SpecConstant(2, 0.0625f),
        __spirv_SpecConstant(3, 0.125f),  __spirv_SpecConstant(4, 0.25f),  __spirv_SpecConstant(5, 0.125f),
        __spirv_SpecConstant(6, 0.0625f), __spirv_SpecConstant(7, 0.125f), __spirv_SpecConstant(8, 0.0625f),
    };
    int x = (int)get_global_id(0);
    int y = (int)get_global_id(1);
    int iw = (int)w, ih = (int)h;
    if (x >= iw || y >= ih)
        return;
    float acc = 0.0f;
    for (int j = 0; j < 3; ++j) {
        int sy = clamp(y + j - 1, 0, ih - 1);
        for (int i = 0; i < 3; ++i) {
            int sx = clamp(x + i - 1, 0, iw - 1);
            acc += k[j * 3 + i] * src[sy * iw + sx];
        }
    }
    dst[y * iw + x] = acc;
}
