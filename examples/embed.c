/* examples/embed.c — embedding spvjit: saxpy (y = a*x + y) on the CPU.
 *
 *   cc -Ilib examples/embed.c -Lbuild -lspvjit -Wl,-rpath,build -o embed
 *   ./embed testdata/kernels/saxpy.comp.spv
 */
#include <stdio.h>

#include "spvjit.h"

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/kernels/saxpy.comp.spv";
    enum { N = 1000 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_specs *specs = NULL;
    spvjit_kernel *k = NULL;
    uint32_t n = N;
    if (spvjit_context_create(NULL, &ctx) || spvjit_module_load_file(ctx, path, &m) || spvjit_specs_create(&specs) ||
        spvjit_spec_set_f32(specs, 0, 3.0f) || /* a = 3, compiled in */
        spvjit_kernel_build(m, "main", specs, NULL, &k) || spvjit_bind_buffer(k, 0, 0, x, sizeof x) ||
        spvjit_bind_buffer(k, 0, 1, y, sizeof y) || spvjit_set_push_constants(k, &n, sizeof n) ||
        spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { (N + 63) / 64, 1, 1 } })) {
        fprintf(stderr, "embed: %s\n", spvjit_last_error());
        return 1;
    }
    printf("y[0] = %g, y[%d] = %g\n", y[0], N - 1, y[N - 1]);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(specs);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    return 0;
}
