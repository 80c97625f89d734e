// cl_table.cl — OpenCL C structs whose layouts the test
// layout_kernel_structs_match_clang checks against clang's record layouts for
// spir64: 3-component vectors (sized and aligned as 4), mixed scalars,
// nested structs, arrays of structs, pointers, packed structs, wide vectors.
struct In { char c; float3 v; short s; };
struct S { char a; int b; float3 v; struct In in; double d; char tail; };
struct __attribute__((packed)) P { char a; int b; short c; float3 v; double d; };
struct WithPacked { char a; struct P p; int after; };
struct A { float2 f2[3]; uchar u3; ulong l; struct S arr[2]; int3 i3; };
struct Wide { char c; float8 f8; short s; double16 d16; };
struct Ptrs { char c; global int *p; local float *q; uchar3 u; };
struct Arr { short s[3]; char c; long l[2]; struct In ins[2]; char z; };

kernel void table(global struct S *s, global struct P *p, global struct A *a, global struct WithPacked *wp,
                  global struct Wide *w, global struct Ptrs *ptrs, global struct Arr *arr, global float *out)
{
    out[0] = s->v.x + p->v.y + a->arr[1].d + a->f2[2].y + s->in.s + p->c + a->l + a->i3.z + wp->p.d + wp->after;
    out[1] = w->f8.s7 + w->d16.sf + w->s + *ptrs->p + ptrs->u.z + arr->s[2] + arr->l[1] + arr->ins[1].v.z + arr->z;
    s[1].tail = 3;
}
