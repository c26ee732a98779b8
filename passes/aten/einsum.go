package aten

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// expandEinsum is at::einsum of two operands as Linear.cpp's
// sumproduct_pair computes it: labels only one operand has and the output
// lacks are summed out first; then each operand is permuted to (batch,
// own, contracted) labels and reshaped to 3-D, one bmm contracts them, and
// the product is reshaped and permuted to the output's labels (a
// contiguous copy when that permutation is not the identity, as einsum's
// result is a fresh tensor). Equations with an ellipsis, a label repeated
// within an operand, or other than two operands are refused.
func expandEinsum(r *rewriter, n *ir.Node, c *ops.Call) error {
	eq, list := c.Arg("equation"), c.Arg("tensors")
	if eq.Kind != ir.ArgString || len(list.Elems) != 2 || !isTensor(list.Elems[0]) || !isTensor(list.Elems[1]) {
		return fmt.Errorf("einsum is expanded for two operands only")
	}
	spec := strings.ReplaceAll(eq.Str, " ", "")
	lhs, out, ok := strings.Cut(spec, "->")
	ab := strings.Split(lhs, ",")
	if !ok || strings.Contains(spec, "...") || len(ab) != 2 || repeats(ab[0]) || repeats(ab[1]) || repeats(out) {
		return fmt.Errorf("einsum %q is not expanded (an explicit output, no ellipsis, no repeated label)", eq.Str)
	}
	a, err := r.sumOnly(list.Elems[0], ab[0], ab[1]+out)
	if err != nil {
		return err
	}
	b, err := r.sumOnly(list.Elems[1], ab[1], ab[0]+out)
	if err != nil {
		return err
	}
	la, lb := keep(ab[0], ab[1]+out), keep(ab[1], ab[0]+out)
	batch := pick(out, func(l rune) bool { return strings.ContainsRune(la, l) && strings.ContainsRune(lb, l) })
	left := pick(out, func(l rune) bool { return strings.ContainsRune(la, l) && !strings.ContainsRune(lb, l) })
	right := pick(out, func(l rune) bool { return strings.ContainsRune(lb, l) && !strings.ContainsRune(la, l) })
	contract := pick(la, func(l rune) bool { return strings.ContainsRune(lb, l) && !strings.ContainsRune(out, l) })
	size := map[rune]int64{}
	for _, x := range []struct {
		v  *ir.Value
		ls string
	}{{a, la}, {b, lb}} {
		sizes, err := sizeArgs(x.v.Type.Tensor.Shape)
		if err != nil {
			return err
		}
		for i, l := range x.ls {
			size[l] = max(size[l], sizes[i].Int)
		}
	}
	a3, err := r.toBMM(a, la, batch, left, contract, size)
	if err != nil {
		return err
	}
	b3, err := r.toBMM(b, lb, batch, contract, right, size)
	if err != nil {
		return err
	}
	prod, err := r.call("aten::bmm.default", []ir.Arg{ir.ValueArg(a3), ir.ValueArg(b3)})
	if err != nil {
		return err
	}
	v, err := r.reshapeTo(prod, batch+left+right, size)
	if err != nil {
		return err
	}
	if v, err = r.permuteTo(v, batch+left+right, out); err != nil {
		return err
	}
	if batch+left+right != out {
		v, err = r.call("aten::clone.default", []ir.Arg{ir.ValueArg(v)}, ir.Kwarg{Name: "memory_format", Arg: ir.EnumArg("contiguous_format")})
		if err != nil {
			return err
		}
	}
	return r.finish(n, v)
}

// sumOnly sums out of x (labels ls) the labels no other operand and not
// the output has.
func (r *rewriter) sumOnly(x ir.Arg, ls, others string) (*ir.Value, error) {
	var dims []ir.Arg
	for i, l := range ls {
		if !strings.ContainsRune(others, l) {
			dims = append(dims, ir.IntArg(int64(i)))
		}
	}
	if len(dims) == 0 {
		return x.Value, nil
	}
	return r.call("aten::sum.dim_IntList", []ir.Arg{x, ir.ListArg(dims...)})
}

// toBMM permutes x (labels ls) to the labels g1+g2+g3 and reshapes it to
// one dim per group.
func (r *rewriter) toBMM(x *ir.Value, ls, g1, g2, g3 string, size map[rune]int64) (*ir.Value, error) {
	v, err := r.permuteTo(x, ls, g1+g2+g3)
	if err != nil {
		return nil, err
	}
	dims := make([]ir.Arg, 3)
	for i, g := range []string{g1, g2, g3} {
		n := int64(1)
		for _, l := range g {
			n *= size[l]
		}
		dims[i] = ir.IntArg(n)
	}
	return r.call("aten::reshape.default", []ir.Arg{ir.ValueArg(v), ir.ListArg(dims...)})
}

// permuteTo permutes x from labels from to labels to (nothing when equal).
func (r *rewriter) permuteTo(x *ir.Value, from, to string) (*ir.Value, error) {
	if from == to {
		return x, nil
	}
	perm := make([]ir.Arg, len(to))
	for i, l := range to {
		perm[i] = ir.IntArg(int64(strings.IndexRune(from, l)))
	}
	return r.call("aten::permute.default", []ir.Arg{ir.ValueArg(x), ir.ListArg(perm...)})
}

// reshapeTo reshapes x to one dim per label of ls.
func (r *rewriter) reshapeTo(x *ir.Value, ls string, size map[rune]int64) (*ir.Value, error) {
	dims := make([]ir.Arg, 0, len(ls))
	for _, l := range ls {
		dims = append(dims, ir.IntArg(size[l]))
	}
	return r.call("aten::reshape.default", []ir.Arg{ir.ValueArg(x), ir.ListArg(dims...)})
}

// keep is ls without the labels others lacks (those sumOnly summed out).
func keep(ls, others string) string {
	return pick(ls, func(l rune) bool { return strings.ContainsRune(others, l) })
}

func pick(ls string, f func(rune) bool) string {
	var b strings.Builder
	for _, l := range ls {
		if f(l) {
			b.WriteRune(l)
		}
	}
	return b.String()
}

// repeats reports a label written twice (a diagonal).
func repeats(ls string) bool {
	rs := []rune(ls)
	slices.Sort(rs)
	return len(slices.Compact(rs)) != len(ls)
}
