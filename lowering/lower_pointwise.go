package lowering

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// computeKind says which type a pointwise body computes in.
type computeKind uint8

const (
	// computeOut: the result dtype's opmath (f32 for half types); bool
	// results of arithmetic compute in int64 (0/1), then cast back.
	computeOut computeKind = iota
	// computePromoted: the operands' promoted type itself, not its opmath
	// (comparisons, whose result is bool): ATen's compare kernels take a
	// CPU scalar as scalar_t (`iter.scalar_value<scalar_t>`), so
	// bf16 > 0.1 compares with bf16(0.1) on CPU and CUDA alike.
	computePromoted
	// computeBool: operands as bool (logical ops).
	computeBool
	// computeFloat: the first operand's opmath if it is a float, else f32
	// (isnan, isinf, isfinite, signbit: exact for every integer).
	computeFloat
	// computeExact: the result dtype itself, no opmath (copies, casts,
	// factories: one conversion, rounded once).
	computeExact
)

// pwRule is a pointwise op: which schema parameters are its operands, the
// type it computes in, and the scalar body over the operands (already
// converted to that type; nil for an absent optional operand).
type pwRule struct {
	operands []string // "~name": converted to bool, not to the compute type
	compute  computeKind
	build    func(e *pwEnv, x []*Instr) (*Instr, error)
}

// pwEnv is what a body builder sees.
type pwEnv struct {
	*kbuilder
	c     *ops.Call
	dt    ir.DType // compute type
	outDT ir.DType
}

// fn calls a Fn in the compute type.
func (e *pwEnv) fn(name string, args ...*Instr) *Instr { return e.call(name, e.dt, args...) }

// k is a constant in the compute type.
func (e *pwEnv) k(v float64) *Instr { return e.constant(v, e.dt) }

// param is a Scalar parameter as a constant in the compute type.
func (e *pwEnv) param(name string) (*Instr, error) { return e.scalarArg(e.c.Arg(name), e.dt) }

// paramFloat reads a Scalar parameter's value at lowering time.
func (e *pwEnv) paramFloat(name string) (float64, error) { return e.c.Float(name) }

// lower emits the kernel: outer ranges over the result, operand loads at
// their broadcast index, the body, a store at the result's layout.
func (r pwRule) lower(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	dt, err := r.computeType(c, out.layout.DType)
	if err != nil {
		return err
	}
	b := l.newKernel(out.layout.Shape)
	e := &pwEnv{kbuilder: b, c: c, dt: dt, outDT: out.layout.DType}
	xs := make([]*Instr, len(r.operands))
	for i, name := range r.operands {
		want := dt
		if strings.HasPrefix(name, "~") {
			name, want = name[1:], ir.Bool
		}
		if xs[i], err = l.operand(e, c.Arg(name), want, out.layout.Shape); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	y, err := r.build(e, xs)
	if err != nil {
		return err
	}
	b.store(out, outerVars(len(out.layout.Shape)), y)
	return nil
}

// operand loads a tensor argument at its broadcast index, or emits a
// scalar argument as a constant, converted to want; nil for None.
func (l *lowerer) operand(e *pwEnv, a ir.Arg, want ir.DType, outShape []sym.Expr) (*Instr, error) {
	if a.Kind == ir.ArgNone {
		return nil, nil
	}
	if a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor {
		r, err := l.ref(a)
		if err != nil {
			return nil, err
		}
		return e.cast(e.loadBroadcast(r, outShape), want), nil
	}
	return e.scalarArg(a, want)
}

// scalarArg emits a Python number or SymInt as a constant of dt.
func (e *pwEnv) scalarArg(a ir.Arg, dt ir.DType) (*Instr, error) {
	switch a.Kind {
	case ir.ArgInt:
		return e.constInt(a.Int, dt), nil
	case ir.ArgFloat:
		return e.constant(a.Float, dt), nil
	case ir.ArgBool:
		return e.constant(b2f(a.Bool), dt), nil
	case ir.ArgValue:
		if t := a.Value.Type; t.Kind == ir.KindSymInt {
			return e.cast(e.index(t.Sym, ir.I64), dt), nil
		}
	}
	return nil, fmt.Errorf("expected a number, got %s", a.String())
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// computeType picks the body's type for a result of type out.
func (r pwRule) computeType(c *ops.Call, out ir.DType) (ir.DType, error) {
	switch r.compute {
	case computeExact:
		return out, nil
	case computeBool:
		return ir.Bool, nil
	case computeFloat:
		in, err := operandDType(c.Arg(strings.TrimPrefix(r.operands[0], "~")))
		if err != nil || !in.IsFloat() {
			return ir.F32, err
		}
		return opmath(in), nil
	case computePromoted:
		p, err := promoted(c, r.operands)
		if err != nil {
			return ir.Invalid, err
		}
		return arithType(p), nil
	}
	return arithType(opmath(out)), nil
}

// arithType computes bool arithmetic in int64: add is or, mul is and, and
// a cast back to bool gives PyTorch's answer.
func arithType(dt ir.DType) ir.DType {
	if dt == ir.Bool {
		return ir.I64
	}
	return dt
}

// promoted is torch.result_type over the operands that promote.
func promoted(c *ops.Call, names []string) (ir.DType, error) {
	var os []ops.Operand
	for _, n := range names {
		if strings.HasPrefix(n, "~") {
			continue
		}
		a := c.Arg(n)
		if a.Kind == ir.ArgNone {
			continue
		}
		dt, err := operandDType(a)
		if err != nil {
			return ir.Invalid, err
		}
		isTensor := a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor
		os = append(os, ops.Operand{DType: dt, Scalar: !isTensor,
			ZeroD: isTensor && a.Value.Type.Tensor.Rank() == 0})
	}
	return ops.ResultType(os)
}

// operandDType is a tensor's dtype, or the dtype a Python scalar promotes as.
func operandDType(a ir.Arg) (ir.DType, error) {
	if a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor {
		return a.Value.Type.Tensor.DType, nil
	}
	return ops.ScalarArgDType(a)
}

// Builders for the common shapes of body.

func fnRule(fn string, compute computeKind, operands ...string) pwRule {
	return pwRule{operands: operands, compute: compute, build: func(e *pwEnv, x []*Instr) (*Instr, error) {
		return e.fn(fn, x...), nil
	}}
}

func exprRule(compute computeKind, body func(e *pwEnv, x []*Instr) *Instr, operands ...string) pwRule {
	return pwRule{operands: operands, compute: compute, build: func(e *pwEnv, x []*Instr) (*Instr, error) {
		return body(e, x), nil
	}}
}

// identityRule passes its one operand through (copies, casts, fills).
func identityRule(operands ...string) pwRule {
	return exprRule(computeExact, func(_ *pwEnv, x []*Instr) *Instr { return x[0] }, operands...)
}

// constRule fills the result with a constant (factories).
func constRule(v float64) pwRule {
	return exprRule(computeExact, func(e *pwEnv, _ []*Instr) *Instr { return e.k(v) })
}
