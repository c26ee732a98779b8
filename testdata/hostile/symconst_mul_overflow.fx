class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4*4611686018427387904*s0][1]cpu"):
        return (x,)
