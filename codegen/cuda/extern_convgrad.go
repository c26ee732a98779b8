package cuda

import (
	"fmt"

	"github.com/kiln-compiler/kiln/lowering"
)

// The gathers of convolution_backward's outputs, one output element per
// thread at (o0, o1, ...); each adds into acc, declared by the caller,
// which stores it. cg and og are input and output channels per group.

// convGradInput: gx[n, c, i] sums g[n, oc, q] · w[oc, c % cg, k] over the
// group's output channels oc and the taps k with q·stride = i + pad -
// k·dilation inside grad_output.
func (x *xgen) convGradInput(cp *convP) func(lowering.Operand) error {
	return func(o lowering.Operand) error {
		acc := cType(dtInfos[o.Layout.DType].reg)
		x.e.line("const long long cg = (%s), og = (%s) / %d;", cp.wt.Layout.Shape[1].Code(), cp.wt.Layout.Shape[0].Code(), cp.groups)
		x.e.line("const long long ci = o1 %% cg, grp = o1 / cg;")
		x.e.line("for (long long oc = grp * og; oc < (grp + 1) * og; ++oc) {")
		x.e.in()
		gi, wi := []string{"o0", "oc"}, []string{"oc", "ci"}
		for d := 0; d < cp.nsp; d++ {
			x.e.line("for (long long k%d = 0; k%d < (%s); ++k%d) {", d, d, cp.wt.Layout.Shape[d+2].Code(), d)
			x.e.in()
			x.e.line("const long long t%d = o%d + %d - k%d * %d;", d, d+2, cp.pad[d], d, cp.dil[d])
			x.e.line("if (t%d < 0 || t%d %% %d != 0 || t%d / %d >= (%s)) continue;", d, d, cp.stride[d], d, cp.stride[d], cp.gout.Layout.Shape[d+2].Code())
			x.e.line("const long long q%d = t%d / %d;", d, d, cp.stride[d])
			gi, wi = append(gi, fmt.Sprintf("q%d", d)), append(wi, fmt.Sprintf("k%d", d))
		}
		if err := x.accumulate(acc, cp.gout, gi, cp.wt, wi); err != nil {
			return err
		}
		x.closeLoops(cp.nsp + 1)
		return nil
	}
}

// convDirect: a transposed convolution's grad_input, the direct
// convolution of grad_output with its weight [in, out/groups, k...]:
// gx[n, c, i] sums g[n, grp·og + oc, i·stride - pad + k·dilation] ·
// w[c, oc, k] over oc < og (output channels per group) and the taps.
func (x *xgen) convDirect(cp *convP) func(lowering.Operand) error {
	return func(o lowering.Operand) error {
		acc := cType(dtInfos[o.Layout.DType].reg)
		x.e.line("const long long og = (%s), cg = (%s) / %d;", cp.wt.Layout.Shape[1].Code(), cp.wt.Layout.Shape[0].Code(), cp.groups)
		x.e.line("const long long grp = o1 / cg;")
		x.e.line("for (long long oc = 0; oc < og; ++oc) {")
		x.e.in()
		gi, wi := []string{"o0", "grp * og + oc"}, []string{"o1", "oc"}
		for d := 0; d < cp.nsp; d++ {
			x.e.line("for (long long k%d = 0; k%d < (%s); ++k%d) {", d, d, cp.wt.Layout.Shape[d+2].Code(), d)
			x.e.in()
			x.e.line("const long long q%d = o%d * %d - %d + k%d * %d;", d, d+2, cp.stride[d], cp.pad[d], d, cp.dil[d])
			x.e.line("if (q%d < 0 || q%d >= (%s)) continue;", d, d, cp.gout.Layout.Shape[d+2].Code())
			gi, wi = append(gi, fmt.Sprintf("q%d", d)), append(wi, fmt.Sprintf("k%d", d))
		}
		if err := x.accumulate(acc, cp.gout, gi, cp.wt, wi); err != nil {
			return err
		}
		x.closeLoops(cp.nsp + 1)
		return nil
	}
}

// convGradWeight: gw[oc, ci, k] sums g[n, oc, q] · x[n, c, q·stride - pad
// + k·dilation] over the batch and grad_output's positions, c the input
// channel ci of oc's group.
func (x *xgen) convGradWeight(cp *convP) func(lowering.Operand) error {
	return func(o lowering.Operand) error {
		acc := "double" // convGradAcc
		x.e.line("const long long cg = (%s), og = (%s) / %d;", cp.wt.Layout.Shape[1].Code(), cp.wt.Layout.Shape[0].Code(), cp.groups)
		x.e.line("const long long c = o0 / og * cg + o1;")
		x.e.line("for (long long n = 0; n < (%s); ++n) {", cp.gout.Layout.Shape[0].Code())
		x.e.in()
		gi, xi := []string{"n", "o0"}, []string{"n", "c"}
		for d := 0; d < cp.nsp; d++ {
			x.e.line("for (long long q%d = 0; q%d < (%s); ++q%d) {", d, d, cp.gout.Layout.Shape[d+2].Code(), d)
			x.e.in()
			x.e.line("const long long i%d = q%d * %d - %d + o%d * %d;", d, d, cp.stride[d], cp.pad[d], d+2, cp.dil[d])
			x.e.line("if (i%d < 0 || i%d >= (%s)) continue;", d, d, cp.in.Layout.Shape[d+2].Code())
			gi, xi = append(gi, fmt.Sprintf("q%d", d)), append(xi, fmt.Sprintf("i%d", d))
		}
		if err := x.accumulate(acc, cp.gout, gi, cp.in, xi); err != nil {
			return err
		}
		x.closeLoops(cp.nsp + 1)
		return nil
	}
}

// convGradBias: gb[oc] sums g[n, oc, q] over the batch and positions.
func (x *xgen) convGradBias(cp *convP) func(lowering.Operand) error {
	return func(o lowering.Operand) error {
		acc := "double" // convGradAcc
		x.e.line("for (long long n = 0; n < (%s); ++n) {", cp.gout.Layout.Shape[0].Code())
		x.e.in()
		gi := []string{"n", "o0"}
		for d := 0; d < cp.nsp; d++ {
			x.e.line("for (long long q%d = 0; q%d < (%s); ++q%d) {", d, d, cp.gout.Layout.Shape[d+2].Code(), d)
			x.e.in()
			gi = append(gi, fmt.Sprintf("q%d", d))
		}
		gv, err := x.operand(cp.gout, gi...)
		if err != nil {
			return err
		}
		x.e.line("acc = k_add(acc, (%s)%s);", acc, gv)
		x.closeLoops(cp.nsp + 1)
		return nil
	}
}

// accumulate emits acc += a[ai] · b[bi].
func (x *xgen) accumulate(acc string, a lowering.Operand, ai []string, b lowering.Operand, bi []string) error {
	av, err := x.operand(a, ai...)
	if err != nil {
		return err
	}
	bv, err := x.operand(b, bi...)
	if err != nil {
		return err
	}
	x.e.line("acc = k_add(acc, k_mul((%s)%s, (%s)%s));", acc, av, acc, bv)
	return nil
}

func (x *xgen) closeLoops(n int) {
	for range n {
		x.e.out()
		x.e.line("}")
	}
}
