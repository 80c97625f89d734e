// cl_wg.cl — OpenCL 2.0 work-group collectives (OpGroup* at Workgroup scope),
// async work-group copies (OpGroupAsyncCopy, OpGroupWaitEvents) and integer
// dot products (OpSDot / OpUDot / OpSUDot / OpSDotAccSat, SPV_KHR_integer_dot_product).
// Run with a local size of 32 (LS) over whole groups; see test_jit_cl.c.
#define LS 32
#define NI 13
kernel void wg(global const int *in, global const float *fin, global int *out, global float *fout,
               global int *copy_out, global const uchar4 *ua, global const char4 *sb)
{
    size_t l = get_local_id(0), g = get_global_id(0), grp = get_group_id(0);
    int v = in[g];
    float f = fin[g];
    global int *o = out + NI * g;
    o[0] = work_group_all(v > -900);
    o[1] = work_group_any(v == 77);
    o[2] = work_group_broadcast(v, (size_t)(grp % LS));
    o[3] = work_group_reduce_add(v);
    o[4] = work_group_reduce_min(v);
    o[5] = work_group_reduce_max(v);
    o[6] = (int)work_group_reduce_max((uint)v);
    o[7] = work_group_scan_inclusive_add(v);
    o[8] = work_group_scan_exclusive_add(v);
    o[9] = work_group_scan_inclusive_max(v);
    o[10] = work_group_scan_exclusive_min(v);
    o[11] = (int)work_group_scan_inclusive_min((uint)v);
    o[12] = (int)(work_group_reduce_add((long)v * 1000003) >> 3);
    fout[4 * g] = work_group_reduce_add(f);
    fout[4 * g + 1] = work_group_reduce_min(f);
    fout[4 * g + 2] = work_group_scan_inclusive_add(f);
    fout[4 * g + 3] = work_group_scan_exclusive_max(f);

    // async copies: global -> local (contiguous and strided), local -> global
    local int buf[LS], gathered[LS / 2];
    event_t ev[2];
    ev[0] = async_work_group_copy(buf, in + grp * LS, LS, 0);
    ev[1] = async_work_group_strided_copy(gathered, in + grp * LS + 1, LS / 2, 2, 0);
    wait_group_events(2, ev);
    int mixed = buf[(l + 1) % LS] * 3 + gathered[l / 2];
    barrier(CLK_LOCAL_MEM_FENCE);
    buf[l] = mixed;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t e2 = async_work_group_copy(copy_out + grp * LS, buf, LS, 0);
    e2 = async_work_group_strided_copy(copy_out + 2048 + grp * LS * 2, buf, LS, 2, e2);
    wait_group_events(1, &e2);

    // integer dot products
    uchar4 a = ua[g];
    char4 b = sb[g];
    global int *d = copy_out + 4096 + 4 * g;
    d[0] = dot(a, b);
    d[1] = dot(b, b.wzyx);
    d[2] = (int)dot(a, a.yxwz);
    d[3] = dot_acc_sat(b, b.yzwx, v > 500 ? 0x7fffff00 : v < -500 ? (int)0x80000100 : v);
}
