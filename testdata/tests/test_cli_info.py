"""`spvjit info --json`, parsed by Python's json module and checked against the
modules' sources (testdata/kernels/*.comp, *.cl) and the text form of `info`."""

import json
import os
import re
import subprocess

import pytest

ROOT = os.environ.get("SPVJIT_SRC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SPVJIT_BIN") or os.path.join(ROOT, "build", "spvjit")
KERNELS = os.path.join(ROOT, "testdata", "kernels")


def info(path, *extra):
    p = subprocess.run([BIN, "info", *extra, path], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def info_json(name):
    return json.loads(info(os.path.join(KERNELS, name), "--json"))


def by_key(resources):
    return {(r["set"], r["binding"]) if "set" in r else r.get("index", "push"): r for r in resources}


def test_mm_comp():
    d = info_json("mm.comp.spv")
    assert (d["flavour"], d["addressing_model"], d["memory_model"]) == ("shader", "Logical", "GLSL450")
    assert "Shader" in d["capabilities"] and re.fullmatch(r"1\.\d", d["spirv_version"])
    # sub-groups: the host's 32-bit vector lanes (4 with SSE/NEON .. 16 with AVX-512)
    assert d["subgroup_size"]["native"] in (4, 8, 16) and d["subgroup_size"]["default"] in (1, 4, 8, 16, 32, 64)
    (e,) = d["entry_points"]
    assert (e["name"], e["execution_model"], e["is_compute"]) == ("main", "GLCompute", True)
    # local_size_x_id = local_size_y_id = 0 (BS, default 16), z = 1
    assert e["local_size"] == {"kind": "spec", "size": [16, 16, 1], "spec_ids": [0, 0, None]}
    assert e["wg_memory_bytes"] == 2 * 16 * 16 * 4  # shared float As[BS*BS], Bs[BS*BS]
    # BS sets the local size (x, y) and the length of As and Bs
    assert d["spec_constants"] == [{"spec_id": 0, "name": "BS", "type": "u32", "default": 16,
                                    "sets": ["local_size_x", "local_size_y", "array_length"]}]
    res = by_key(e["resources"])
    assert set(res) == {(0, 0), (0, 1), (0, 2), "push"}
    for key, name, ro in (((0, 0), "MatA", True), ((0, 1), "MatB", True), ((0, 2), "MatC", False)):
        r = res[key]  # readonly / writeonly buffer { float x[]; }
        assert (r["kind"], r["name"], r["size"], r["stride"], r["elem_type"], r["readonly"]) == (
            "storage_buffer", name, 0, 4, "f32", ro)
        assert r["storage_class"] == "StorageBuffer" and "float" in r["type"]
    assert (res["push"]["kind"], res["push"]["size"], res["push"]["elem_type"]) == ("push_constants", 4, "u32")


def test_saxpy_cl():
    d = info_json("saxpy.cl.spv")
    assert (d["flavour"], d["addressing_model"], d["memory_model"]) == ("kernel", "Physical64", "OpenCL")
    assert {"Kernel", "Addresses"} <= set(d["capabilities"])
    (e,) = d["entry_points"]
    assert (e["name"], e["execution_model"]) == ("saxpy", "Kernel")
    assert e["local_size"] == {"kind": "dispatch", "size": [0, 0, 0]}
    # (__global const float *x, __global float *y, uint n)
    got = [(r["index"], r["kind"], r["name"], r["elem_type"], r["readonly"]) for r in e["resources"]]
    assert got == [(0, "arg_pointer", "x", "f32", True), (1, "arg_pointer", "y", "f32", False),
                   (2, "arg_value", "n", "u32", True)]
    assert [r["storage_class"] for r in e["resources"][:2]] == ["CrossWorkgroup", "CrossWorkgroup"]
    (s,) = d["spec_constants"]
    assert (s["spec_id"], s["type"], s["default"], s["sets"]) == (0, "f32", 2.0, [])


def test_reduce_work_group_memory_at_the_defaults():
    d = info_json("reduce.comp.spv")
    (e,) = d["entry_points"]
    assert e["local_size"] == {"kind": "spec", "size": [256, 1, 1], "spec_ids": [0, None, None]}
    assert e["wg_memory_bytes"] == 256 * 4  # shared float s[WG], WG = 256
    cl = info_json("reduce.cl.spv")["entry_points"][0]
    assert [r["kind"] for r in cl["resources"]] == ["arg_pointer", "arg_pointer", "arg_value", "arg_local"]
    assert cl["wg_memory_bytes"] == 0


@pytest.mark.parametrize("name", ["conv3x3.comp", "conv3x3.cl"])
def test_spec_constant_defaults_match_the_source(name):
    with open(os.path.join(KERNELS, name)) as f:
        src = f.read()
    if name.endswith(".comp"):
        want = {int(i): (n, float(v)) for i, n, v in
                re.findall(r"constant_id = (\d+)\) const float (\w+) = ([\d.]+);", src)}
    else:
        want = {int(i): (None, float(v.rstrip("f"))) for i, v in
                re.findall(r"__spirv_SpecConstant\((\d+), ([\d.]+f)\)", src)}
    got = {s["spec_id"]: (s["name"] if name.endswith(".comp") else None, s["default"])
           for s in info_json(name + ".spv")["spec_constants"]}
    assert len(want) == 9 and got == want
    assert all(s["type"] == "f32" for s in info_json(name + ".spv")["spec_constants"])


def test_agrees_with_the_text_form():
    for name in ("mm.comp.spv", "saxpy.cl.spv", "conv3x3.comp.spv", "reduce.cl.spv"):
        path = os.path.join(KERNELS, name)
        text, d = info(path), json.loads(info(path, "--json"))
        assert re.findall(r'^entry point "(\w+)"', text, re.M) == [e["name"] for e in d["entry_points"]]
        # (the text form lists a SpecId once per constant carrying it; glslang may put one on several)
        assert sorted(set(map(int, re.findall(r"^  SpecId (\d+)", text, re.M)))) == [
            s["spec_id"] for s in d["spec_constants"]]
        assert ("Kernel" if d["flavour"] == "kernel" else "Shader") in text.splitlines()[0]


def test_limits():
    """The library's limits (spvjit_limits_get), in both forms; a kernel beyond
    one is refused naming it."""
    path = os.path.join(KERNELS, "mm.comp.spv")
    lim = json.loads(info(path, "--json"))["limits"]
    assert lim["max_workgroup_invocations"] == 4096 and lim["max_workgroup_memory"] == 16 << 20
    assert lim["max_private_memory"] == 1 << 20 and lim["max_workgroup_count"] == [2 ** 32 - 1] * 3
    assert all(lim["max_workgroup_invocations"] <= n for n in lim["max_workgroup_size"])
    assert re.search(r"^spvjit limits: 4096 work-items per work-group .* 16777216 bytes of work-group memory, "
                     r"1048576 bytes of private memory per work-item", info(path), re.M)
    p = subprocess.run([BIN, "run", path, "-D", "0=2000", "--push", "u32:16", "--buffer", "0:0=zero:64", "--buffer",
                        "0:1=zero:64", "--buffer", "0:2=zero:64"], capture_output=True, text=True)
    assert p.returncode == 1 and p.stderr.count("\n") == 1
    assert "a local size of 2000x2000x1 is 4000000 work-items per work-group; spvjit runs at most 4096" in p.stderr


def test_non_compute_entry_and_errors(tmp_path):
    src = tmp_path / "v.vert"
    src.write_text("#version 450\nvoid main() { gl_Position = vec4(0.0); }\n")
    spv = tmp_path / "v.spv"
    subprocess.run(["glslangValidator", "-V", "-o", str(spv), str(src)], check=True, capture_output=True)
    (e,) = json.loads(info(str(spv), "--json"))["entry_points"]
    assert e == {"name": "main", "execution_model": "Vertex", "is_compute": False}
    p = subprocess.run([BIN, "info", "--json", str(tmp_path / "none.spv")], capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1 and "none.spv" in p.stderr
    p = subprocess.run([BIN, "info", "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "--json" in p.stdout
