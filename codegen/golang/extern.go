package golang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// emitExtern calls the runtime's loop implementation of the library op:
// rt.Extern for one output, rt.ExternN for several (nil where the graph
// never reads an output, which the runtime then does not compute).
func (g *kernelGen) emitExtern() error {
	e := g.k.Extern
	outs := make([]string, len(e.Outs))
	var err error
	for i, o := range e.Outs {
		if outs[i], err = operandLit(o); err != nil {
			return err
		}
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		if args[i], err = operandLit(a); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(e.Params))
	for k := range e.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	params := make([]string, len(keys))
	for i, k := range keys {
		vals := make([]string, len(e.Params[k]))
		for j, v := range e.Params[k] {
			vals[j] = strconv.FormatInt(v, 10)
		}
		params[i] = fmt.Sprintf("%q: {%s}", k, strings.Join(vals, ", "))
	}
	if len(outs) == 1 && e.Outs[0].Buffer != nil {
		g.c.line("return rt.Extern(%q, %s, []*rt.Tensor{%s}, map[string][]int64{%s})",
			e.Op, outs[0], strings.Join(args, ", "), strings.Join(params, ", "))
		return nil
	}
	g.c.line("return rt.ExternN(%q, []*rt.Tensor{%s}, []*rt.Tensor{%s}, map[string][]int64{%s})",
		e.Op, strings.Join(outs, ", "), strings.Join(args, ", "), strings.Join(params, ", "))
	return nil
}

// operandLit is an extern operand as an rt.Tensor view of its buffer.
func operandLit(o lowering.Operand) (string, error) {
	if o.Buffer == nil {
		return "nil", nil
	}
	if _, err := info(o.Layout.DType); err != nil {
		return "", err
	}
	return fmt.Sprintf("&rt.Tensor{DType: %q, Shape: %s, Strides: %s, Offset: %s, Data: %s}",
		o.Layout.DType.Abbr(), exprList(o.Layout.Shape), exprList(o.Layout.Strides), int64Code(o.Layout.Offset), bufName(o.Buffer)), nil
}

// exprList is "[]int64{s0, 4}".
func exprList(es []sym.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = int64Code(e)
	}
	return "[]int64{" + strings.Join(parts, ", ") + "}"
}

// int64Code is an index expression typed int64 (constants stay bare).
func int64Code(e sym.Expr) string {
	if _, ok := e.Const(); ok {
		return e.Code()
	}
	return "int64(" + e.Code() + ")"
}
