package cuda

import "fmt"

// convolution: aten::convolution(input, weight, bias, stride, padding,
// dilation, transposed, output_padding, groups) with N spatial dims,
// direct or transposed. Output element (o0 = n, o1 = channel, o2.. =
// position) sums over the input channels of its group and the kernel
// window.
func (x *xgen) convolution() error {
	e := x.k.Extern
	if len(e.Args) != 3 || e.Args[0].Buffer == nil || e.Args[1].Buffer == nil {
		return fmt.Errorf("expects input, weight and an optional bias")
	}
	in, wt, bias := e.Args[0], e.Args[1], e.Args[2]
	rank := len(in.Layout.Shape)
	nsp := rank - 2
	if nsp < 1 || len(wt.Layout.Shape) != rank || len(e.Out.Layout.Shape) != rank {
		return fmt.Errorf("expects operands of equal rank >= 3, got %d, %d, %d", rank, len(wt.Layout.Shape), len(e.Out.Layout.Shape))
	}
	param := func(name string, def int64) ([]int64, error) {
		v := e.Params[name]
		switch {
		case len(v) == 0:
			v = []int64{def}
		case len(v) != 1 && len(v) != nsp:
			return nil, fmt.Errorf("%s has %d values for %d spatial dims", name, len(v), nsp)
		}
		out := make([]int64, nsp)
		for i := range out {
			out[i] = v[min(i, len(v)-1)]
		}
		return out, nil
	}
	stride, err := param("stride", 1)
	if err != nil {
		return err
	}
	pad, err := param("padding", 0)
	if err != nil {
		return err
	}
	dil, err := param("dilation", 1)
	if err != nil {
		return err
	}
	groups := int64(1)
	if g := e.Params["groups"]; len(g) > 0 {
		groups = g[0]
	}
	if groups < 1 {
		return fmt.Errorf("groups must be positive, got %d", groups)
	}
	transposed := len(e.Params["transposed"]) > 0 && e.Params["transposed"][0] != 0
	acc := x.accType()
	x.e.line("%s acc = 0;", acc)
	if bias.Buffer != nil {
		bv, err := x.operand(bias, "o1")
		if err != nil {
			return err
		}
		x.e.line("acc = (%s)%s;", acc, bv)
	}
	// Channels: a direct weight is [out, in/groups, k...]; a transposed
	// one is [in, out/groups, k...].
	if transposed {
		x.e.line("const long long og = (%s), cg = (%s) / %d;", wt.Layout.Shape[1].Code(), in.Layout.Shape[1].Code(), groups)
		x.e.line("const long long grp = o1 / og, oc = o1 %% og;")
	} else {
		x.e.line("const long long cg = (%s), og = (%s) / %d;", wt.Layout.Shape[1].Code(), e.Out.Layout.Shape[1].Code(), groups)
		x.e.line("const long long grp = o1 / og;")
	}
	x.e.line("for (long long c = 0; c < cg; ++c) {")
	x.e.in()
	x.e.line("const long long ic = grp * cg + c;")
	inIdx, wIdx := []string{"o0", "ic"}, []string{"o1", "c"}
	if transposed {
		wIdx = []string{"ic", "oc"}
	}
	for i := 0; i < nsp; i++ {
		d := i + 2
		x.e.line("for (long long k%d = 0; k%d < (%s); ++k%d) {", i, i, wt.Layout.Shape[d].Code(), i)
		x.e.in()
		if transposed {
			x.e.line("const long long t%d = o%d + %d - k%d * %d;", i, d, pad[i], i, dil[i])
			x.e.line("if (t%d < 0 || t%d %% %d != 0) continue;", i, i, stride[i])
			x.e.line("const long long i%d = t%d / %d;", i, i, stride[i])
		} else {
			x.e.line("const long long i%d = o%d * %d - %d + k%d * %d;", i, d, stride[i], pad[i], i, dil[i])
			x.e.line("if (i%d < 0) continue;", i)
		}
		x.e.line("if (i%d >= (%s)) continue;", i, in.Layout.Shape[d].Code())
		inIdx = append(inIdx, fmt.Sprintf("i%d", i))
		wIdx = append(wIdx, fmt.Sprintf("k%d", i))
	}
	iv, err := x.operand(in, inIdx...)
	if err != nil {
		return err
	}
	wv, err := x.operand(wt, wIdx...)
	if err != nil {
		return err
	}
	x.e.line("acc = k_add(acc, k_mul((%s)%s, (%s)%s));", acc, iv, acc, wv)
	for i := 0; i < nsp; i++ {
		x.e.out()
		x.e.line("}")
	}
	x.e.out()
	x.e.line("}")
	x.store()
	return nil
}
