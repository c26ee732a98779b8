package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// max_pool2d_with_indices_backward as Inductor lowers it
// (torch/_inductor/lowering.py max_pool2d_with_indices_backward): one
// pointwise kernel over grad_input. Input element (.., h, w) lies in the
// windows ph in [phstart, phend) x pw in [pwstart, pwend); for each of the
// at most hws x wws of them it loads the saved index and the gradient of
// that window (its position clamped into the range, so every load is in
// bounds) and adds the gradient where the index names (h, w). The first
// window needs no range mask: a clamped window never saved this position.
// Inductor falls back to ATen's kernel for dilation != 1 and for windows
// of more than 25 candidates; kiln reports no lowering there.

func poolBackwardRules() map[string]rule {
	return map[string]rule{"max_pool2d_with_indices_backward": lowerMaxPoolBackward}
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

func lowerMaxPoolBackward(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "grad_output", "indices")
	if err != nil {
		return err
	}
	grad, ix := in[0], in[1]
	g, err := poolArgs(l, c, out)
	if err != nil {
		return err
	}
	g.outShape = grad.layout.Shape
	dt := out.layout.DType
	if !dt.IsFloat() || ix.layout.DType != ir.I64 || len(grad.layout.Shape) != len(out.layout.Shape) ||
		!sym.EqualLists(ix.layout.Shape, grad.layout.Shape) {
		return noLowering(c.Node, "", "%s with grad %s%v and indices %s%v", c.Op, grad.layout.DType.Name(), grad.layout.Shape,
			ix.layout.DType.Name(), ix.layout.Shape)
	}
	var k, st, pad [2]int64
	for d := range 2 {
		kv, ok1 := g.k[d].Const()
		sv, ok2 := g.st[d].Const()
		pv, ok3 := g.pad[d].Const()
		if !ok1 || !ok2 || !ok3 || kv <= 0 || sv <= 0 {
			return noLowering(c.Node, "", "%s with a symbolic or non-positive kernel size or stride", c.Op)
		}
		if dv, ok := g.dil[d].Const(); !ok || dv != 1 {
			return noLowering(c.Node, "Inductor calls ATen's kernel here (dilation is not implemented in its lowering)",
				"%s with dilation %v", c.Op, g.dil)
		}
		k[d], st[d], pad[d] = kv, sv, pv
	}
	win := [2]int64{maxPoolBackwardWindow(k[0], st[0]), maxPoolBackwardWindow(k[1], st[1])}
	if win[0]*win[1] > 25 {
		return noLowering(c.Node, "Inductor calls ATen's kernel for windows of more than 25 candidates",
			"%s: %dx%d candidate windows per input element", c.Op, win[0], win[1])
	}
	rank := len(out.layout.Shape)
	x := outerVars(rank)
	pooled := grad.layout.Shape[rank-2:]
	var start, end [2]sym.Expr
	for d := range 2 {
		p := sym.Add(x[rank-2+d], sym.Const(pad[d]))
		start[d] = sym.Max(sym.FloorDiv(sym.Add(p, sym.Const(st[d]-k[d])), sym.Const(st[d])), sym.Const(0))
		end[d] = sym.Min(sym.Add(sym.FloorDiv(p, sym.Const(st[d])), sym.Const(1)), pooled[d])
	}
	acc := accType(dt)
	b := l.newKernel(out.layout.Shape)
	self := b.index(sym.Add(sym.Mul(x[rank-2], g.size(1)), x[rank-1]), ir.I64)
	// inside[d][i]: candidate i along d is a window that covers the
	// element (only tested past the first candidate)
	var inside [2][]*Instr
	for d := range 2 {
		if win[0]*win[1] == 1 {
			break
		}
		e := b.index(end[d], ir.I64)
		for i := range win[d] {
			inside[d] = append(inside[d], b.call("lt", ir.Bool, b.index(sym.Add(start[d], sym.Const(i)), ir.I64), e))
		}
	}
	var sum *Instr
	for i := range win[0] {
		for j := range win[1] {
			ph, pw := sym.Add(start[0], sym.Const(i)), sym.Add(start[1], sym.Const(j))
			at := append(append([]sym.Expr{}, x[:rank-2]...),
				sym.Min(ph, sym.Sub(end[0], sym.Const(1))), sym.Min(pw, sym.Sub(end[1], sym.Const(1))))
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
	b.store(out, x, sum)
	return nil
}
