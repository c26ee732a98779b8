# Scenario 5 (docs/SCENARIOS.md): .item() on a meta tensor during offloading (Diffusers / Transformers).
# The cache set-up tensor arg0_1 was left on meta; select + .item() cannot read it.
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "i64[1][1]meta", arg1_1: "bf16[1, 8, 64][512, 64, 1]cuda:0"):
        select: "i64[][]meta" = torch.ops.aten.select.int(arg0_1, 0, 0);  arg0_1 = None
        _local_scalar_dense = torch.ops.aten._local_scalar_dense.default(select);  select = None
        new_zeros: "bf16[1, 8, 64][512, 64, 1]cuda:0" = torch.ops.aten.new_zeros.default(arg1_1, [1, 8, 64]);  arg1_1 = None
        return (new_zeros, _local_scalar_dense)
