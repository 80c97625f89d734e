#!/usr/bin/env python3
"""testdata/malformed/make_malformed.py — derives broken .spv files from a valid one.

    python3 make_malformed.py BASE.spv OUTDIR [--spirv-val spirv-val]

BASE is testdata/kernels/saxpy.comp.spv (glslang output, Vulkan 1.1).  Each
case below is one precise defect (README.md lists them and the error a loader
must give).  With --spirv-val, the script also checks its own work: SPIRV-Tools
must reject every file but byte_swapped.spv, and byte_swapped.spv must be the
base module word for word once its words are swapped back.  (spirv-val itself
rejects byte_swapped.spv: SPIRV-Tools decodes literal strings of a
cross-endian module in the wrong byte order, SPIRV-Tools issue #5595; a loader
must swap the words to host order before handing them to SPIRV-Tools.)

The edits work on the instruction stream, not on fixed offsets, so the script
keeps working if saxpy.comp is rebuilt by another glslang; it stops with a
message if the base lacks an instruction a case needs.
"""
import struct
import subprocess
import sys

MAGIC = 0x07230203

# Opcodes used below (SPIRV-Headers spirv.h values).
OP_NAME = 5
OP_MEMORY_MODEL = 14
OP_TYPE_INT = 21
OP_TYPE_FLOAT = 22
OP_TYPE_RUNTIME_ARRAY = 29
OP_CONSTANT = 43
OP_SPEC_CONSTANT = 50
OP_SPEC_CONSTANT_OP = 52
OP_FUNCTION_END = 56
OP_STORE = 62
OP_LOAD = 61
OP_LABEL = 248
OP_FADD = 129
OP_DOT = 148
OP_UNASSIGNED = 0xFFFF  # no SPIR-V opcode has this value


def fail(msg):
    sys.exit('make_malformed.py: ' + msg)


def parse(words):
    """Returns (header words, list of instructions as word lists)."""
    if len(words) < 5 or words[0] != MAGIC:
        fail('base module is not a little-endian SPIR-V module')
    insts, i = [], 5
    while i < len(words):
        count = words[i] >> 16
        if count == 0 or i + count > len(words):
            fail('base module is malformed at word %d' % i)
        insts.append(list(words[i:i + count]))
        i += count
    return list(words[:5]), insts


def join(header, insts):
    out = list(header)
    for inst in insts:
        out.extend(inst)
    return out


def opcode(inst):
    return inst[0] & 0xFFFF


def find(insts, op, pred=lambda inst: True):
    for k, inst in enumerate(insts):
        if opcode(inst) == op and pred(inst):
            return k
    fail('base module has no opcode %d instruction for this case' % op)


def make_inst(op, operands):
    return [((1 + len(operands)) << 16) | op] + list(operands)


def to_bytes(words, endian='<'):
    return struct.pack('%s%dI' % (endian, len(words)), *words)


