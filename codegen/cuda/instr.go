package cuda

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// instr writes one scalar instruction of the current stage.
func (g *kgen) instr(s *lowering.Stage, in *lowering.Instr) error {
	if in.Op == lowering.OpStore {
		return g.store(in)
	}
	if in.Op == lowering.OpReduce || in.Op == lowering.OpScan {
		return g.combine(s, in)
	}
	if in.Op == lowering.OpCheck {
		return g.check(in)
	}
	d, err := info(in.DType)
	if err != nil {
		return err
	}
	var x string
	switch in.Op {
	case lowering.OpLoad:
		x, err = g.load(in)
	case lowering.OpConst:
		x, err = constExpr(in.Imm, in.DType)
	case lowering.OpIndex:
		x, err = castExpr("(long long)"+in.Expr.Code(), ir.I64, in.DType)
	case lowering.OpCall:
		x, err = g.call(in)
	case lowering.OpCast:
		if len(in.Args) != 1 {
			return fmt.Errorf("cast takes 1 argument, has %d", len(in.Args))
		}
		x, err = castExpr(g.ref(in.Args[0]), in.Args[0].DType, in.DType)
	case lowering.OpBitcast:
		x, err = g.bitcast(in)
	default:
		return fmt.Errorf("unknown opcode %s", in.Op)
	}
	if err != nil {
		return err
	}
	g.e.line("const %s tmp%d = %s;", cType(d.reg), in.ID, x)
	if g.cross[in] {
		g.e.line("%s = tmp%d;", g.lane("tmp"+itoa(in.ID)+"_x"), in.ID)
	}
	return nil
}

// load reads an access into its register; a vectorized access reads the
// lane array its vector load filled.
func (g *kgen) load(in *lowering.Instr) (string, error) {
	a := in.Access
	ad, err := info(a.DType)
	if err != nil {
		return "", err
	}
	raw := fmt.Sprintf("%s[%s]", g.ptr(a, true), a.Index.Code())
	if _, ok := g.plan.vec[a]; ok {
		raw = fmt.Sprintf("vl%d[v]", in.ID)
	}
	x := fmt.Sprintf("k_ld_%s(%s)", ad.suffix, raw)
	if in.DType != a.DType {
		return castExpr(x, a.DType, in.DType)
	}
	return x, nil
}

// ptr is a buffer seen as the access's element type (view.dtype reads the
// same bytes as another type).
func (g *kgen) ptr(a *lowering.Access, read bool) string {
	st := storageOf(a.DType)
	if a.DType == a.Buffer.DType || storageOf(a.Buffer.DType) == st {
		return bufParam(a.Buffer)
	}
	if read && !g.sig.written[a.Buffer] {
		return fmt.Sprintf("((const %s*)(const void*)%s)", st, bufParam(a.Buffer))
	}
	return fmt.Sprintf("((%s*)(void*)%s)", st, bufParam(a.Buffer))
}

func (g *kgen) store(in *lowering.Instr) error {
	a := in.Access
	if len(in.Args) != 1 || a == nil {
		return fmt.Errorf("store needs one argument and an access")
	}
	ad, err := info(a.DType)
	if err != nil {
		return err
	}
	x, err := castExpr(g.ref(in.Args[0]), in.Args[0].DType, a.DType)
	if err != nil {
		return err
	}
	if _, ok := g.plan.vec[a]; ok {
		g.e.line("vs%d[v] = k_st_%s(%s);", in.ID, ad.suffix, x)
		return nil
	}
	g.e.line("%s[%s] = k_st_%s(%s);", g.ptr(a, false), a.Index.Code(), ad.suffix, x)
	return nil
}

// lane0Index is an access's index at lane 0 of a vectorized turn.
func (g *kgen) lane0Index(a *lowering.Access) string {
	inner := g.plan.inner
	return a.Index.Subst(map[string]sym.Expr{inner: sym.Symbol(inner + "_0")}).Code()
}

