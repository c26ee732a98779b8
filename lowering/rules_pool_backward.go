package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// max_pool2d_with_indices_backward and avg_pool2d_backward as Inductor
// lowers them (torch/_inductor/lowering.py): one pointwise kernel over
// grad_input. Input element (.., h, w) lies in the windows ph in
// [phstart, phend) x pw in [pwstart, pwend); for each of the at most
// hws x wws of them the kernel loads that window's gradient (its position
// clamped into the range, so every load is in bounds) and adds it where
// the window is in range: for the max pool, where the window's saved index
// names (h, w) (the first candidate needs no range test: a clamped window
// never saved this position); for the average, divided by the window's
// divisor as ATen's CPU kernel counts it. Inductor falls back to ATen's
// kernel for dilation != 1 and for more than 25 candidates; kiln reports
// no lowering there.

func poolBackwardRules() map[string]rule {
	return map[string]rule{
		"max_pool2d_with_indices_backward": lowerMaxPoolBackward,
		"avg_pool2d_backward":              lowerAvgPoolBackward,
	}
}

// maxPoolBackwardWindow is Inductor's bound on how many windows of one
// axis cover an input element: max over h < 2k of h//s - max(0, (h-k)//s).
func maxPoolBackwardWindow(k, s int64) int64 {
	n := int64(1)
	for h := range 2 * k {
		n = max(n, floorDivInt(h, s)-max(0, floorDivInt(h-k, s)))
	}
	return n
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// poolGrad is one pool backward's geometry: constant kernel, stride and
// padding, the candidate windows per axis, and per input element (the
// outer vars x) the range [start, end) of windows covering it.
type poolGrad struct {
	*poolGeom
	k, st, pad, win [2]int64
	x               []sym.Expr
	start, end      [2]sym.Expr
}

func poolGradArgs(l *lowerer, c *ops.Call, out, grad tensorRef) (*poolGrad, error) {
	g, err := poolArgs(l, c, out)
	if err != nil {
		return nil, err
	}
	rank := len(out.layout.Shape)
	if !out.layout.DType.IsFloat() || len(grad.layout.Shape) != rank {
		return nil, noLowering(c.Node, "", "%s with grad %s%v", c.Op, grad.layout.DType.Name(), grad.layout.Shape)
	}
	g.outShape = grad.layout.Shape
	p := &poolGrad{poolGeom: g, x: outerVars(rank)}
	for d := range 2 {
		kv, ok1 := g.k[d].Const()
		sv, ok2 := g.st[d].Const()
		pv, ok3 := g.pad[d].Const()
		if !ok1 || !ok2 || !ok3 || kv <= 0 || sv <= 0 {
			return nil, noLowering(c.Node, "", "%s with a symbolic or non-positive kernel size or stride", c.Op)
		}
		if dv, ok := g.dil[d].Const(); !ok || dv != 1 {
			return nil, noLowering(c.Node, "Inductor calls ATen's kernel here (dilation is not implemented in its lowering)",
				"%s with dilation %v", c.Op, g.dil)
		}
		p.k[d], p.st[d], p.pad[d] = kv, sv, pv
		p.win[d] = maxPoolBackwardWindow(kv, sv)
		at := sym.Add(p.x[rank-2+d], sym.Const(pv))
		p.start[d] = sym.Max(sym.FloorDiv(sym.Add(at, sym.Const(sv-kv)), sym.Const(sv)), sym.Const(0))
		p.end[d] = sym.Min(sym.Add(sym.FloorDiv(at, sym.Const(sv)), sym.Const(1)), grad.layout.Shape[rank-2+d])
	}
	if p.win[0]*p.win[1] > 25 {
		return nil, noLowering(c.Node, "Inductor calls ATen's kernel for windows of more than 25 candidates",
			"%s: %dx%d candidate windows per input element", c.Op, p.win[0], p.win[1])
	}
	return p, nil
}

// window is candidate i along axis d, clamped into [start, end).
func (p *poolGrad) window(d int, i int64) sym.Expr {
	return sym.Min(sym.Add(p.start[d], sym.Const(i)), sym.Sub(p.end[d], sym.Const(1)))
}

// at is the grad_output (and indices) position of candidate (i, j).
func (p *poolGrad) at(i, j int64) []sym.Expr {
	n := len(p.x)
	return append(append([]sym.Expr{}, p.x[:n-2]...), p.window(0, i), p.window(1, j))
}

// inside is, per axis and candidate, whether it is a window that covers
// the element.
func (p *poolGrad) inside(b *kbuilder) (in [2][]*Instr) {
	for d := range 2 {
		e := b.index(p.end[d], ir.I64)
		for i := range p.win[d] {
			in[d] = append(in[d], b.call("lt", ir.Bool, b.index(sym.Add(p.start[d], sym.Const(i)), ir.I64), e))
		}
	}
	return in
}

func lowerMaxPoolBackward(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "grad_output", "indices")
	if err != nil {
		return err
	}
	grad, ix := in[0], in[1]
	if ix.layout.DType != ir.I64 || !sym.EqualLists(ix.layout.Shape, grad.layout.Shape) {
		return noLowering(c.Node, "", "%s with grad %v and indices %s%v", c.Op, grad.layout.Shape, ix.layout.DType.Name(), ix.layout.Shape)
	}
	p, err := poolGradArgs(l, c, out, grad)
	if err != nil {
		return err
	}
	rank := len(p.x)
	acc := accType(out.layout.DType)
	b := l.newKernel(out.layout.Shape)
	self := b.index(sym.Add(sym.Mul(p.x[rank-2], p.size(1)), p.x[rank-1]), ir.I64)
	var inside [2][]*Instr
	if p.win[0]*p.win[1] > 1 {
		inside = p.inside(b)
	}
	var sum *Instr
	for i := range p.win[0] {
		for j := range p.win[1] {
			at := p.at(i, j)
			hit := b.call("eq", ir.Bool, b.load(ix, at), self)
			v := b.cast(b.load(grad, at), acc)
			if sum == nil {
				sum = b.call("where", acc, hit, v, b.constant(0, acc))
				continue
			}
			ok := b.and(b.and(inside[0][i], inside[1][j]), hit)
			sum = b.call("where", acc, ok, b.call("add", acc, sum, v), sum)
		}
	}
	b.store(out, p.x, sum)
	return nil
}

