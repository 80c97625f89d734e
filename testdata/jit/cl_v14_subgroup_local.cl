/* A SPIR-V 1.4 Kernel module as clang-15 + llvm-spirv-15 make it by default:
 * OpenCL C 2.0 with sub-group built-ins and a __local array in the kernel
 * body (a 1.4 OpEntryPoint lists that Workgroup variable among its interface).
 * out[g] = in[group base + 63 - local id] + 1, whatever the sub-group size. */
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
kernel void sg_local(global int *out, global const int *in) {
  local int tile[64];
  int i = get_local_id(0);
  tile[i] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  int one = sub_group_reduce_add(1) == (int)get_sub_group_size() && get_sub_group_local_id() < get_sub_group_size();
  out[get_global_id(0)] = tile[63 - i] + one;
}