// emitVectorLoads issues a stage's vector loads before its lane loop and
// spreads them into per-lane arrays of the element storage type.
func (g *kgen) emitVectorLoads(s *lowering.Stage) error {
	for _, in := range s.Body {
		va, ok := g.plan.vec[in.Access]
		if !ok || in.Op != lowering.OpLoad {
			continue
		}
		a := in.Access
		st := storageOf(a.DType)
		g.e.line("__attribute__((aligned(16))) %s vl%d[%d];", st, in.ID, g.plan.lanes)
		for c := 0; c < va.chunks; c++ {
			g.e.line("{ const %s t = *(const %s*)(const void*)(&%s[%s + %d]); __builtin_memcpy(&vl%d[%d], &t, %d); }",
				va.ctype, va.ctype, g.ptr(a, true), g.lane0Index(a), c*va.chunkElems, in.ID, c*va.chunkElems, va.chunkBytes)
		}
	}
	return nil
}

// vectorStores declares the lane arrays of a stage's vector stores.
func (g *kgen) vectorStores(s *lowering.Stage) []*lowering.Instr {
	var out []*lowering.Instr
	for _, in := range s.Body {
		if _, ok := g.plan.vec[in.Access]; ok && in.Op == lowering.OpStore {
			g.e.line("__attribute__((aligned(16))) %s vs%d[%d];", storageOf(in.Access.DType), in.ID, g.plan.lanes)
			out = append(out, in)
		}
	}
	return out
}

func (g *kgen) emitVectorStores(stores []*lowering.Instr) {
	for _, in := range stores {
		va, a := g.plan.vec[in.Access], in.Access
		for c := 0; c < va.chunks; c++ {
			g.e.line("{ %s t; __builtin_memcpy(&t, &vs%d[%d], %d); *(%s*)(void*)(&%s[%s + %d]) = t; }",
				va.ctype, in.ID, c*va.chunkElems, va.chunkBytes, va.ctype, g.ptr(a, false), g.lane0Index(a), c*va.chunkElems)
		}
	}
}

// call applies a scalar function (see fnClasses).
func (g *kgen) call(in *lowering.Instr) (string, error) {
	arity, ok := lowering.Fns[in.Fn]
	if !ok {
		return "", fmt.Errorf("unknown function %q", in.Fn)
	}
	if len(in.Args) != arity {
		return "", fmt.Errorf("%s takes %d arguments, has %d", in.Fn, arity, len(in.Args))
	}
	operand := in.Args[0]
	if in.Fn == "where" {
		operand = in.Args[1]
	}
	od, err := info(operand.DType)
	if err != nil {
		return "", err
	}
	if !fnClasses[in.Fn].has(od.reg) {
		return "", fmt.Errorf("function %s is not defined on %s operands", in.Fn, operand.DType.Abbr())
	}
	args := make([]string, len(in.Args))
	for i, a := range in.Args {
		args[i] = g.ref(a)
	}
	if in.Fn == "lshift" || in.Fn == "rshift" {
		args = append(args, itoa(in.DType.ItemSize()*8))
	}
	x := fmt.Sprintf("k_%s(%s)", in.Fn, strings.Join(args, ", "))
	if lowering.BoolFns[in.Fn] {
		return x, nil
	}
	return roundExpr(x, in.DType), nil
}

// bitcast reinterprets a value's bits as another dtype of the same size.
func (g *kgen) bitcast(in *lowering.Instr) (string, error) {
	if len(in.Args) != 1 {
		return "", fmt.Errorf("bitcast takes 1 argument, has %d", len(in.Args))
	}
	from, to := in.Args[0].DType, in.DType
	if from.ItemSize() != to.ItemSize() {
		return "", fmt.Errorf("bitcast from %s to %s changes the size", from.Abbr(), to.Abbr())
	}
	fd, err := info(from)
	if err != nil {
		return "", err
	}
	td, err := info(to)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("k_ld_%s(k_reinterpret<%s>(k_st_%s(%s)))", td.suffix, td.storage, fd.suffix, g.ref(in.Args[0])), nil
}
