#!/usr/bin/env python3
"""A graph input resized in place, and PyTorch's functionalization of it.

test_proxy_tensor.py's test_resize_from_zero (corpus 047) traced with
make_fx in real mode (concrete sizes: the symbolic functionalized trace
fails inside PyTorch), once as is and once through torch.func.functionalize:
the pair kiln's functionalize is held to (passes/functionalize
corpus_test.go). PyTorch writes the resized input back with
resize_(x_1, [2]) before copy_.

    python3 tools/corpus/resize_input.py testdata/corpus
"""
import os
import sys

import torch
from torch.fx.experimental.proxy_tensor import make_fx

OUT = sys.argv[1] if len(sys.argv) > 1 else "testdata/corpus"
NAME = "114_makefx_resize_input_functionalized"


def f(x, y):
    x.resize_(y.size(0))


def code(fn):
    return make_fx(fn)(torch.empty(0), torch.empty(2)).code.strip() + "\n"


def header(what):
    return (f"# source: tools/corpus/resize_input.py, torch {torch.__version__}: {what}\n"
            "# program: def f(x, y): x.resize_(y.size(0)); inputs torch.empty(0), torch.empty(2)\n")


def main():
    with open(os.path.join(OUT, NAME + ".fx.txt"), "w") as out:
        out.write(header("make_fx(f)(...).code") + code(f))
    with open(os.path.join(OUT, NAME + ".expected.fx.txt"), "w") as out:
        out.write(header('make_fx(torch.func.functionalize(f, remove="mutations_and_views"))(...).code')
                  + code(torch.func.functionalize(f, remove="mutations_and_views")))


if __name__ == "__main__":
    main()