// lowerAvgPoolBackward is avg_pool2d_backward: each covering window's
// gradient divided by divisor_override, or by the window clipped to the
// padded input (count_include_pad) or to the input, as ATen's CPU kernel
// (and interp) divide.
func lowerAvgPoolBackward(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "grad_output")
	if err != nil {
		return err
	}
	grad := in[0]
	p, err := poolGradArgs(l, c, out, grad)
	if err != nil {
		return err
	}
	countPad, err := c.Bool("count_include_pad")
	if err != nil {
		return err
	}
	override := int64(0)
	if !c.IsNone("divisor_override") {
		if override, err = c.Int("divisor_override"); err != nil || override == 0 {
			return noLowering(c.Node, "", "%s: divisor_override must be a non-zero constant", c.Op)
		}
	}
	acc := accType(out.layout.DType)
	b := l.newKernel(out.layout.Shape)
	inside := p.inside(b)
	sum := b.constant(0, acc)
	for i := range p.win[0] {
		for j := range p.win[1] {
			v := b.call("truediv", acc, b.cast(b.load(grad, p.at(i, j)), acc), p.divisor(b, acc, i, j, countPad, override))
			sum = b.call("where", acc, b.and(inside[0][i], inside[1][j]), b.call("add", acc, sum, v), sum)
		}
	}
	b.store(out, p.x, sum)
	return nil
}

// divisor is what ATen's avg pool divides candidate (i, j)'s gradient by.
func (p *poolGrad) divisor(b *kbuilder, dt ir.DType, i, j int64, countPad bool, override int64) *Instr {
	if override != 0 {
		return b.constInt(override, dt)
	}
	n := sym.Const(1)
	for d, w := range [2]int64{i, j} {
		lo := sym.Sub(sym.Mul(p.window(d, w), sym.Const(p.st[d])), sym.Const(p.pad[d]))
		hi := sym.Min(sym.Add(lo, sym.Const(p.k[d])), sym.Add(p.size(d), sym.Const(p.pad[d])))
		if !countPad {
			lo, hi = sym.Max(lo, sym.Const(0)), sym.Min(hi, p.size(d))
		}
		n = sym.Mul(n, sym.Sub(hi, lo))
	}
	return b.index(n, dt)
}
