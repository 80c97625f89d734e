#!/bin/sh
# testdata/jit/build.sh — rebuilds the JIT test kernels (the .spv are committed).
set -e
cd "$(dirname "$0")"
for f in *.comp; do
  glslangValidator -V --target-env vulkan1.1 "$f" -o "$f.spv"
  spirv-val --target-env vulkan1.1 "$f.spv"
done
