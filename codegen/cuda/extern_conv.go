package cuda

import (
	"fmt"

	"github.com/kiln-compiler/kiln/lowering"
)

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
	if nsp < 1 || len(wt.Layout.Shape) != rank || len(x.out().Layout.Shape) != rank {
		return fmt.Errorf("expects operands of equal rank >= 3, got %d, %d, %d", rank, len(wt.Layout.Shape), len(x.out().Layout.Shape))
	}
	cp, err := convParams(e.Params, nsp)
	if err != nil {
		return err
	}
	stride, pad, dil, groups := cp.stride, cp.pad, cp.dil, cp.groups
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
		x.e.line("const long long cg = (%s), og = (%s) / %d;", wt.Layout.Shape[1].Code(), x.out().Layout.Shape[1].Code(), groups)
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

// convP is a convolution's parameters and, for its backward, operands.
type convP struct {
	stride, pad, dil []int64
	groups           int64
	nsp              int
	gout, in, wt     lowering.Operand
}

// convParams reads stride, padding and dilation (one value per spatial
// dim, or one for all) and groups.
func convParams(params map[string][]int64, nsp int) (*convP, error) {
	param := func(name string, def int64) ([]int64, error) {
		v := params[name]
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
	cp := &convP{groups: 1, nsp: nsp}
	var err error
	if cp.stride, err = param("stride", 1); err != nil {
		return nil, err
	}
	if cp.pad, err = param("padding", 0); err != nil {
		return nil, err
	}
	if cp.dil, err = param("dilation", 1); err != nil {
		return nil, err
	}
	for i := range cp.stride {
		if cp.stride[i] <= 0 || cp.dil[i] <= 0 {
			return nil, fmt.Errorf("stride %v and dilation %v must be positive", cp.stride, cp.dil)
		}
	}
	if g := params["groups"]; len(g) > 0 {
		cp.groups = g[0]
	}
	if cp.groups < 1 {
		return nil, fmt.Errorf("groups must be positive, got %d", cp.groups)
	}
	return cp, nil
}
