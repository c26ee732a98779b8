class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu"):
        as_strided: "f32[100][1]cpu" = torch.ops.aten.as_strided.default(x, [100], [1])
        add: "f32[100][1]cpu" = torch.ops.aten.add.Tensor(as_strided, 1)
        return (add,)
