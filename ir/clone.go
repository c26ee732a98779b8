package ir

// Clone deep-copies g: new values and nodes with the same names, types,
// positions and registry ops (passes.Manager's Snapshot for translation
// validation).
func Clone(g *Graph) *Graph {
	c := NewGraph(g.Name)
	c.ReturnForm, c.Pos, c.Module = g.ReturnForm, g.Pos, g.Module
	vm := map[*Value]*Value{}
	m := argMapper{value: func(v *Value) *Value {
		if nv, ok := vm[v]; ok {
			return nv
		}
		return v
	}}
	for _, v := range g.Inputs {
		nv := c.AddInput(v.Name, cloneType(v.Type), v.Pos)
		nv.Annot, nv.Attrs = cloneType(v.Annot), append(Attrs(nil), v.Attrs...)
		vm[v] = nv
	}
	for _, n := range g.Nodes {
		nn := c.NewNode(n.Name, n.Target, n.Form, m.args(n.Args), m.kwargs(n.Kwargs), len(n.Results))
		nn.Op, nn.Pos, nn.Stack, nn.Attrs = n.Op, n.Pos, n.Stack, append(Attrs(nil), n.Attrs...)
		for i, r := range n.Results {
			nr := nn.Results[i]
			nr.Name, nr.Type, nr.Annot, nr.Pos = r.Name, cloneType(r.Type), cloneType(r.Annot), r.Pos
			nr.Attrs = append(Attrs(nil), r.Attrs...)
			vm[r] = nr
		}
		c.Append(nn)
	}
	c.SetOutputs(m.args(g.Outputs))
	return c
}

func cloneType(t Type) Type {
	if t.Tensor != nil {
		t.Tensor = t.Tensor.Clone()
	}
	if t.Elems != nil {
		elems := make([]Type, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = cloneType(e)
		}
		t.Elems = elems
	}
	return t
}

// argMapper copies argument lists with their values mapped, cutting the
// copies from one set of chunks (Clone, Compact).
type argMapper struct {
	value  func(*Value) *Value
	chunks Chunks[Arg]
}

func (m *argMapper) args(args []Arg) []Arg {
	if args == nil {
		return nil
	}
	out := m.chunks.Take(len(args))
	for i, a := range args {
		out[i] = m.arg(a)
	}
	return out
}

func (m *argMapper) arg(a Arg) Arg {
	switch a.Kind {
	case ArgValue:
		a.Value = m.value(a.Value)
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		a.Elems = m.args(a.Elems)
		a.Keys = m.args(a.Keys)
	}
	return a
}

func (m *argMapper) kwargs(kws []Kwarg) []Kwarg {
	if kws == nil {
		return nil
	}
	out := make([]Kwarg, len(kws))
	for i, k := range kws {
		out[i] = Kwarg{Name: k.Name, Arg: m.arg(k.Arg)}
	}
	return out
}
