// saxpy.comp — y[i] = a * x[i] + y[i] for i < n.
//
// a is specialization constant 0 (float, default 2.0).
// Local size 64 x 1 x 1; dispatch ceil(n/64) x 1 x 1 work-groups.
#version 450

layout(constant_id = 0) const float a = 2.0;
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) buffer Y { float y[]; };
layout(push_constant, std430) uniform Params { uint n; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n)
        y[i] = a * x[i] + y[i];
}
