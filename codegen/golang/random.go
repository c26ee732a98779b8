package golang

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// randImpls are the runtime's counter-based draws for lowering.RandFns:
// int64 operands (seed, stream, index), the function's own result type.
var randImpls = map[string]string{
	"rand_uniform": "rt.RandUniform", "rand_normal": "rt.RandNormal", "rand_bits": "rt.RandBits",
}

// emitRandCall emits a random draw; its operands are int64 whatever the
// result's type, so it bypasses emitCall's conversion to a compute type.
func (g *kernelGen) emitRandCall(in *lowering.Instr) error {
	fn, ok := randImpls[in.Fn]
	if !ok || lowering.RandFns[in.Fn] != in.DType || len(in.Args) != 3 {
		return fmt.Errorf("call %s: want 3 int64 operands and a %s result", in.Fn, lowering.RandFns[in.Fn].Abbr())
	}
	var args [3]string
	for i := range args {
		a, err := arg(in, i, ir.I64)
		if err != nil {
			return err
		}
		args[i] = a
	}
	g.c.line("%s := %s(%s, %s, %s)", tmp(in), fn, args[0], args[1], args[2])
	g.markUnused(in)
	return nil
}
