"""The scan fusion cases of testdata/fusion/scan_*.txtar that are not
survey rows (tools/inductor_compare/survey.py prints the others): for each,
the graph make_fx traces (the case's input.fx) and Inductor's CPU kernels
and extern / fallback calls, which the case's header cites.

    nice -n 10 python3 tools/scans/gen.py
"""

import re

import torch
from torch._inductor.utils import run_and_get_code
from torch.fx.experimental.proxy_tensor import make_fx

CASES = [
    ("scan_softmax", lambda x: torch.softmax(torch.cumsum(x, 1), 1), (6, 7)),
    ("scan_of_scan", lambda x: torch.cumsum(torch.cumsum(x, 1), 1), (6, 7)),
    ("scan_then_sum", lambda x: torch.cumsum(x, 1).sum(1), (6, 7)),
    ("scan_flip_mirrored", lambda x: torch.cumsum(x, 1).flip(1) + x, (6, 7)),
    ("scan_reverse", lambda x: torch.cumsum(x.flip(1), 1).flip(1), (6, 7)),
]


def main():
    print(f"torch {torch.__version__}")
    for name, fn, shape in CASES:
        torch.manual_seed(0)
        x = torch.randn(shape)
        gm = make_fx(fn)(x)
        text = "\n".join(l for l in gm.print_readable(print_output=False).splitlines() if "No stacktrace" not in l)
        torch._dynamo.reset()
        _, codes = run_and_get_code(torch.compile(fn), x)
        code = "\n".join(codes)
        kernels = re.findall(r"^(cpp_fused_\w+) = async_compile", code, re.M)
        call = code[code.find("def call("):]
        externs = re.findall(r"\b((?:aten|extern_kernels)\.\w+(?:\.\w+)?)\(", call)
        print(f"== {name}: Inductor kernels {kernels}, extern / fallback calls {externs}")
        print(text)


if __name__ == "__main__":
    main()
