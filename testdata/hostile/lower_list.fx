class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu"):
        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(x, [1, 2])
        return (add,)
