#!/usr/bin/python3
"""Translates piglit's OpenCL program tests into Amber scripts for `spvjit amber`.

    bench/piglit_amber.py PIGLIT_CHECKOUT OUT_DIR      # writes OUT_DIR/*.amber, prints a summary

piglit's tests/cl/program/execute/ holds OpenCL C kernels with their tests in
a comment block ([config] and [test] sections: kernel name, NDRange, argument
values and expected buffer contents), the suite PoCL and Mesa report against.
Nothing of piglit is committed to spvjit: this script reads a checkout and
writes one Amber script per piglit file into OUT_DIR (a temporary directory
in bench/conformance.py --piglit).

Each [test] becomes a pipeline of the file's one OPENCL-C shader (compiled by
spvjit amber with clang-15 + llvm-spirv-15) and a RUN:
  * the work-group size is the test's local_size (SPECIALIZE 0/1/2, clspv's
    ids, which spvjit amber maps to the work-group size), else the kernel's
    reqd_work_group_size, else 1x1x1; RUN's group counts are global/local;
    `dimensions` and `global_offset` use spvjit's RUN extensions WORK_DIM and
    GLOBAL_OFFSET;
  * a by-value argument is SET KERNEL (scalars) or a bound buffer holding its
    bytes (vectors); a `buffer T[N]` argument a buffer bound KERNEL ARG_NUMBER
    (`NULL`: N zero elements - a __local pointer argument is sized by it);
  * arg_out becomes EXPECT ... EQ, with TOLERANCE for `tolerance T` (piglit
    compares floats by absolute difference).
A file is left out (with the reason) when it needs images or samplers, is
for one device only (device_regex), or uses what this translation cannot
express (random data).
"""
import os
import re
import sys

SCALARS = {
    "char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16",
    "int": "int32", "uint": "uint32", "long": "int64", "ulong": "uint64",
    "half": "float16", "float": "float", "double": "double",
}
FLOATS = {"half", "float", "double"}
EXTENSIONS_SUPPORTED = {
    "cl_khr_fp16", "cl_khr_fp64", "cl_khr_byte_addressable_store",
    "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",
}


class Skip(Exception):
    pass


def parse_type(t):
    """'int4' -> ('int', 4); 'float' -> ('float', 1)."""
    m = re.fullmatch(r"([a-z]+?)(2|3|4|8|16)?", t)
    if not m or m.group(1) not in SCALARS:
        raise Skip(f"type {t}")
    return m.group(1), int(m.group(2) or 1)


SIZES = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "half": 2, "int": 4, "uint": 4, "float": 4,
         "long": 8, "ulong": 8, "double": 8}