def cases(base_words):
    header, insts = parse(base_words)
    bound = header[3]
    out = {}

    out['empty.spv'] = b''
    # Fewer than the five header words.
    out['short_header.spv'] = to_bytes(header[:4])
    # A whole valid module followed by 3 stray bytes.
    out['odd_length.spv'] = to_bytes(base_words) + b'\x01\x02\x03'
    out['bad_magic.spv'] = to_bytes([0xDEADBEEF] + base_words[1:])
    # Valid: the same module written big-endian.  A loader must detect the
    # byte order from the magic number and load it like the original.
    out['byte_swapped.spv'] = to_bytes(base_words, '>')
    # Version 2.0 does not exist.
    out['bad_version.spv'] = to_bytes([MAGIC, 0x00020000] + base_words[2:])

    # Word count 0 in OpMemoryModel's first word.
    k = find(insts, OP_MEMORY_MODEL)
    bad = [list(i) for i in insts]
    bad[k][0] = OP_MEMORY_MODEL  # count 0
    out['word_count_zero.spv'] = to_bytes(join(header, bad))

    # The last instruction (OpFunctionEnd, 1 word) claims 3 words.
    bad = [list(i) for i in insts]
    if opcode(bad[-1]) != OP_FUNCTION_END:
        fail('base module does not end with OpFunctionEnd')
    bad[-1][0] = (3 << 16) | OP_FUNCTION_END
    out['truncated_instruction.spv'] = to_bytes(join(header, bad))

    # OpTypeInt with 3 words: its Signedness operand is missing.
    k = find(insts, OP_TYPE_INT)
    bad = [list(i) for i in insts]
    bad[k] = make_inst(OP_TYPE_INT, bad[k][1:3])
    out['missing_operand.spv'] = to_bytes(join(header, bad))

    # Bound lowered to the largest id in use, so that id is >= bound.
    max_id = bound - 1
    if not any(len(i) > 2 and (i[1] == max_id or i[2] == max_id) for i in insts):
        fail('id %d (bound - 1) is not defined in the base module' % max_id)
    out['id_out_of_bound.spv'] = to_bytes([MAGIC, header[1], header[2], max_id, 0] + join([], insts))
    out['bound_zero.spv'] = to_bytes([MAGIC, header[1], header[2], 0, 0] + join([], insts))
    out['bound_huge.spv'] = to_bytes([MAGIC, header[1], header[2], 0xFFFFFFFF, 0] + join([], insts))

    # An instruction with an unassigned opcode (0xFFFF), first in main's body.
    k = find(insts, OP_LABEL)
    bad = [list(i) for i in insts]
    bad.insert(k + 1, make_inst(OP_UNASSIGNED, [1]))
    out['unknown_opcode.spv'] = to_bytes(join(header, bad))

    # OpTypeFloat 32 moved after OpTypeRuntimeArray, which uses it.
    kf = find(insts, OP_TYPE_FLOAT)
    float_id = insts[kf][1]
    kr = find(insts, OP_TYPE_RUNTIME_ARRAY, lambda i: i[2] == float_id)
    bad = [list(i) for i in insts]
    moved = bad.pop(kf)
    bad.insert(kr, moved)  # kr shifted down by one: lands right after the array
    out['type_used_before_defined.spv'] = to_bytes(join(header, bad))

    # The second OpConstant gets the first OpConstant's result id.
    k1 = find(insts, OP_CONSTANT)
    k2 = find(insts, OP_CONSTANT, lambda i: i is not insts[k1])
    bad = [list(i) for i in insts]
    bad[k2][2] = bad[k1][2]
    out['duplicate_result_id.spv'] = to_bytes(join(header, bad))

    # OpSpecConstantOp with opcodes SPIR-V never allows there (Dot) and one
    # only a Kernel module may use (FAdd, in this Shader module).  Each is a
    # new float result right after the spec constant `a`.
    ks = find(insts, OP_SPEC_CONSTANT)
    float_ty, spec_a = insts[ks][1], insts[ks][2]
    for name, op in (('specop_disallowed.spv', OP_DOT), ('specop_kernel_only.spv', OP_FADD)):
        bad = [list(i) for i in insts]
        bad.insert(ks + 1, make_inst(OP_SPEC_CONSTANT_OP, [float_ty, bound, op, spec_a, spec_a]))
        out[name] = to_bytes([MAGIC, header[1], header[2], bound + 1, 0] + join([], bad))

    # OpName %main "main": the word holding the NUL terminator becomes "abcd",
    # so the string runs to the end of the instruction without a NUL.
    k = find(insts, OP_NAME, lambda i: to_bytes(i[2:]).rstrip(b'\0') == b'main')
    bad = [list(i) for i in insts]
    bad[k][-1] = struct.unpack('<I', b'abcd')[0]
    out['string_no_nul.spv'] = to_bytes(join(header, bad))

    # Structurally fine (every id defined once, before use, right operand
    # counts), but invalid: the store into y[i] stores a uint loaded earlier
    # instead of the float `a * x[i] + y[i]` — a type mismatch only a
    # validator (SPIRV-Tools) catches.
    k_store = None
    for k, inst in enumerate(insts):
        if opcode(inst) == OP_STORE:
            k_store = k  # the last store in main is the y[i] store
    if k_store is None:
        fail('base module has no OpStore')
    types = {inst[2]: inst[1] for inst in insts if opcode(inst) == OP_LOAD}
    uint_value = next((rid for rid, ty in types.items() if ty != float_ty), None)
    if uint_value is None:
        fail('base module has no non-float OpLoad to misuse')
    bad = [list(i) for i in insts]
    bad[k_store][2] = uint_value
    out['store_type_mismatch.spv'] = to_bytes(join(header, bad))
    return out


def main():
    args = sys.argv[1:]
    spirv_val = None
    if '--spirv-val' in args:
        i = args.index('--spirv-val')
        spirv_val = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    base_path, out_dir = args
    data = open(base_path, 'rb').read()
    if len(data) % 4:
        fail('base module length is not a multiple of 4')
    words = list(struct.unpack('<%dI' % (len(data) // 4), data))
    for name, blob in sorted(cases(words).items()):
        path = '%s/%s' % (out_dir, name)
        with open(path, 'wb') as f:
            f.write(blob)
        if name == 'byte_swapped.spv':
            back = struct.unpack('>%dI' % (len(blob) // 4), blob)
            if list(back) != words:
                fail('%s: does not swap back to the base module' % path)
        elif spirv_val:
            ok = subprocess.run([spirv_val, '--target-env', 'vulkan1.1', path],
                                capture_output=True).returncode == 0
            if ok:
                fail('%s: spirv-val accepts it' % path)
    if spirv_val and subprocess.run([spirv_val, '--target-env', 'vulkan1.1', base_path]).returncode:
        fail('%s: spirv-val rejects the base module' % base_path)


if __name__ == '__main__':
    main()
