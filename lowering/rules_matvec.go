package lowering

import (
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// mv and dot are reductions, not extern calls: Inductor too turns small
// matrix-vector products into a sum over the shared dim (its
// tuned_mm/decompositions pick a pointwise-reduction for vector
// operands). Products and the sum are in the result's opmath type.

func matvecRules() map[string]rule {
	return map[string]rule{
		"mv":  lowerMatVec("self", "vec"),
		"dot": lowerMatVec("self", "tensor"),
	}
}

// lowerMatVec is out[x] = Σ_r a[x, r]·v[r] (a of rank 1 for dot: out is 0-d).
func lowerMatVec(aName, vName string) rule {
	return func(l *lowerer, c *ops.Call) error {
		out, in, err := l.operands(c, aName, vName)
		if err != nil {
			return err
		}
		a, v := in[0], in[1]
		if len(v.layout.Shape) != 1 || len(a.layout.Shape) != len(out.layout.Shape)+1 {
			return noLowering(c.Node, "", "%s of ranks %d and %d", c.Op, len(a.layout.Shape), len(v.layout.Shape))
		}
		acc := accType(out.layout.DType)
		x := outerVars(len(out.layout.Shape))
		r := sym.Symbol(ReduceVar(0))
		b := l.newKernel(out.layout.Shape)
		b.stage([]sym.Expr{v.layout.Shape[0]})
		p := b.call("mul", acc, b.cast(b.load(a, append(append([]sym.Expr{}, x...), r)), acc),
			b.cast(b.load(v, []sym.Expr{r}), acc))
		s := b.reduce(ReduceSum, acc, p)
		b.stage(nil)
		b.store(out, x, s)
		return nil
	}
}
