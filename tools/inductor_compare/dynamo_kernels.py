"""Kernel counts, kiln against Inductor, on Dynamo-level graphs
(testdata/dynamo): kiln compiles the TORCH_LOGS=graph_code printout
(its aten pass rewrites it into ATen ops); Inductor compiles the same
printout, made runnable (tools/e2e_judge/judge.py's runnable), with
torch.compile on the CPU, on the inputs interp draws for it (valid
indices; symbolic sizes 8). Every graph gets a row: one that fails gets
its error in the row. Counts as compare.py takes them: kiln's loop
kernels and extern calls in its post-fusion IR; Inductor's fused kernels
(the scheduler's), its C++ functions and its extern calls.

    nice -n 10 python3 tools/inductor_compare/dynamo_kernels.py [testdata/dynamo/01_mlp_layernorm_softmax.fx.txt ...]

(no arguments: every graph in testdata/dynamo).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "tools", "e2e_judge")]
import compare  # noqa: E402
import judge  # noqa: E402


def inputs(kiln, fx, folder, specs):
    """The inputs interp draws for the graph (kiln run -save-inputs), so
    that index inputs are valid where the graph needs them to be (BERT's
    token type ids, gathered out of a buffer, index a 2-row embedding;
    random ints from judge.make_inputs would not), and every symbolic size
    is interp's default (judge.DEFAULT_SYM). Sym parameters are read off
    the tensors (judge.sym_values)."""
    subprocess.run([kiln, "run", "-passes", "fakeprop,aten", "-seed", str(judge.SEED), "-save-inputs", folder,
                    "-o", folder + ".out", fx], check=True, capture_output=True)
    return judge.sym_values(specs, [None if dt == "sym" else judge.load(os.path.join(folder, name + ".npy"), judge.DTYPES[dt])
                                    for name, dt, _, _ in specs])


def row(kiln, work, fx):
    """One table row: kiln's counts and Inductor's for graph fx."""
    src = open(fx).read()
    name = os.path.basename(fx).removesuffix(".fx.txt")
    out = os.path.join(work, name)
    subprocess.run([kiln, "compile", "-o", out, fx], check=True, capture_output=True)
    loops, ext = compare.kiln_kernels(open(os.path.join(out, "graph0.ir_post_fusion.txt")).read())
    specs = judge.inputs_of(src)
    # interp's inputs first; judge's small random ints when eager PyTorch
    # refuses those: interp bounds an index by its gather (08's idx, < 48)
    # and knows nothing of the one_hot(idx, 5) the aten pass expanded
    for ins in (inputs(kiln, fx, os.path.join(work, name + ".in"), specs),
                judge.pool_indices(src, specs, judge.make_inputs(specs))):
        # a batch norm's running variance is positive in a real model
        ins = [v.abs() + 0.1 if "running_var" in n else v for (n, *_), v in zip(specs, ins)]
        try:
            _, _, c = compare.inductor_run(judge.runnable(src), ins)
            break
        except RuntimeError as e:
            err = e
    else:
        raise err
    return f"| {name} | {loops} (+{ext}) | {c['fused']} / {c['funcs']} (+{c['ext']}) |"


def main():
    graphs = sys.argv[1:] or sorted(glob.glob(os.path.join(ROOT, "testdata", "dynamo", "*.fx.txt")))
    work = tempfile.mkdtemp(prefix="dynamo_kernels.")
    try:
        kiln = os.path.join(work, "kiln")
        subprocess.run(["go", "build", "-o", kiln, "./cmd/kiln"], cwd=ROOT, check=True)
        print("| graph | kiln kernels (+extern) | Inductor fused kernels / C++ functions (+extern) |")
        print("|---|---|---|", flush=True)
        for fx in graphs:
            try:
                print(row(kiln, work, fx), flush=True)
            except (subprocess.CalledProcessError, RuntimeError, ValueError, KeyError) as e:
                # every graph gets a row: a failure says what failed
                err = e.stderr.decode(errors="replace").strip().splitlines()[-1:] if getattr(e, "stderr", None) else [str(e)]
                print(f"| {os.path.basename(fx).removesuffix('.fx.txt')} | failed: {' '.join(err)[:200]} | |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
