package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// _adaptive_avg_pool2d as torch/_inductor/lowering.py lowers it (Inductor's
// table does not decompose it; kiln's decompose pass turns the sizes that
// divide into avg_pool2d first): one pointwise kernel over the result.
// Output row o averages input rows [o*in//out, ((o+1)*in + out-1)//out),
// at most ceil((in+out-1)/out) of them; the kernel visits that many
// candidates per axis, masks those past the window's end (their loads
// clamped into the input) and divides the sum by the count of the rest.
// More than 25 candidates per element: Inductor calls ATen's kernel, kiln
// reports no lowering.

func adaptivePoolRules() map[string]rule {
	return map[string]rule{
		"_adaptive_avg_pool2d": lowerAdaptiveAvgPool,
		"adaptive_avg_pool2d":  lowerAdaptiveAvgPool,
	}
}

func lowerAdaptiveAvgPool(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "self")
	if err != nil {
		return err
	}
	x := in[0]
	rank := len(x.layout.Shape)
	dt := out.layout.DType
	if (rank != 3 && rank != 4) || len(out.layout.Shape) != rank || !dt.IsFloat() {
		return noLowering(c.Node, "", "%s of a %d-d %s tensor", c.Op, rank, dt.Name())
	}
	var inSize, outSize, kmax [2]int64
	for d := range 2 {
		i, ok1 := x.layout.Shape[rank-2+d].Const()
		o, ok2 := out.layout.Shape[rank-2+d].Const()
		if !ok1 || !ok2 || o <= 0 {
			return noLowering(c.Node, "", "%s with symbolic or empty sizes", c.Op)
		}
		inSize[d], outSize[d], kmax[d] = i, o, (i+o-1+o-1)/o
	}
	if kmax[0]*kmax[1] > 25 {
		return noLowering(c.Node, "Inductor calls ATen's kernel for windows of more than 25 candidates",
			"%s: %dx%d candidates per output element", c.Op, kmax[0], kmax[1])
	}
	xs := outerVars(rank)
	var start, end [2]sym.Expr
	for d := range 2 {
		o, i, n := xs[rank-2+d], sym.Const(inSize[d]), sym.Const(outSize[d])
		start[d] = sym.FloorDiv(sym.Mul(o, i), n)
		end[d] = sym.FloorDiv(sym.Add(sym.Mul(sym.Add(o, sym.Const(1)), i), sym.Const(outSize[d]-1)), n)
	}
	acc := accType(dt)
	b := l.newKernel(out.layout.Shape)
	var inside [2][]*Instr
	for d := range 2 {
		e := b.index(end[d], ir.I64)
		for k := range kmax[d] {
			inside[d] = append(inside[d], b.call("lt", ir.Bool, b.index(sym.Add(start[d], sym.Const(k)), ir.I64), e))
		}
	}
	zero, one := b.constant(0, acc), b.constant(1, acc)
	var sum, count *Instr
	for i := range kmax[0] {
		for j := range kmax[1] {
			at := append(append([]sym.Expr{}, xs[:rank-2]...),
				sym.Min(sym.Add(start[0], sym.Const(i)), sym.Const(inSize[0]-1)),
				sym.Min(sym.Add(start[1], sym.Const(j)), sym.Const(inSize[1]-1)))
			ok := b.and(inside[0][i], inside[1][j])
			v := b.call("where", acc, ok, b.cast(b.load(x, at), acc), zero)
			n := b.call("where", acc, ok, one, zero)
			if sum == nil {
				sum, count = v, n
				continue
			}
			sum, count = b.call("add", acc, v, sum), b.call("add", acc, n, count)
		}
	}
	b.store(out, xs, b.call("truediv", acc, sum, count))
	return nil
}
