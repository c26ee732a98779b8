package ir

// Clone deep-copies g: new values and nodes with the same names, types,
// positions and registry ops (passes.Manager's Snapshot for translation
// validation).
func Clone(g *Graph) *Graph {
	c := NewGraph(g.Name)
	c.ReturnForm, c.Pos, c.Module = g.ReturnForm, g.Pos, g.Module
	vm := map[*Value]*Value{}
	for _, v := range g.Inputs {
		nv := c.AddInput(v.Name, cloneType(v.Type), v.Pos)
		nv.Annot, nv.Attrs = cloneType(v.Annot), append(Attrs(nil), v.Attrs...)
		vm[v] = nv
	}
	for _, n := range g.Nodes {
		nn := c.NewNode(n.Name, n.Target, n.Form, mapArgs(n.Args, vm), mapKwargs(n.Kwargs, vm), len(n.Results))
		nn.Op, nn.Pos, nn.Stack, nn.Attrs = n.Op, n.Pos, n.Stack, append(Attrs(nil), n.Attrs...)
		for i, r := range n.Results {
			nr := nn.Results[i]
			nr.Name, nr.Type, nr.Annot, nr.Pos = r.Name, cloneType(r.Type), cloneType(r.Annot), r.Pos
			nr.Attrs = append(Attrs(nil), r.Attrs...)
			vm[r] = nr
		}
		c.Append(nn)
	}
	c.SetOutputs(mapArgs(g.Outputs, vm))
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

func mapArgs(args []Arg, vm map[*Value]*Value) []Arg {
	if args == nil {
		return nil
	}
	out := make([]Arg, len(args))
	for i, a := range args {
		out[i] = mapArg(a, vm)
	}
	return out
}

func mapArg(a Arg, vm map[*Value]*Value) Arg {
	switch a.Kind {
	case ArgValue:
		if nv, ok := vm[a.Value]; ok {
			a.Value = nv
		}
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		a.Elems = mapArgs(a.Elems, vm)
		a.Keys = mapArgs(a.Keys, vm)
	}
	return a
}

func mapKwargs(kws []Kwarg, vm map[*Value]*Value) []Kwarg {
	if kws == nil {
		return nil
	}
	out := make([]Kwarg, len(kws))
	for i, k := range kws {
		out[i] = Kwarg{Name: k.Name, Arg: mapArg(k.Arg, vm)}
	}
	return out
}
