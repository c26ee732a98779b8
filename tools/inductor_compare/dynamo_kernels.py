"""Kernel counts, kiln against Inductor, on Dynamo-level graphs
(testdata/dynamo): kiln compiles the TORCH_LOGS=graph_code printout
(its aten pass rewrites it into ATen ops); Inductor compiles the same
printout, made runnable (tools/e2e_judge/judge.py's runnable), with
torch.compile on the CPU. Counts as compare.py takes them: kiln's loop
kernels and extern calls in its post-fusion IR; Inductor's fused kernels
(the scheduler's), its C++ functions and its extern calls.

    nice -n 10 python3 tools/inductor_compare/dynamo_kernels.py testdata/dynamo/01_mlp_layernorm_softmax.fx.txt ...
"""
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "tools", "e2e_judge")]
import compare  # noqa: E402
import judge  # noqa: E402


def main():
    work = tempfile.mkdtemp(prefix="dynamo_kernels.")
    kiln = os.path.join(work, "kiln")
    subprocess.run(["go", "build", "-o", kiln, "./cmd/kiln"], cwd=ROOT, check=True)
    print("| graph | kiln kernels (+extern) | Inductor fused kernels / C++ functions (+extern) |")
    print("|---|---|---|")
    for fx in sys.argv[1:]:
        src = open(fx).read()
        name = os.path.basename(fx).removesuffix(".fx.txt")
        out = os.path.join(work, name)
        subprocess.run([kiln, "compile", "-o", out, fx], check=True, capture_output=True)
        loops, ext = compare.kiln_kernels(open(os.path.join(out, "graph0.ir_post_fusion.txt")).read())
        specs = judge.inputs_of(src)
        ins = judge.pool_indices(src, specs, judge.make_inputs(specs))
        # a batch norm's running variance is positive in a real model
        ins = [v.abs() + 0.1 if "running_var" in n else v for (n, *_), v in zip(specs, ins)]
        _, _, c = compare.inductor_run(judge.runnable(src), ins)
        print(f"| {name} | {loops} (+{ext}) | {c['fused']} / {c['funcs']} (+{c['ext']}) |")


if __name__ == "__main__":
    main()
