#version 450
// Loops until d[0] is non-zero (test_api_memory.c: time limits and
// cancellation); spin_barrier has a barrier in its loop.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint d[]; } data;
void main()
{
    uint n = 0u;
    while (data.d[0] == 0u)
        n++;
    data.d[1u + gl_GlobalInvocationID.x] = n;
}
