# Scenario 2 (docs/SCENARIOS.md): a copy out of a meta tensor (PyTorch Lightning).
# A template model kept on `meta` is moved to CUDA: _to_copy out of meta has no data to copy.
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 32][32, 1]meta", arg1_1: "f32[4, 32][32, 1]cuda:0"):
        _to_copy: "f32[16, 32][32, 1]cuda:0" = torch.ops.aten._to_copy.default(arg0_1, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0));  arg0_1 = None
        permute: "f32[32, 16][1, 32]cuda:0" = torch.ops.aten.permute.default(_to_copy, [1, 0]);  _to_copy = None
        mm: "f32[4, 16][16, 1]cuda:0" = torch.ops.aten.mm.default(arg1_1, permute);  arg1_1 = permute = None
        return (mm,)
