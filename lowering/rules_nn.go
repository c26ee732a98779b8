package lowering

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Softmax family: one kernel over the other dims whose three r-stages loop
// over dim: the max, the sum of exp(x - max), and the store of
// exp(x - max) / sum (log_softmax: x - max - log(sum)), as Inductor's
// looped reduction reads.

func nnRules() map[string]rule {
	return map[string]rule{
		"_softmax":        softmaxRule(false),
		"softmax.int":     softmaxRule(false),
		"_log_softmax":    softmaxRule(true),
		"log_softmax.int": softmaxRule(true),
	}
}

func softmaxRule(log bool) rule {
	return func(l *lowerer, c *ops.Call) error {
		in, err := l.ref(c.Arg("self"))
		if err != nil {
			return err
		}
		out, err := l.resultRef(c, 0)
		if err != nil {
			return err
		}
		rank := len(in.layout.Shape)
		d, err := dimArg(c, "dim", max(rank, 1))
		if err != nil {
			return err
		}
		var outer, ranges []sym.Expr
		idx := make([]sym.Expr, rank)
		xi := 0
		for i, s := range in.layout.Shape {
			if i == d {
				ranges, idx[i] = []sym.Expr{s}, sym.Symbol(ReduceVar(0))
				continue
			}
			outer, idx[i] = append(outer, s), sym.Symbol(OuterVar(xi))
			xi++
		}
		if rank == 0 {
			ranges = []sym.Expr{sym.Const(1)}
		}
		acc := accType(out.layout.DType)
		b := l.newKernel(outer)
		loadX := func() *Instr {
			b.stage(slices.Clone(ranges))
			return b.cast(b.load(in, idx), acc)
		}
		m := b.reduce(ReduceMax, acc, loadX())
		x := loadX()
		s := b.reduce(ReduceSum, acc, b.call("exp", acc, b.call("sub", acc, x, m)))
		x = loadX()
		shifted := b.call("sub", acc, x, m)
		var y *Instr
		if log {
			y = b.call("sub", acc, shifted, b.call("log", acc, s))
		} else {
			y = b.call("truediv", acc, b.call("exp", acc, shifted), s)
		}
		b.store(out, idx, y)
		return nil
	}
}
