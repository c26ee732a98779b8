class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu"):
        split = torch.ops.aten.split.Tensor(x, 2)
        getitem = split[99999999]
        return (getitem,)
