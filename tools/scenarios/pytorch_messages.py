#!/usr/bin/env python3
"""Run the programs of the five scenarios (SCENARIOS.md) in PyTorch, on the CPU
and on meta tensors, and print the exact error text PyTorch raises for each, as
JSON. kiln's scenario messages are checked against this output
(testdata/scenarios/pytorch_messages.json; cmd/kiln and passes/fakeprop tests).
Scenario 3's failure is an Inductor assertion in CUDA code and is not run here.

    python3 tools/scenarios/pytorch_messages.py > testdata/scenarios/pytorch_messages.json
"""
import json
import sys
import warnings

import torch
import torch._dynamo

warnings.filterwarnings("ignore")


def first_line(e):
    return str(e).strip().splitlines()[0]


def attempt(name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is the point
        return {"name": name, "exception": type(e).__name__, "message": first_line(e)}
    return {"name": name, "exception": None, "message": None}


def compiled(fn, *args, capture=False):
    def run():
        torch._dynamo.reset()
        torch._dynamo.config.capture_scalar_outputs = capture
        try:
            torch.compile(fn, backend="aot_eager", fullgraph=True)(*args)
        finally:
            torch._dynamo.config.capture_scalar_outputs = False
    return run


def fake_item():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.randn(8)
        x.amax().item()


lib = torch.library.Library("kilnscen", "DEF")  # noqa: TOR901
lib.define("rope_init(Tensor inv_freq, float factor, int n) -> Tensor")
lib.impl("rope_init", lambda t, f, n: t.repeat(2) * f, "CPU")


def scenarios():
    out = []
    # 1. a data-dependent op under fake tensors
    out.append(attempt("1_item_fake_tensor", fake_item))
    out.append(attempt("1_item_compile_no_capture",
                       compiled(lambda a, b: b * a.amax().item(), torch.randn(8), torch.randn(4, 8))))
    out.append(attempt("1_zeros_unbacked_capture",
                       compiled(lambda n: torch.zeros(n.item()), torch.tensor(4), capture=True)))
    out.append(attempt("1_new_zeros_unbacked_capture",
                       compiled(lambda x, n: x.new_zeros([n.item()]), torch.randn(3), torch.tensor(4), capture=True)))
    out.append(attempt("1_custom_op_no_fake",
                       compiled(lambda t, y: y * torch.ops.kilnscen.rope_init(t, 8.0, 128), torch.randn(64), torch.randn(4, 128))))
    # 2. a copy out of a meta tensor
    meta = torch.empty(16, 32, device="meta")
    out.append(attempt("2_to_copy_out_of_meta", lambda: meta.to("cpu")))
    out.append(attempt("2_copy__out_of_meta", lambda: torch.empty(16, 32).copy_(meta)))
    out.append(attempt("2_copy_into_meta", lambda: meta.copy_(torch.randn(16, 32))))
    # 4. an in-place op under vmap
    def err_fn(x, aux):
        error = torch.zeros(1, 6)
        error[:, 0:2] = aux[0] * x[:, 0:2] - x[:, 2:4]
        return error
    out.append(attempt("4_vmap_inplace", lambda: torch.vmap(err_fn, in_dims=(None, 0))(torch.randn(1, 6), torch.randn(5, 3, 2))))
    # 5. .item() on a meta tensor
    out.append(attempt("5_item_on_meta", lambda: torch.zeros(1, dtype=torch.long, device="meta")[0].item()))
    return out


def main():
    json.dump({"torch": torch.__version__, "generator": "tools/scenarios/pytorch_messages.py", "cases": scenarios()},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
