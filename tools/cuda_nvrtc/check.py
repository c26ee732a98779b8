"""Compile kiln's generated CUDA with NVIDIA's own compiler, without a GPU.

    python3 tools/cuda_nvrtc/check.py [--arch sm_90] [--json OUT] prog.cu ...

PyTorch's CUDA wheels ship NVRTC (libnvrtc, the runtime compiler behind
torch.cuda.jiterator and cupy's RawKernel), which holds the same front end
as nvcc and, asked for a real architecture, runs ptxas. Each file is
compiled as device code (the prelude's __CUDACC_RTC__ mode: no host part)
with kiln's flags (-fmad=false: a*b+c stays two rounded operations, as the
header's nvcc line says) to SASS for --arch, and ptxas's report is read:
per kernel, registers, stack frame, spill stores and loads.

Exit status 0 when every file compiles and every extern "C" __global__
kernel in it reaches ptxas; 1 otherwise, with NVRTC's log. NVRTC's
warnings are printed as they come (count in the summary).
"""

import argparse
import ctypes
import glob
import json
import os
import re
import site
import sys

PTXAS_ENTRY = re.compile(r"Compiling entry function '(\w+)' for '(\w+)'")
PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
PTXAS_REGS = re.compile(r"Used (\d+) registers")
KERNEL = re.compile(r'extern "C" __global__ void\s+(?:__launch_bounds__\([^)]*\)\s*)?(\w+)\s*\(')


def find_nvrtc():
    """libnvrtc from the installed nvidia wheels (torch's dependencies), or
    None."""
    roots = site.getsitepackages() + [site.getusersitepackages()]
    for root in roots:
        for pat in ("nvidia/cu*/lib/libnvrtc.so.*", "nvidia/cuda_nvrtc/lib/libnvrtc.so.*"):
            for path in sorted(glob.glob(os.path.join(root, pat))):
                if "builtins" not in path:
                    return path
    return None


class NVRTC:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        self.version = f"{major.value}.{minor.value}"

    def compile(self, src, name, options):
        """(ok, log) for src compiled with options."""
        prog = ctypes.c_void_p()
        rc = self.lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None)
        if rc != 0:
            raise RuntimeError(f"nvrtcCreateProgram: error {rc}")
        try:
            opts = [o.encode() for o in options]
            rc = self.lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
            size = ctypes.c_size_t()
            self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            self.lib.nvrtcGetProgramLog(prog, log)
            return rc == 0, log.value.decode(errors="replace")
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))


def ptxas_report(log):
    """{kernel: {arch, registers, stack, spill_stores, spill_loads}} from
    ptxas -v's lines in NVRTC's log."""
    out, cur = {}, None
    for line in log.splitlines():
        m = PTXAS_ENTRY.search(line)
        if m:
            cur = out.setdefault(m.group(1), {"arch": m.group(2)})
            continue
        if cur is None:
            continue
        m = PTXAS_FRAME.search(line)
        if m:
            cur.update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = PTXAS_REGS.search(line)
        if m:
            cur["registers"] = int(m.group(1))
    return out


def check(nvrtc, path, arch):
    src = open(path).read()
    # 177 is "declared but never referenced": the prelude's helpers that a
    # program does not call, and per-lane index names a vector loop skips
    options = [f"-arch={arch}", "-default-device", "-fmad=false", "-std=c++17", "-diag-suppress=177",
               "--ptxas-options=-v"]
    ok, log = nvrtc.compile(src, os.path.basename(path), options)
    kernels = KERNEL.findall(src)
    report = ptxas_report(log) if ok else {}
    warnings = len(re.findall(r": warning ", log))
    missing = [k for k in kernels if k not in report]
    return {"file": path, "ok": ok and not missing, "kernels": len(kernels), "missing": missing,
            "warnings": warnings, "report": report, "log": "" if ok else log}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--probe", action="store_true", help="print NVRTC's version and exit: 0 when found, 2 when not")
    ap.add_argument("--arch", default="sm_90", help="a real architecture for ptxas (default sm_90, H100)")
    ap.add_argument("--json", help="write the per-kernel report here")
    a = ap.parse_args(argv)
    lib = find_nvrtc()
    if lib is None:
        print("no libnvrtc: install PyTorch's CUDA wheel (pip install torch) or nvidia-cuda-nvrtc", file=sys.stderr)
        return 2
    nvrtc = NVRTC(lib)
    if a.probe:
        print(f"NVRTC {nvrtc.version} ({lib})")
        return 0
    if not a.files:
        ap.error("no .cu files given")
    results, ok = [], True
    for path in a.files:
        r = check(nvrtc, path, a.arch)
        results.append(r)
        ok = ok and r["ok"]
        regs = [k.get("registers", 0) for k in r["report"].values()]
        spills = sum(k.get("spill_stores", 0) for k in r["report"].values())
        if r["ok"]:
            print(f"{path}: {r['kernels']} kernel(s) for {a.arch}, registers max {max(regs, default=0)}, "
                  f"spill stores {spills} bytes, {r['warnings']} warning(s)")
        else:
            print(f"{path}: FAILED", file=sys.stderr)
            if r["missing"]:
                print(f"  kernels ptxas did not report: {', '.join(r['missing'][:10])}", file=sys.stderr)
            print(r["log"][:4000], file=sys.stderr)
    print(f"NVRTC {nvrtc.version} ({lib}): {sum(r['ok'] for r in results)} of {len(results)} file(s) compiled to {a.arch}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"nvrtc": nvrtc.version, "arch": a.arch, "files": results}, f, indent=1, sort_keys=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
