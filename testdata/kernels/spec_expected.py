#!/usr/bin/env python3
"""testdata/kernels/spec_expected.py — reference values for the spec_*.spvasm tests.

    python3 spec_expected.py MODULE.spvasm [SPECID=VALUE ...]

Evaluates every OpSpecConstant* / OpSpecConstantOp / OpSpecConstantComposite of
a hand-written .spvasm (with the module's defaults, or the SPECID=VALUE
overrides: 5=-3, 8=0x10, 13=1.5, 11=false) and prints, for every "; slot N:
LABEL" comment of the module, "N LABEL 0xBITS": the 64-bit word the kernel
stores in out[N] (the value's bits, zero-extended; bool 0/1; floats as IEEE
bits).  A comment "; slot N: LABEL = VALUE" gives a slot's value directly.

It is an independent implementation of SPIR-V's folding rules (wrapping
integer arithmetic, SDiv/SRem/SMod signs, shifts, conversions rounding toward
zero / to nearest even, FRem/FMod signs), written in Python so that the C
specializer is checked against something that does not share its code.
It reads only the subset of assembly syntax those modules use.
"""
import re, sys, struct, math
src = open(sys.argv[1]).read()
overrides = {}
for arg in sys.argv[2:]:
    k, v = arg.split('=', 1)
    overrides[int(k)] = v
spec_ids = {m.group(1): int(m.group(2)) for m in
            re.finditer(r'OpDecorate %(\w+) SpecId (\d+)', src)}
types, vals = {}, {}
def fbits(x, w):
    if w == 32: return struct.unpack('<I', struct.pack('<f', x))[0]
    if w == 64: return struct.unpack('<Q', struct.pack('<d', x))[0]
    try: return struct.unpack('<H', struct.pack('<e', x))[0]
    except OverflowError: return 0x7C00 if x > 0 else 0xFC00
def bitsf(b, w):
    if w == 32: return struct.unpack('<f', struct.pack('<I', b))[0]
    if w == 64: return struct.unpack('<d', struct.pack('<Q', b))[0]
    return struct.unpack('<e', struct.pack('<H', b))[0]
def sx(b, w): b &= (1<<w)-1; return b - (1<<w) if b >> (w-1) else b
def lit(txt, ty):
    kind, a = types[ty]
    if kind == 'Float': return fbits(float(txt), int(a[0]))
    v = int(txt, 0); return v & ((1<<int(a[0]))-1)
def width(ty): return int(types[ty][1][0])
def comp(ty): return types[ty][1][0][1:]
def isvec(ty): return types[ty][0] == 'Vector'
def cnt(ty): return int(types[ty][1][1])

def evalop(ty, opc, args):
    rt = ty
    ops = []
    for a in args:
        if a.startswith('%'): ops.append(vals[a[1:]])
        else: ops.append((None, int(a, 0)))
    if opc == 'VectorShuffle':
        (t1, v1), (t2, v2) = ops[0], ops[1]
        allc = list(v1) + list(v2)
        return [allc[i] for (_, i) in ops[2:]]
    if opc == 'CompositeExtract':
        v = ops[0][1]
        for (_, i) in ops[1:]: v = v[i]
        return v
    if opc == 'CompositeInsert':
        import copy
        obj = copy.deepcopy(ops[1][1]); idx = [i for (_, i) in ops[2:]]
        cur = obj
        for i in idx[:-1]: cur = cur[i]
        cur[idx[-1]] = ops[0][1]
        return obj
    if opc == 'Select':
        (ct, c), (at, a), (bt, b) = ops
        if isvec(rt):
            n = cnt(rt)
            cc = c if isinstance(c, list) else [c]*n
            return [a[i] if cc[i] else b[i] for i in range(n)]
        return a if c else b
    if opc == 'Bitcast' and isvec(rt) != isvec(ops[0][0]):
        if isvec(rt):
            n = cnt(rt); w = width(comp(rt))
            return [(ops[0][1] >> (w*i)) & ((1<<w)-1) for i in range(n)]
        w = width(comp(ops[0][0]))
        return sum(c << (w*i) for i, c in enumerate(ops[0][1]))
    # component-wise
    if isvec(rt) or any(isinstance(o[1], list) for o in ops):
        n = cnt(rt)
        et = comp(rt)
        res = []
        for i in range(n):
            sub = []
            for (t, v) in ops:
                sub.append((comp(t) if t and isvec(t) else t, v[i] if isinstance(v, list) else v))
            res.append(scalar_op(et, opc, sub))
        return res
    return scalar_op(rt, opc, ops)

