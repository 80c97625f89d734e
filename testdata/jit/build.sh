#!/bin/sh
# testdata/jit/build.sh — rebuilds the JIT test kernels (the .spv are committed).
#   X.comp -> X.comp.spv  glslangValidator, Vulkan 1.1 (san_*: with -g, for the
#                         source lines of memory=check's reports)
#   X.cl   -> X.cl.spv    clang-15 + llvm-spirv-15 with the flags of
#                         testdata/testdata.mk (cl_v14_*: SPIR-V 1.4, llvm-spirv's default
#                         maximum), plus -no-opaque-pointers (llvm-spirv-15
#                         asserts on clang-15's opaque pointers for these kernels) and
#                         the integer dot product extension for cl_wg.cl and the
#                         sub-group extensions for cl_v14_subgroup_ops.cl and
#                         cl_v14_subgroup_regions.cl
set -e
cd "$(dirname "$0")"
for f in *.comp; do
  g=""; case "$f" in san_*) g=-g ;; esac
  glslangValidator -V $g --target-env vulkan1.1 "$f" -o "$f.spv" >/dev/null
  spirv-val --target-env vulkan1.1 "$f.spv"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CLFLAGS="-cc1 -triple spir64-unknown-unknown -cl-std=CL2.0 -finclude-default-header -no-opaque-pointers -O2 -ffp-contract=off -emit-llvm-bc"
SG_EXT="-cl-ext=+cl_khr_subgroups,+cl_khr_subgroup_extended_types,+cl_khr_subgroup_non_uniform_vote,+cl_khr_subgroup_ballot,+cl_khr_subgroup_non_uniform_arithmetic,+cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative,+cl_khr_subgroup_clustered_reduce,+cl_khr_fp64"
DOT_EXT="-cl-ext=+cl_khr_integer_dot_product,+__opencl_c_integer_dot_product_input_4x8bit,+__opencl_c_integer_dot_product_input_4x8bit_packed"
for f in *.cl; do
  ext=""; spvext=""; maxver=1.2; env=opencl2.2
  if [ "$f" = cl_wg.cl ]; then ext="$DOT_EXT"; spvext="--spirv-ext=+SPV_KHR_integer_dot_product"; fi
  case "$f" in cl_v14_subgroup_ops.cl | cl_v14_subgroup_regions.cl) ext="$SG_EXT" ;; esac
  # cl_v14_*: llvm-spirv-15's default (up to SPIR-V 1.4), validated by the rules of 1.4
  case "$f" in cl_v14_*) maxver=1.4; env=spv1.4 ;; esac
  clang-15 $CLFLAGS $ext -o "$tmp/$f.bc" "$f"
  llvm-spirv-15 --spirv-max-version=$maxver $spvext "$tmp/$f.bc" -o "$f.spv"
  spirv-val --target-env $env "$f.spv"
done
