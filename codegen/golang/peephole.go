package golang

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// Peepholes the Go compiler does not do, on values with one use. Go
// compiles a float max(a, b) on amd64 as -min(-a, -b) (three sign flips
// around two MINSS) and never cancels a sign flip against a neg that
// follows, so an elementwise chain pays for each; these rewrites keep
// every result bit-identical (NaN stays NaN, ±0 ordered as before).
//
//	neg(maximum(a, b)) = minimum(-a, -b)   floats: -max(-0, +0) = -0 = min(+0, -0)
//	neg(minimum(a, b)) = maximum(-a, -b)
//	abs(neg(x))        = abs(x)            floats and wrapping ints alike
//	pow(x, 2)          = x*x               f32: what ATen's pow kernel computes
//	                                       for exponent 2; float64(x)² is exact,
//	                                       so rounding it once gives x*x's bits
type peephole struct {
	// negated maps a neg to the maximum/minimum it absorbs, which is then
	// not emitted on its own (folded).
	negated map[*lowering.Instr]*lowering.Instr
	folded  map[*lowering.Instr]bool
	// operands overrides a call's operands.
	operands map[*lowering.Instr][]*lowering.Instr
	// squared marks a pow by 2 computed as mul(x, x).
	squared map[*lowering.Instr]bool
}

// flipped is the function that computes -f(a, b) from -a and -b.
var flipped = map[string]string{"maximum": "minimum", "minimum": "maximum"}

// simplify finds the rewrites for the kernel and updates g.uses.
func (g *kernelGen) simplify() {
	g.peep = peephole{negated: map[*lowering.Instr]*lowering.Instr{}, folded: map[*lowering.Instr]bool{},
		operands: map[*lowering.Instr][]*lowering.Instr{}, squared: map[*lowering.Instr]bool{}}
	for _, s := range g.k.Stages {
		inStage := make(map[*lowering.Instr]bool, len(s.Body))
		for _, in := range s.Body {
			inStage[in] = true
			if in.Op == lowering.OpCall && in.Fn == "pow" && len(in.Args) == 2 && in.DType == ir.F32 &&
				in.Args[0].DType == ir.F32 && in.Args[1].Op == lowering.OpConst && in.Args[1].Imm.Float == 2 {
				x := in.Args[0]
				g.peep.squared[in] = true
				g.peep.operands[in] = []*lowering.Instr{x, x}
				g.uses[in.Args[1]]--
				g.uses[x]++
				continue
			}
			if in.Op != lowering.OpCall || len(in.Args) != 1 {
				continue
			}
			x := in.Args[0]
			if x.Op != lowering.OpCall || x.DType != in.DType || !inStage[x] {
				continue
			}
			switch {
			case in.Fn == "neg" && flipped[x.Fn] != "" && in.DType.IsFloat() && g.uses[x] == 1:
				g.peep.negated[in] = x
				g.peep.folded[x] = true
			case in.Fn == "abs" && x.Fn == "neg" && g.peep.negated[x] == nil && x.Args[0].DType == in.DType:
				g.peep.operands[in] = x.Args
				g.uses[x]--
				g.uses[x.Args[0]]++
			}
		}
	}
}

// callOperands is what a call computes on: its operands, or the
// operands a peephole gave it.
func (g *kernelGen) callOperands(in *lowering.Instr) []*lowering.Instr {
	if ops, ok := g.peep.operands[in]; ok {
		return ops
	}
	if m := g.peep.negated[in]; m != nil {
		return m.Args
	}
	return in.Args
}

// callFn is the function a call emits: a neg that absorbed a maximum
// computes minimum (of negated operands; see negateOperands).
func (g *kernelGen) callFn(in *lowering.Instr) (fn string, negateOperands bool) {
	if m := g.peep.negated[in]; m != nil {
		return flipped[m.Fn], true
	}
	if g.peep.squared[in] {
		return "mul", false
	}
	return in.Fn, false
}
