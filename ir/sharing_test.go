package ir

import (
	"testing"

	"github.com/kiln-compiler/kiln/diag"
)

// TestValueMapFallsBack: a ValueMap is a map[*Value]T for any values:
// ids past the table, negative ids and ids another value holds go to the
// map side, and nothing is lost or mixed up.
func TestValueMapFallsBack(t *testing.T) {
	g := NewGraph("G")
	a := g.AddInput("a", Type{}, diag.Pos{})
	b := g.AddInput("b", Type{}, diag.Pos{})
	m := NewValueMap[int](g)
	twin := &Value{ID: a.ID, Name: "twin"} // the same id, another value
	late := &Value{ID: 1 << 20, Name: "late"}
	neg := &Value{ID: -1, Name: "neg"}
	for i, v := range []*Value{a, b, twin, late, neg} {
		m.Set(v, i+10)
	}
	for i, v := range []*Value{a, b, twin, late, neg} {
		if got, ok := m.Get(v); !ok || got != i+10 {
			t.Errorf("%s: got %d, %v; want %d", v.Name, got, ok, i+10)
		}
	}
	if _, ok := m.Get(&Value{ID: b.ID}); ok {
		t.Error("a value never set is found")
	}
	m.Set(a, 99)
	if m.At(a) != 99 || m.At(twin) != 12 {
		t.Errorf("after resetting a: a=%d twin=%d", m.At(a), m.At(twin))
	}
}

// TestAttrsSetCopiesShared: values may share one attribute list (align
// shares them); changing one value's attribute leaves the others alone.
func TestAttrsSetCopiesShared(t *testing.T) {
	shared := Attrs{{"align", "16"}, {"vec", "8"}}
	x, y := shared, shared
	x.Set("align", "4")
	x.Set("zz", "1")
	y.Set("vec", "8") // unchanged value: no copy needed, nothing changes
	if got := shared.String(); got != "align=16 vec=8" {
		t.Errorf("shared list changed: %s", got)
	}
	if got := x.String(); got != "align=4 vec=8 zz=1" {
		t.Errorf("x = %s", got)
	}
	if got := y.String(); got != "align=16 vec=8" {
		t.Errorf("y = %s", got)
	}
	// An unsorted list (built by hand) is sorted as before.
	u := Attrs{{"b", "1"}, {"a", "2"}}
	u.Set("c", "3")
	if got := u.String(); got != "a=2 b=1 c=3" {
		t.Errorf("u = %s", got)
	}
}

// TestSlabResultsDoNotShare: result lists cut from one chunk have no room
// past their length, so adding a result to one node cannot write into its
// neighbour's list.
func TestSlabResultsDoNotShare(t *testing.T) {
	g := NewGraph("G")
	n1 := g.NewNode("n1", "aten::split.Tensor", FormOp, nil, nil, 1)
	n2 := g.NewNode("n2", "aten::split.Tensor", FormOp, nil, nil, 1)
	r2 := n2.Results[0]
	n1.AddResult("extra")
	if n2.Results[0] != r2 || len(n2.Results) != 1 {
		t.Fatal("adding a result to n1 changed n2's results")
	}
	if n1.Results[1].Def != n1 || n1.Results[1].Index != 1 {
		t.Fatal("n1's new result does not point back at it")
	}
}
