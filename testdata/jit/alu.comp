// alu.comp — integer arithmetic and bit operations with SPIR-V semantics.
// Build: glslangValidator -V --target-env vulkan1.1 alu.comp -o alu.comp.spv
// Each work-item i reads a[i], b[i] and writes 24 words at o[24*i ..].
#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer A { int a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { int b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer O { int o[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = b[i];
    uint ux = uint(x), uy = uint(y);
    uint k = 24u * i;
    o[k + 0] = x / y;                       // OpSDiv (by 0 / INT_MIN/-1: any value, no trap)
    o[k + 1] = x % y;                       // OpSMod
    o[k + 2] = int(ux / uy);                // OpUDiv
    o[k + 3] = int(ux % uy);                // OpUMod
    o[k + 4] = x << (uy & 31u);
    o[k + 5] = x >> (uy & 31u);             // arithmetic
    o[k + 6] = int(ux >> (uy & 31u));       // logical
    o[k + 7] = bitfieldExtract(x, 3, 7);
    o[k + 8] = int(bitfieldExtract(ux, 5, 11));
    o[k + 9] = bitfieldInsert(x, y, 4, 9);
    o[k + 10] = bitCount(x);
    o[k + 11] = bitfieldReverse(x);
    uint hi, lo;
    umulExtended(ux, uy, hi, lo);
    o[k + 12] = int(hi); o[k + 13] = int(lo);
    int shi, slo;
    imulExtended(x, y, shi, slo);
    o[k + 14] = shi; o[k + 15] = slo;
    uint carry, borrow;
    o[k + 16] = int(uaddCarry(ux, uy, carry)); o[k + 17] = int(carry);
    o[k + 18] = int(usubBorrow(ux, uy, borrow)); o[k + 19] = int(borrow);
    o[k + 20] = x * y;
    o[k + 21] = -x;
    o[k + 22] = ~x ^ y;
    o[k + 23] = (x < y ? 1 : 0) + (ux < uy ? 2 : 0) + (x == y ? 4 : 0) + (x >= y ? 8 : 0);
}
