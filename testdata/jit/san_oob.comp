#version 450
// A planted bug for memory=check (test_api_memory.c checks the report word by
// word): the last work-item writes one element past the end.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint d[]; } data;
void main()
{
    uint gid = gl_GlobalInvocationID.x;
    data.d[gid + 1u] = gid;
}
