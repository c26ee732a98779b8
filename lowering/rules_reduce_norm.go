package lowering

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// vectorNorm is linalg_vector_norm over real inputs, as ATen's norm
// kernels compute it in the accumulation type: ord 2 is sqrt(sum(x*x)),
// 1 is sum(|x|), inf / -inf are max / min of |x|, 0 counts the nonzero
// elements, any other p is sum(|x|^p)^(1/p). One r-stage and an outer
// stage, like sum, so that a prologue and an epilogue (F.normalize's
// clamp and divide) fuse into it.
func (r redRule) vectorNorm(l *lowerer, rc *redCtx) error {
	if rc.in.layout.DType.IsComplex() {
		return noLowering(rc.c.Node, "", "%s of a complex tensor: lowered for real inputs only", rc.c.Op)
	}
	acc := accType(rc.c.Node.Out().Type.Tensor.DType)
	if !acc.IsFloat() {
		return fmt.Errorf("%s: result type %s is not a float", rc.c.Op, acc)
	}
	p, err := rc.c.Float("ord")
	if err != nil {
		return err
	}
	x := rc.loadAs(acc)
	var y *Instr
	switch {
	case p == 2:
		y = rc.reduce(ReduceSum, acc, rc.call("mul", acc, x, x))
	case p == 0:
		y = rc.reduce(ReduceSum, acc, rc.cast(rc.call("ne", ir.Bool, x, rc.constant(0, acc)), acc))
	case math.IsInf(p, 1):
		y = rc.reduce(ReduceMax, acc, rc.call("abs", acc, x))
	case math.IsInf(p, -1):
		y = rc.reduce(ReduceMin, acc, rc.call("abs", acc, x))
	case p == 1:
		y = rc.reduce(ReduceSum, acc, rc.call("abs", acc, x))
	default:
		y = rc.reduce(ReduceSum, acc, rc.call("pow", acc, rc.call("abs", acc, x), rc.constant(p, acc)))
	}
	rc.stage(nil)
	switch {
	case p == 2:
		y = rc.call("sqrt", acc, y)
	case p != 0 && p != 1 && !math.IsInf(p, 0):
		y = rc.call("pow", acc, y, rc.constant(1/p, acc))
	}
	return rc.storeResult(l, 0, y)
}
