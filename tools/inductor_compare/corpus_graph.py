"""Kernel counts on one corpus graph, kiln against Inductor, on the same
graph: the FX printout made runnable (tools/e2e_judge/judge.py's runnable
and inputs, max-pool indices inside their windows) and compiled by
torch.compile (Inductor, CPU), counted as survey.py counts
(compare.inductor_run: fused kernels, C++ functions, extern and aten
fallback calls); kiln's loop kernels and externs from its post-fusion dump.

    nice -n 10 python3 tools/inductor_compare/corpus_graph.py testdata/corpus/101_compile_cnn_train_backward.fx.txt

--cnn-step also compiles corpus 101's source (tools/corpus/gen.py's CNN,
cross_entropy, one train step) and counts the backward graph's kernels as
AOTAutograd hands it to Inductor: the check that compiling the printed
graph alone counts what a training run compiles.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e_judge"))
sys.path.insert(0, HERE)
from judge import inputs_of, make_inputs, pool_indices, runnable  # noqa: E402
from compare import counting_fused_kernels, inductor_kernels, kiln_kernels, inductor_run  # noqa: E402
from torch._inductor import config as inductor_config  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402


def aten_fallbacks(code):
    call = code[code.find("def call("):] if "def call(" in code else ""
    return len(re.findall(r"(?<!extern_kernels\.)\baten\.\w+\.\w+\(", call))


def graph_counts(fx):
    src = open(fx).read()
    specs = inputs_of(src)
    args = pool_indices(src, specs, make_inputs(specs))
    mod = runnable(src)
    _, code, ind = inductor_run(lambda *a: mod(*a), args)
    ind["ext"] += aten_fallbacks(code)
    return ind, code


def kiln_counts(fx, root):
    work = tempfile.mkdtemp(prefix="corpus_graph.")
    kiln = os.path.join(work, "kiln")
    subprocess.run(["go", "build", "-o", kiln, "./cmd/kiln"], cwd=root, check=True)
    subprocess.run([kiln, "compile", "-o", os.path.join(work, "dump"), fx], check=True, capture_output=True)
    with open(os.path.join(work, "dump", "graph0.ir_post_fusion.txt")) as f:
        return kiln_kernels(f.read())


def cnn_step_counts():
    """Inductor's fused kernels, C++ functions and externs for the forward
    and the backward graph of corpus 101's training step."""
    sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
    import torch.nn.functional as F
    from gen import CNN
    torch.manual_seed(0)
    cnn = CNN()
    x, y = torch.randn(4, 3, 8, 8), torch.tensor([1, 0, 4, 2])
    torch._dynamo.reset()
    step = torch.compile(lambda x, y: F.cross_entropy(cnn(x), y))
    out = []
    with inductor_config.patch(force_disable_caches=True):
        loss = None

        def fwd():
            nonlocal loss
            loss = step(x, y)
        for run in (fwd, lambda: loss.backward()):
            with counting_fused_kernels() as fused:
                _, codes = run_and_get_code(run)
            code = "\n".join(codes)
            funcs, ext = inductor_kernels(code)
            out.append(dict(fused=fused[0], funcs=funcs, ext=ext + aten_fallbacks(code)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fx")
    ap.add_argument("--cnn-step", action="store_true")
    ap.add_argument("--code", help="write Inductor's output code here")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(HERE))
    torch.set_num_threads(1)
    ind, code = graph_counts(a.fx)
    if a.code:
        open(a.code, "w").write(code)
    k, kext = kiln_counts(os.path.abspath(a.fx), root)
    print(f"{os.path.basename(a.fx)} (torch {torch.__version__}): kernels kiln {k}, Inductor fused {ind['fused']}; "
          f"C++ functions Inductor {ind['funcs']} ({ind['nests']} nests); extern kiln {kext} / Inductor {ind['ext']}")
    if a.cnn_step:
        for what, c in zip(("forward", "backward"), cnn_step_counts()):
            print(f"CNN train step (tools/corpus/gen.py), {what}: Inductor fused {c['fused']}, C++ functions "
                  f"{c['funcs']}, extern {c['ext']}")

if __name__ == "__main__":
    main()
