# Scenario 1, captured: an integer .item() used as a size without a size check. Older PyTorch
# stopped here (Could not guard on data-dependent expression u0 < 0); PyTorch 2.15 defers the
# "size >= 0" check to a runtime assertion and types zeros as f32[u0][1]cpu
# (tools/scenarios/pytorch_messages.py, case 1_zeros_unbacked_capture), and so does kiln.
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "i64[][]cpu"):
        _local_scalar_dense = torch.ops.aten._local_scalar_dense.default(arg0_1);  arg0_1 = None
        zeros = torch.ops.aten.zeros.default([_local_scalar_dense], dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        return (zeros,)
