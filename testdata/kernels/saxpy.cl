// saxpy.cl — y[i] = a * x[i] + y[i] for i < n (OpenCL C, Kernel flavour).
//
// a is specialization constant 0 (float, default 2.0): llvm-spirv-15 turns the
// __spirv_SpecConstant call into OpSpecConstant + OpDecorate SpecId.
// Arguments: 0 x (__global const float *), 1 y (__global float *), 2 n (uint).
// Any local size; global size >= n (1-D).

float __spirv_SpecConstant(int spec_id, float default_value) __attribute__((overloadable));

__kernel void saxpy(__global const float *x, __global float *y, uint n)
{
    const float a = __spirv_SpecConstant(0, 2.0f);
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
