"""Start a fusion regression case (testdata/fusion/NAME.txtar) from a
survey program: prints a txtar whose comment gives Inductor's counts for
the graph as this PyTorch computes them (fused kernels, C++ functions and
the loop nests inside them, the functions' names) and whose input.fx is
the graph survey.py traces. The checks and the output section are kiln's
to fill (`go test ./lowering -update` writes the output).

    python3 tools/inductor_compare/fusion_case.py "batch_norm inference, NCHW" > testdata/fusion/NAME.txtar

--fn NAME=EXPR adds a program of its own (a lambda over the inputs named by
--shapes, float32 randn), for cases the survey does not hold.
"""

import argparse
import os
import re
import sys

import torch
import torch.nn.functional as F  # noqa: F401 (for --fn expressions)
from torch.fx.experimental.proxy_tensor import make_fx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import survey  # noqa: E402
from compare import fx_text, inductor_run  # noqa: E402


def header(name, ind, code):
    funcs = re.findall(r"^(cpp_fused_\w+) = async_compile", code, re.M)
    return (f"{name}. Inductor (torch {torch.__version__}, CPU): {ind['fused']} fused kernel(s) in "
            f"{ind['funcs']} C++ function(s) ({', '.join(funcs) or 'none'}; {ind['nests']} loop nest(s)), "
            f"{ind['ext']} extern call(s).")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", help="a survey program's name, or the name for --fn")
    ap.add_argument("--fn", help="a lambda over the inputs, instead of a survey program")
    ap.add_argument("--shapes", default="", help="--fn's input shapes, e.g. '2x3x4x5,3'")
    a = ap.parse_args()
    if a.fn:
        specs = [tuple(int(d) for d in s.split("x")) for s in a.shapes.split(",") if s]
        fn = eval(a.fn)  # noqa: S307 (a developer's own expression)
        fn.__name__ = "graph"
    else:
        fn, specs = next((f, s) for n, f, s in survey.PROGRAMS if n == a.name)
    torch.manual_seed(0)
    args = [survey.make_input(s) for s in specs]
    gm = make_fx(fn)(*args)
    _, code, ind = inductor_run(gm if getattr(fn, "traced", False) else fn, args)
    print(header(a.name, ind, code))
    print("-- input.fx --")
    print(fx_text(gm), end="")
    print("-- pipeline --\nfakeprop,functionalize,decompose,align,dce\n-- checks --\n-- output --")


if __name__ == "__main__":
    main()