def positions(n, count):
    """Scalar position in memory of each of count values of a type with n
    components: a 3-vector takes the room of 4 in OpenCL."""
    return [(k // 3) * 4 + k % 3 if n == 3 else k for k in range(count)]


def scalar_data(n, vals, zero="0"):
    """The values as the scalars in memory (3-vectors padded)."""
    if n != 3:
        return vals
    out = []
    for k in range(0, len(vals), 3):
        out += vals[k:k + 3] + [zero]
    return out


def config_text(path):
    with open(path, errors="replace") as f:
        text = f.read()
    if path.endswith(".program_test"):
        return text, None
    m = re.search(r"/\*!(.*?)!\*/", text, re.S)
    if not m:
        raise Skip("no test configuration")
    return m.group(1), text


def sections(cfg):
    """[(section, [(key, value)])], continuation lines joined, comments dropped."""
    out, cur, pending = [], None, ""
    for raw in cfg.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        s = line.strip()
        if not s:
            continue
        m = re.fullmatch(r"\[\s*([\w ]+?)\s*\]", s)
        if m:
            cur = (m.group(1), [])
            out.append(cur)
            continue
        m = re.fullmatch(r"(\w+)\s*:\s*(.*)", s)
        if m and cur is not None:
            cur[1].append((m.group(1), m.group(2).strip()))
    return out


def values_of(text, count, scalar):
    toks = text.split()
    tol = None
    if "tolerance" in toks:
        i = toks.index("tolerance")
        tol, toks = toks[i + 1], toks[:i]
    if toks and toks[0].lower() == "random":
        raise Skip("random data")
    if toks and toks[0].lower() == "repeat":
        pat = toks[1:]
        toks = (pat * (count // len(pat) + 1))[:count]
    if toks and toks[0] in ("NULL", "null"):
        return None, tol
    if len(toks) != count:
        raise Skip(f"{len(toks)} values for {count} elements")
    norm = []
    for v in toks:
        lv = v.lower().lstrip("+")
        if lv in ("nan", "-nan"):
            norm.append("nan")
        elif lv in ("inf", "infinity", "-inf", "-infinity"):
            norm.append(("-" if lv.startswith("-") else "") + "inf")
        elif scalar in FLOATS and re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", v):
            raise Skip("floats given as bits")
        elif re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+", v):
            norm.append(repr(float.fromhex(v)))  # a C hex float, exactly
        else:
            norm.append(v.lstrip("+"))
    return norm, tol


def reqd_size(source, kernel):
    m = re.search(r"reqd_work_group_size\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*\)\s*\)[^;{]*?\b" +
                  re.escape(kernel) + r"\s*\(", source, re.S)
    if not m:
        m = re.search(r"\b" + re.escape(kernel) + r"\s*\([^)]*\)\s*__attribute__\s*\(\(\s*reqd_work_group_size\s*\(\s*"
                      r"(\d+)\s*,\s*(\d+)\s*,\s*(\d+)", source, re.S)
    return [int(m.group(i)) for i in (1, 2, 3)] if m else None


def translate(path, rel):
    cfg, source = config_text(path)
    secs = sections(cfg)
    conf = dict(secs[0][1]) if secs and secs[0][0] == "config" else {}
    tests = [s for s in secs if s[0] == "test"]
    if not tests:
        raise Skip("no [test]")
    if "device_regex" in conf:
        raise Skip("for one device only (device_regex)")
    if conf.get("need_image_support", "").lower() in ("1", "true"):
        raise Skip("images")
    for ext in conf.get("require_device_extensions", "").split():
        if ext not in EXTENSIONS_SUPPORTED:
            raise Skip(f"device extension {ext}")
    if source is None:
        src = conf.get("program_source_file")
        if not src:
            raise Skip("no program source")
        with open(os.path.join(os.path.dirname(path), src), errors="replace") as f:
            source = f.read()
    if re.search(r"\b(image[123]d_t|image2d_array_t|sampler_t)\b", source):
        raise Skip("images or samplers")
    version = int(conf.get("clc_version_min", "10"))
    std = "-cl-std=CL2.0" if version >= 20 else "-cl-std=CL1.2"
    raw = (std + " " + conf.get("build_options", "")).split()
    options = []
    for i, o in enumerate(raw):  # "-D X=1" is one option: "-DX=1"
        if o in ("-D", "-U"):
            continue
        if i and raw[i - 1] in ("-D", "-U"):
            o = raw[i - 1] + o
        # spvjit amber carries -D/-U/-cl-std to clang; other OpenCL build options have no SPIR-V effect
        if o.startswith(("-D", "-U", "-cl-std=")):
            options.append(o)
    if re.search(r"^\s*END\b", source, re.M):
        raise Skip("a source line reading END (it would end Amber's SHADER block)")
    body = source

    out = ["#!amber",
           f"# Generated by spvjit's bench/piglit_amber.py from piglit {rel}.",
           "SHADER compute prog OPENCL-C", body.rstrip("\n"), "END", ""]
    for ti, (_, kv) in enumerate(tests):
        t = dict(conf)
        args_in, args_out = [], []
        for k, v in kv:
            if k == "arg_in":
                args_in.append(v)
            elif k == "arg_out":
                args_out.append(v)
            else:
                t[k] = v
        conf_args = [(k, v) for k, v in secs[0][1] if k in ("arg_in", "arg_out")] if secs[0][0] == "config" else []
        args_in = [v for k, v in conf_args if k == "arg_in"] + args_in
        args_out = [v for k, v in conf_args if k == "arg_out"] + args_out
        kernel = t.get("kernel_name")
        if not kernel:
            raise Skip("no kernel_name")
        if t.get("expect_test_fail", "").lower() in ("1", "true"):
            raise Skip("a test expected to fail")
        dims = int(t.get("dimensions", "1"))
        gsz = [int(x) for x in t.get("global_size", "1 1 1").split()] + [1, 1, 1]
        gsz = [g if (i < dims and g) else 1 for i, g in enumerate(gsz[:3])]
        off = [int(x) for x in t.get("global_offset", "0 0 0").split()] + [0, 0, 0]
        off = [o if i < dims else 0 for i, o in enumerate(off[:3])]
        if "local_size" in t:
            lsz = [int(x) for x in t["local_size"].split()] + [1, 1, 1]
            lsz = [lv if (i < dims and lv) else 1 for i, lv in enumerate(lsz[:3])]
        else:
            lsz = reqd_size(source, kernel) or [1, 1, 1]
        if any(g % lv for g, lv in zip(gsz, lsz)):
            raise Skip("a global size that is not a multiple of the local size")
        p = f"t{ti}"
        bufs, binds, sets, expects = [], [], [], []
        outs = {}
        for a in args_out:
            m = re.fullmatch(r"(\d+)\s+buffer\s+(\w+)\[(\d+)\]\s+(.*)", a)
            if not m:
                raise Skip(f"arg_out '{a}'")
            idx, (sc, n), count = int(m.group(1)), parse_type(m.group(2)), int(m.group(3))
            vals, tol = values_of(m.group(4), count * n, sc)
            outs[idx] = (sc, n, count, vals, tol)
        seen = set()
        for a in args_in:
            m = re.fullmatch(r"(\d+)\s+buffer\s+(\w+)\[(\d+)\]\s+(.*)", a)
            if m:
                idx, (sc, n), count = int(m.group(1)), parse_type(m.group(2)), int(m.group(3))
                vals, _ = values_of(m.group(4), count * n, sc)
                name = f"{p}_a{idx}"
                elems = count * (4 if n == 3 else n)
                if vals is None:
                    bufs.append(f"BUFFER {name} DATA_TYPE {SCALARS[sc]} SIZE {elems} FILL 0")
                else:
                    bufs.append(f"BUFFER {name} DATA_TYPE {SCALARS[sc]} DATA {' '.join(scalar_data(n, vals))} END")
                binds.append(f"  BIND BUFFER {name} KERNEL ARG_NUMBER {idx}")
                seen.add(idx)
                continue
            m = re.fullmatch(r"(\d+)\s+(\w+)\s+(.*)", a)
            if not m:
                raise Skip(f"arg_in '{a}'")
            idx, (sc, n) = int(m.group(1)), parse_type(m.group(2))
            vals, _ = values_of(m.group(3), n, sc)
            if n == 1:
                sets.append(f"  SET KERNEL ARG_NUMBER {idx} AS {SCALARS[sc]} {vals[0]}")
            else:  # a by-value vector: its bytes, from a buffer
                name = f"{p}_v{idx}"
                bufs.append(f"BUFFER {name} DATA_TYPE {SCALARS[sc]} DATA {' '.join(scalar_data(n, vals))} END")
                binds.append(f"  BIND BUFFER {name} KERNEL ARG_NUMBER {idx}")
            seen.add(idx)
        for idx, (sc, n, count, vals, tol) in outs.items():
            name = f"{p}_a{idx}"
            if idx not in seen:
                elems = count * (4 if n == 3 else n)
                bufs.append(f"BUFFER {name} DATA_TYPE {SCALARS[sc]} SIZE {elems} FILL 0")
                binds.append(f"  BIND BUFFER {name} KERNEL ARG_NUMBER {idx}")
            if vals is not None:
                tl = f" TOLERANCE {tol}" if tol else ""
                # piglit_cl_probe_floating accepts any value where NaN is expected (its
                # comparisons with NaN are false): those elements are not checked
                pos = positions(n, len(vals))
                run = []
                for k in range(len(vals) + 1):
                    keep = k < len(vals) and not (sc in FLOATS and vals[k] == "nan")
                    if keep and run and pos[k] == pos[run[-1]] + 1:
                        run.append(k)
                        continue
                    if run:
                        expects.append(f"EXPECT {name} IDX {pos[run[0]] * SIZES[sc]}{tl} EQ "
                                       + " ".join(vals[j] for j in run))
                    run = [k] if keep else []
        out += [f"# [test] {t.get('name', ti)}"] + bufs
        out.append(f"PIPELINE compute {p}")
        spec = " ".join(f"SPECIALIZE {d} AS uint32 {lsz[d]}" for d in range(3))
        out.append(f"  ATTACH prog ENTRY_POINT {kernel} {spec}")
        out += ["  COMPILE_OPTIONS prog", "    " + " ".join(options), "  END"]
        out += binds + sets + ["END"]
        run = f"RUN {p} {gsz[0] // lsz[0]} {gsz[1] // lsz[1]} {gsz[2] // lsz[2]} WORK_DIM {dims}"
        if any(off):
            run += f" GLOBAL_OFFSET {off[0]} {off[1]} {off[2]}"
        out += [run] + expects + [""]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base = sys.argv[1]
    ex = os.path.join(base, "tests/cl/program/execute")
    if not os.path.isdir(ex):
        ex = base
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    written, skipped = 0, []
    for d, dirs, files in os.walk(ex):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".cl", ".program_test")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, ex)
            try:
                text = translate(path, rel)
            except Skip as e:
                skipped.append((rel, str(e)))
                continue
            name = rel.replace("/", "__").rsplit(".", 1)[0] + ".amber"
            with open(os.path.join(outdir, name), "w") as fh:
                fh.write(text)
            written += 1
    with open(os.path.join(outdir, "SKIPPED.txt"), "w") as fh:
        for rel, why in skipped:
            fh.write(f"{rel}\t{why}\n")
    print(f"{written} scripts written to {outdir}, {len(skipped)} piglit files left out (SKIPPED.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
