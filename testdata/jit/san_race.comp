#version 450
// A planted work-group race for memory=check: the barrier between the store
// and the neighbour's load is missing.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float d[]; } data;
shared float s[64];
void main()
{
    uint l = gl_LocalInvocationID.x;
    s[l] = data.d[gl_GlobalInvocationID.x];
    data.d[gl_GlobalInvocationID.x] = s[(l + 1u) % 64u];
}
