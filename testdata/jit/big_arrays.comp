#version 450
// Private and work-group arrays sized by spec constants (test_api_limits.c):
// P uints per work-item (default 4M, 16 MiB: beyond the library's private
// memory limit) and S shared uints (at least 64).
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint P = 4u * 1024u * 1024u;
layout(constant_id = 1) const uint S = 64u;
layout(set = 0, binding = 0) buffer Data { uint d[]; };
shared uint s[S];
void main()
{
    uint p[P];
    uint l = gl_LocalInvocationID.x, i = gl_GlobalInvocationID.x;
    p[(i * 7u) % P] = i;
    s[(l * 5u) % S] = i;
    barrier();
    d[i] = p[(i * 7u) % P] + s[(l * 5u) % S];
}
