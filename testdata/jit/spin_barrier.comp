#version 450
// spin.comp with a barrier in the loop: runs as regions or on fibers.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint d[]; } data;
shared uint s[64];
void main()
{
    uint l = gl_LocalInvocationID.x, n = 0u;
    while (data.d[0] == 0u) {
        s[l] = n;
        barrier();
        n += s[(l + 1u) & 63u] + 1u;
        barrier();
    }
    data.d[1u + gl_GlobalInvocationID.x] = n;
}
