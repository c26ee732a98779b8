"""When Inductor's CPU backend folds a sum of a product into addmm.

passes/postgrad follows torch/_inductor/fx_passes/post_grad.py's addmm
pattern; this prints what torch.compile's generated code calls for the
cases that pass's conditions cover, so they can be checked against the
installed PyTorch:

    python3 tools/inductor_compare/addmm_pattern.py
"""
import torch
from torch._inductor.utils import run_and_get_code


def one_use(x, w, y):
    return x @ w + y


def two_uses(x, w, y):
    m = x @ w
    return m + y, m * 2


def bias_first(x, w, y):
    return y + x @ w


def alpha_two(x, w, y):
    return torch.add(x @ w, y, alpha=2)


def main():
    torch.set_num_threads(1)
    for f in (one_use, bias_first, two_uses, alpha_two):
        torch._dynamo.reset()
        args = [torch.randn(6, 8), torch.randn(8, 5), torch.randn(6, 5)]
        _, code = run_and_get_code(torch.compile(f), *args)
        calls = sorted({c for c in ("extern_kernels.addmm", "extern_kernels.mm") if c + "(" in code[0]})
        print(f"{f.__name__}: {', '.join(calls)}")
    print(f"torch {torch.__version__}")


if __name__ == "__main__":
    main()
