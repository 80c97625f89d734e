/* The OpenCL C sub-group built-ins (cl_khr_subgroups and the extended-types,
 * non-uniform vote, ballot, non-uniform arithmetic, shuffle, shuffle-relative
 * and clustered-reduce extensions), for test_jit_subgroup.c.  Item g writes
 * R results to out[g * R + k]: the cl_khr_subgroups functions (which every
 * work-item of the sub-group must reach) first, in uniform control flow,
 * then, when in[g].w != 0, the non-uniform ones with the items whose w is 0
 * inactive.  x are small integers, f signed powers of two, y picks lanes. */
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define R 72

kernel void sg_ops(global const int4 *in, global int *out)
{
  size_t g = get_global_id(0);
  int4 v = in[g];
  int x = v.x;
  uint y = (uint)v.y;
  float f = as_float(v.z);
  global int *o = out + g * R;
  uint lane = get_sub_group_local_id(), n = get_sub_group_size();
  /* cl_khr_subgroups: all items */
  o[0] = (int)get_sub_group_size();
  o[1] = (int)get_max_sub_group_size();
  o[2] = (int)get_num_sub_groups();
  o[3] = (int)get_sub_group_id();
  o[4] = (int)get_sub_group_local_id();
  o[5] = (int)get_enqueued_num_sub_groups();
  o[6] = sub_group_all(x > -6);
  o[7] = sub_group_any(x > 6);
  o[8] = sub_group_broadcast(x, n - 1);
  o[9] = sub_group_reduce_add(x);
  o[10] = sub_group_reduce_min(x);
  o[11] = sub_group_reduce_max(x);
  o[12] = sub_group_scan_inclusive_add(x);
  o[13] = sub_group_scan_exclusive_add(x);
  o[14] = sub_group_scan_inclusive_min(x);
  o[15] = sub_group_scan_exclusive_max(x);
  o[16] = as_int(sub_group_reduce_add(f));
  o[17] = as_int(sub_group_scan_exclusive_add(f));
  o[18] = (int)(sub_group_reduce_max((long)x << 33) >> 33);
  o[19] = (int)sub_group_reduce_min((uint)(x + 8));
  o[20] = as_int((float)sub_group_reduce_add((double)f));
  /* extended types */
  o[21] = sub_group_reduce_add((short)x);
  o[22] = sub_group_scan_inclusive_max((char)x);
  o[23] = sub_group_reduce_min((uchar)(x + 8));
  o[24] = sub_group_broadcast((short)x, 0);
  int2 b2 = sub_group_broadcast((int2)(x, -x), 0);
  o[25] = b2.x * 100 + b2.y;
  if (v.w == 0)
    return;
  /* non-uniform vote */
  o[26] = sub_group_elect();
  o[27] = sub_group_non_uniform_all(x > -6);
  o[28] = sub_group_non_uniform_any(x > 6);
  o[29] = sub_group_non_uniform_all_equal(x) + 2 * sub_group_non_uniform_all_equal(f);
  /* non-uniform arithmetic */
  o[30] = sub_group_non_uniform_reduce_add(x);
  o[31] = sub_group_non_uniform_reduce_mul(x);
  o[32] = sub_group_non_uniform_reduce_min(x);
  o[33] = sub_group_non_uniform_reduce_max(x);
  o[34] = sub_group_non_uniform_reduce_and(x);
  o[35] = sub_group_non_uniform_reduce_or(x);
  o[36] = sub_group_non_uniform_reduce_xor(x);
  o[37] = sub_group_non_uniform_reduce_logical_and(x > -7);
  o[38] = sub_group_non_uniform_reduce_logical_or(x > 3);
  o[39] = sub_group_non_uniform_reduce_logical_xor(x > 0);
  o[40] = sub_group_non_uniform_scan_inclusive_add(x);
  o[41] = sub_group_non_uniform_scan_exclusive_mul(x);
  o[42] = sub_group_non_uniform_scan_exclusive_max(x);
  o[43] = as_int(sub_group_non_uniform_reduce_mul(f));
  o[44] = as_int(sub_group_non_uniform_scan_inclusive_add(f));
  o[45] = sub_group_non_uniform_scan_inclusive_xor(x);
  /* ballot */
  uint4 ball = sub_group_ballot(x > 0);
  o[46] = (int)ball.x;
  o[47] = (int)(ball.y | ball.z | ball.w);
  o[48] = sub_group_inverse_ballot((uint4)(sub_group_broadcast_first(y), 0, 0, 0));
  o[49] = sub_group_ballot_bit_extract(ball, (lane + 1) % n);
  o[50] = (int)sub_group_ballot_bit_count(ball);
  o[51] = (int)sub_group_ballot_inclusive_scan(ball);
  o[52] = (int)sub_group_ballot_exclusive_scan(ball);
  uint4 all = sub_group_ballot(1);
  o[53] = (int)sub_group_ballot_find_lsb(all);
  o[54] = (int)sub_group_ballot_find_msb(all);
  o[55] = sub_group_non_uniform_broadcast(x, 1);
  o[56] = sub_group_broadcast_first(x);
  o[57] = (int)get_sub_group_eq_mask().x;
  o[58] = (int)get_sub_group_ge_mask().x;
  o[59] = (int)get_sub_group_gt_mask().x;
  o[60] = (int)get_sub_group_le_mask().x;
  o[61] = (int)get_sub_group_lt_mask().x;
  /* shuffles */
  o[62] = sub_group_shuffle(x, y % n);
  o[63] = sub_group_shuffle_xor(x, 1);
  o[64] = sub_group_shuffle_up(x, 1);
  o[65] = sub_group_shuffle_down(x, 2);
  o[66] = as_int(sub_group_shuffle(f, y % n));
  /* clustered */
  o[67] = sub_group_clustered_reduce_add(x, 4);
  o[68] = sub_group_clustered_reduce_max(x, 2);
  o[69] = sub_group_clustered_reduce_or(x, 8);
  o[70] = sub_group_clustered_reduce_logical_and(x > -4, 4);
  /* a loop left by the items one by one */
  int acc = 0;
  for (uint j = 0; j < y % 4; j++)
    acc += sub_group_non_uniform_reduce_add(x + (int)j) * (int)(j + 1);
  o[71] = acc;
}
