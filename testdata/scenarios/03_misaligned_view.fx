# Scenario 3 (docs/SCENARIOS.md): a misaligned view under the compiler (PyTorch Inductor, GGUF models).
# x[2:].view(torch.float32) + 1 on a bf16 CUDA tensor: the f32 view starts 4 bytes into the storage.
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "bf16[2050][1]cuda:0"):
        slice_1: "bf16[2048][1]cuda:0" = torch.ops.aten.slice.Tensor(arg0_1, 0, 2, 9223372036854775807);  arg0_1 = None
        view: "f32[1024][1]cuda:0" = torch.ops.aten.view.dtype(slice_1, torch.float32);  slice_1 = None
        add: "f32[1024][1]cuda:0" = torch.ops.aten.add.Tensor(view, 1);  view = None
        return (add,)
