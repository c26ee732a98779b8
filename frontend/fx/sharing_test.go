package fx

import (
	"testing"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// TestSharedListsAndTypes: int lists spelled alike share their elements,
// and values annotated alike share their type, with no spare capacity, so
// appending to one copies it.
func TestSharedListsAndTypes(t *testing.T) {
	src := []byte(`class G(torch.nn.Module):
    def forward(self, x: "f32[4, 8][8, 1]cpu"):
        a: "f32[32, 1][1, 1]cpu" = torch.ops.aten.view.default(x, [32, 1])
        b: "f32[32, 1][1, 1]cpu" = torch.ops.aten.view.default(x, [32, 1])
        c: "f32[32, 1][1, 1]cpu" = torch.ops.aten.view.default(x, [32,1])
        return (a, b, c)
`)
	res, err := Parse("in.fx", src, Options{Lookup: ops.LookupSchema})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Module.Graphs[0].Nodes
	la, lb, lc := n[0].Args[1].Elems, n[1].Args[1].Elems, n[2].Args[1].Elems
	if &la[0] != &lb[0] {
		t.Error("[32, 1] is not shared")
	}
	if &la[0] == &lc[0] || !ir.ListArg(la...).Equal(ir.ListArg(lc...)) {
		t.Error("[32,1] (spelled otherwise) should be its own, equal list")
	}
	if cap(la) != len(la) {
		t.Errorf("a shared list has spare capacity %d > %d", cap(la), len(la))
	}
	grown := append(la, ir.IntArg(7))
	if &grown[0] == &la[0] || len(lb) != 2 {
		t.Error("appending to a shared list wrote into it")
	}
	ta, tb := n[0].Results[0].Annot.Tensor, n[1].Results[0].Annot.Tensor
	if ta != tb {
		t.Error("the annotation is not shared")
	}
	if cap(ta.Shape) != len(ta.Shape) || cap(ta.Strides) != len(ta.Strides) {
		t.Error("a shared type's sizes or strides have spare capacity")
	}
}
