# Scenario 4 (docs/SCENARIOS.md): an in-place op under vmap (Theseus).
# Vmapped over arg1_1 (in_dims = (None, 0)): sub is batched, zeros is not, so copy_ into a slice of zeros fails.
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[1, 6][6, 1]cpu", arg1_1: "f32[3, 2][2, 1]cpu"):
        zeros: "f32[1, 6][6, 1]cpu" = torch.ops.aten.zeros.default([1, 6], dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        select: "f32[2][1]cpu" = torch.ops.aten.select.int(arg1_1, 0, 0);  arg1_1 = None
        slice_1: "f32[1, 2][6, 1]cpu" = torch.ops.aten.slice.Tensor(arg0_1, 1, 0, 2)
        mul: "f32[1, 2][2, 1]cpu" = torch.ops.aten.mul.Tensor(select, slice_1);  select = slice_1 = None
        slice_2: "f32[1, 2][6, 1]cpu" = torch.ops.aten.slice.Tensor(arg0_1, 1, 2, 4);  arg0_1 = None
        sub: "f32[1, 2][2, 1]cpu" = torch.ops.aten.sub.Tensor(mul, slice_2);  mul = slice_2 = None
        slice_3: "f32[1, 2][6, 1]cpu" = torch.ops.aten.slice.Tensor(zeros, 1, 0, 2)
        copy_: "f32[1, 2][6, 1]cpu" = torch.ops.aten.copy_.default(slice_3, sub);  slice_3 = sub = copy_ = None
        return (zeros,)