def scalar_op(rt, opc, ops):
    rk = types[rt][0]
    rw = width(rt) if rk in ('Int', 'Float') else 1
    m = (1 << rw) - 1
    def sv(i): t, v = ops[i]; return sx(v, width(t))
    def uv(i): return ops[i][1]
    def fv(i): t, v = ops[i]; return bitsf(v, width(t))
    def fr(x):
        if math.isnan(x): return {16:0x7E00,32:0x7FC00000,64:0x7FF8000000000000}[rw]
        return fbits(x, rw)
    if opc == 'SConvert': return sv(0) & m
    if opc == 'UConvert': return uv(0) & m
    if opc == 'FConvert': return fr(fv(0))
    if opc == 'QuantizeToF16': return fbits(bitsf(fbits(fv(0), 16), 16), 32)
    if opc == 'SNegate': return (-sv(0)) & m
    if opc == 'Not': return (~uv(0)) & m
    if opc == 'IAdd': return (uv(0) + uv(1)) & m
    if opc == 'ISub': return (uv(0) - uv(1)) & m
    if opc == 'IMul': return (uv(0) * uv(1)) & m
    if opc == 'UDiv': return (uv(0) // uv(1)) & m
    if opc == 'UMod': return (uv(0) % uv(1)) & m
    if opc == 'SDiv':
        a, b = sv(0), sv(1); q = abs(a) // abs(b)
        return (q if (a < 0) == (b < 0) else -q) & m
    if opc == 'SRem':
        a, b = sv(0), sv(1); r = abs(a) % abs(b)
        return (r if a >= 0 else -r) & m
    if opc == 'SMod':
        a, b = sv(0), sv(1); r = a % b   # python: sign of divisor
        return r & m
    if opc == 'ShiftRightLogical': assert uv(1) < rw; return (uv(0) >> uv(1)) & m
    if opc == 'ShiftRightArithmetic': assert uv(1) < rw; return (sv(0) >> uv(1)) & m
    if opc == 'ShiftLeftLogical': assert uv(1) < rw; return (uv(0) << uv(1)) & m
    if opc == 'BitwiseOr': return uv(0) | uv(1)
    if opc == 'BitwiseXor': return uv(0) ^ uv(1)
    if opc == 'BitwiseAnd': return uv(0) & uv(1)
    if opc == 'LogicalOr': return int(bool(uv(0)) or bool(uv(1)))
    if opc == 'LogicalAnd': return int(bool(uv(0)) and bool(uv(1)))
    if opc == 'LogicalNot': return int(not uv(0))
    if opc == 'LogicalEqual': return int(uv(0) == uv(1))
    if opc == 'LogicalNotEqual': return int(uv(0) != uv(1))
    if opc == 'IEqual': return int(uv(0) == uv(1))
    if opc == 'INotEqual': return int(uv(0) != uv(1))
    if opc == 'ULessThan': return int(uv(0) < uv(1))
    if opc == 'SLessThan': return int(sv(0) < sv(1))
    if opc == 'UGreaterThan': return int(uv(0) > uv(1))
    if opc == 'SGreaterThan': return int(sv(0) > sv(1))
    if opc == 'ULessThanEqual': return int(uv(0) <= uv(1))
    if opc == 'SLessThanEqual': return int(sv(0) <= sv(1))
    if opc == 'UGreaterThanEqual': return int(uv(0) >= uv(1))
    if opc == 'SGreaterThanEqual': return int(sv(0) >= sv(1))
    # Kernel-only
    if opc in ('ConvertFToS', 'ConvertFToU'):
        x = math.trunc(fv(0)); return x & m
    if opc == 'ConvertSToF': return fr(float(sv(0)))
    if opc == 'ConvertUToF': return fr(float(uv(0)))
    if opc == 'Bitcast':
        return uv(0) & m

    if opc == 'FNegate': return uv(0) ^ (1 << (rw-1))
    if opc == 'FAdd': return fr(fv(0) + fv(1))
    if opc == 'FSub': return fr(fv(0) - fv(1))
    if opc == 'FMul': return fr(fv(0) * fv(1))
    if opc == 'FDiv': return fr(fv(0) / fv(1))
    if opc == 'FRem': return fr(math.fmod(fv(0), fv(1)))
    if opc == 'FMod':
        a, b = fv(0), fv(1); r = math.fmod(a, b)
        if r != 0 and ((r < 0) != (b < 0)): r += b
        return fr(r)
    raise SystemExit('unhandled ' + opc)
for line in src.splitlines():
    line = line.split(';')[0].strip()
    m = re.match(r'%(\w+) = (Op\w+)\s*(.*)$', line)
    if not m: continue
    rid, op, rest = m.group(1), m.group(2), m.group(3).split()
    if op.startswith('OpType'):
        types[rid] = (op[6:], rest); continue
    if op == 'OpSpecConstant' and spec_ids.get(rid) in overrides:
        vals[rid] = (rest[0][1:], lit(overrides[spec_ids[rid]], rest[0][1:]))
    elif op in ('OpSpecConstantTrue', 'OpSpecConstantFalse') and spec_ids.get(rid) in overrides:
        vals[rid] = (rest[0][1:], int(overrides[spec_ids[rid]].lower() in ('1', 'true')))
    elif op in ('OpConstant', 'OpSpecConstant'):
        vals[rid] = (rest[0][1:], lit(rest[1], rest[0][1:]))
    elif op == 'OpConstantNull':
        def zero(t):
            k, a = types[t]
            if k in ('Vector', 'Matrix'): return [zero(a[0][1:]) for _ in range(int(a[1]))]
            if k == 'Array': return [zero(a[0][1:]) for _ in range(vals[a[1][1:]][1])]
            if k == 'Struct': return [zero(x[1:]) for x in a]
            return 0
        vals[rid] = (rest[0][1:], zero(rest[0][1:]))
    elif op in ('OpConstantTrue', 'OpSpecConstantTrue'): vals[rid] = (rest[0][1:], 1)
    elif op in ('OpConstantFalse', 'OpSpecConstantFalse'): vals[rid] = (rest[0][1:], 0)
    elif op in ('OpConstantComposite', 'OpSpecConstantComposite'):
        vals[rid] = (rest[0][1:], [vals[x[1:]][1] for x in rest[1:]])
    elif op == 'OpSpecConstantOp':
        ty, opc, args = rest[0][1:], rest[1], rest[2:]
        vals[rid] = (ty, evalop(ty, opc, args))
    if op == 'OpFunction': break

slots = []
for line in src.splitlines():
    mm = re.match(r'\s*; slot (\d+): (\S+)(?: = (\S+))?', line)
    if mm: slots.append((mm.group(2), mm.group(3)))
for k, (label, fixed) in enumerate(slots):
    if fixed is not None:
        print(k, label, '0x%016x' % int(fixed, 0)); continue
    mm = re.match(r'(\w+)((?:\[\d+\])*)$', label)
    t, v = vals[mm.group(1)]
    for i in re.findall(r'\d+', mm.group(2)): v = v[int(i)]
    print(k, label, '0x%016x' % v)
