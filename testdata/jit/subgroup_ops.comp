// Every GL_KHR_shader_subgroup_* operation, for test_jit_subgroup.c: item g
// (1-D, local size from spec constant 0) writes R results to o[g * R + k]
// when act[g] != 0 (the others write nothing), so the active lanes of a
// sub-group are those with act set; a loop with a per-item trip count makes a
// shrinking lane set.  x are small integers, f small powers of two with signs
// (exact float sums and products in any order); y picks lanes.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer In { ivec4 inp[]; }; // x, y, f bits, act
layout(std430, binding = 1) writeonly buffer Out { int o[]; };

const int R = 72;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    ivec4 v = inp[g];
    int x = v.x;
    uint y = uint(v.y);
    float f = intBitsToFloat(v.z);
    if (v.w == 0)
        return;
    uint b = g * R;
    uint lane = gl_SubgroupInvocationID, n = gl_SubgroupSize;
    o[b + 0] = int(gl_SubgroupSize);
    o[b + 1] = int(gl_SubgroupInvocationID);
    o[b + 2] = int(gl_SubgroupID);
    o[b + 3] = int(gl_NumSubgroups);
    o[b + 4] = subgroupElect() ? 1 : 0;
    o[b + 5] = subgroupAll(x > -6) ? 1 : 0;
    o[b + 6] = subgroupAny(x > 6) ? 1 : 0;
    o[b + 7] = (subgroupAllEqual(x) ? 1 : 0) + (subgroupAllEqual(gl_WorkGroupID.x) ? 2 : 0) +
               (subgroupAllEqual(f) ? 4 : 0);
    o[b + 8] = subgroupAdd(x);
    o[b + 9] = subgroupMul(x);
    o[b + 10] = subgroupMin(x);
    o[b + 11] = subgroupMax(x);
    o[b + 12] = subgroupAnd(x);
    o[b + 13] = subgroupOr(x);
    o[b + 14] = subgroupXor(x);
    o[b + 15] = subgroupInclusiveAdd(x);
    o[b + 16] = subgroupExclusiveAdd(x);
    o[b + 17] = subgroupInclusiveMin(x);
    o[b + 18] = subgroupExclusiveMax(x);
    o[b + 19] = subgroupExclusiveMul(x);
    o[b + 20] = subgroupInclusiveXor(x);
    o[b + 21] = floatBitsToInt(subgroupAdd(f));
    o[b + 22] = floatBitsToInt(subgroupMin(f));
    o[b + 23] = floatBitsToInt(subgroupMax(f));
    o[b + 24] = floatBitsToInt(subgroupMul(f));
    o[b + 25] = floatBitsToInt(subgroupInclusiveAdd(f));
    o[b + 26] = floatBitsToInt(subgroupExclusiveMul(f));
    o[b + 27] = int(subgroupMin(uint(x + 8)));
    o[b + 28] = int(subgroupExclusiveMax(uint(x + 8)));
    o[b + 29] = subgroupClusteredAdd(x, 4);
    o[b + 30] = subgroupClusteredMax(x, 2);
    o[b + 31] = subgroupClusteredOr(x, 8);
    o[b + 32] = floatBitsToInt(subgroupClusteredMul(f, 4));
    o[b + 33] = subgroupClusteredMin(x, 1);
    o[b + 34] = subgroupOr(x > 3) ? 1 : 0;
    o[b + 35] = subgroupAnd(x > -7) ? 1 : 0;
    uvec4 ball = subgroupBallot(x > 0);
    o[b + 36] = int(ball.x);
    o[b + 37] = int(ball.y | ball.z | ball.w);
    o[b + 38] = subgroupInverseBallot(uvec4(subgroupBroadcastFirst(y), 0, 0, 0)) ? 1 : 0;
    o[b + 39] = subgroupBallotBitExtract(ball, (lane + 1) % n) ? 1 : 0;
    o[b + 40] = int(subgroupBallotBitCount(ball));
    o[b + 41] = int(subgroupBallotInclusiveBitCount(ball));
    o[b + 42] = int(subgroupBallotExclusiveBitCount(ball));
    uvec4 all = subgroupBallot(true);
    o[b + 43] = int(subgroupBallotFindLSB(all));
    o[b + 44] = int(subgroupBallotFindMSB(all));
    o[b + 45] = subgroupBroadcast(x, 1u);
    o[b + 46] = subgroupBroadcastFirst(x);
    o[b + 47] = int(gl_SubgroupEqMask.x);
    o[b + 48] = int(gl_SubgroupGeMask.x);
    o[b + 49] = int(gl_SubgroupGtMask.x);
    o[b + 50] = int(gl_SubgroupLeMask.x);
    o[b + 51] = int(gl_SubgroupLtMask.x);
    o[b + 52] = subgroupShuffle(x, y % n);
    o[b + 53] = subgroupShuffleXor(x, 1u);
    o[b + 54] = subgroupShuffleXor(x, 6u);
    o[b + 55] = subgroupShuffleUp(x, 1u);
    o[b + 56] = subgroupShuffleDown(x, 2u);
    o[b + 57] = subgroupQuadBroadcast(x, 1u);
    o[b + 58] = subgroupQuadSwapHorizontal(x);
    o[b + 59] = subgroupQuadSwapVertical(x);
    o[b + 60] = subgroupQuadSwapDiagonal(x);
    o[b + 61] = floatBitsToInt(subgroupShuffle(f, y % n));
    ivec2 two = subgroupAdd(ivec2(x, 2 * x + 1));
    o[b + 62] = two.x;
    o[b + 63] = two.y;
    o[b + 64] = int(subgroupMax(int64_t(x) << 33) >> 33);
    o[b + 65] = floatBitsToInt(float(subgroupAdd(double(f))));
    // a loop left by the items one by one: iteration j runs the items with y % 4 > j
    int acc = 0;
    for (uint j = 0; j < y % 4; j++)
        acc += subgroupAdd(x + int(j)) * int(j + 1);
    o[b + 66] = acc;
    // a value in a divergent branch, used after it
    int z = 0;
    if ((y & 8u) != 0)
        z = subgroupMax(x);
    o[b + 67] = z + subgroupMin(x);
    o[b + 68] = int(subgroupShuffleUp(f, 3u));
    o[b + 69] = subgroupShuffle(x, n - 1u);
    o[b + 70] = int(subgroupElect()) + 2 * int(subgroupAll(true));
    o[b + 71] = int(subgroupBallotBitCount(subgroupBallot(lane < 3u)));
}
