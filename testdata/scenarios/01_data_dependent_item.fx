# Scenario 1 (docs/SCENARIOS.md): a data-dependent op under fake tensors (Petals, aten::_local_scalar_dense).
# Tensor.item() lowers to _local_scalar_dense, whose value fake tensors do not have. Without
# -capture-scalar-outputs fakeprop stops here (data-dependent); with it, the value is an unbacked float.
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8][1]cuda:0", arg1_1: "f32[4, 8][8, 1]cuda:0"):
        amax: "f32[][]cuda:0" = torch.ops.aten.amax.default(arg0_1, [0]);  arg0_1 = None
        _local_scalar_dense = torch.ops.aten._local_scalar_dense.default(amax);  amax = None
        mul: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.mul.Tensor(arg1_1, _local_scalar_dense);  arg1_1 = _local_scalar_dense = None
        return (mul,)
