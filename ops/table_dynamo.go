package ops

import (
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Composite ops that Dynamo-level graphs reach through their Python
// spellings (torch.nn.functional.dropout, x.T, x.unflatten, F.cross_entropy;
// see torchapi.go). AOT graphs never hold them: AOTAutograd decomposes them
// first. Their rules follow the composite implementations in ATen.
func dynamoTable() []Entry {
	self := selfEntry(KindOther)
	view := func(schema string, rule selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: KindView, Meta: selfRule(rule)}
	}
	return []Entry{
		self("dropout(Tensor input, float p, bool train) -> Tensor", ruleDropout),
		// torch.min(a, b) and torch.max(a, b): the elementwise minimum and maximum
		{Schema: "min.other(Tensor self, Tensor other) -> Tensor", Kind: KindPointwise, Meta: pw(PromoteDefault, "self", "other")},
		{Schema: "max.other(Tensor self, Tensor other) -> Tensor", Kind: KindPointwise, Meta: pw(PromoteDefault, "self", "other")},
		{Schema: "einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", Kind: KindOther, Meta: metaEinsum},
		view("numpy_T(Tensor(a) self) -> Tensor(a)", ruleNumpyT),
		view("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)", ruleUnflatten),
		self("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor", ruleLossOverClassDim),
		self("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor", ruleGroupNorm),
		self("one_hot(Tensor self, int num_classes=-1) -> Tensor", ruleOneHot),
		self("nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor", ruleLossOverClassDim),
	}
}

// ruleDropout: Dropout.cpp returns input itself when p is 0 or train is
// false, and otherwise input * (empty_like(input).bernoulli_(1-p) / (1-p)),
// a fresh tensor in input's layout.
func ruleDropout(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	p, err := c.Float("p")
	if err != nil {
		return nil, err
	}
	train, err := c.Bool("train")
	if err != nil {
		return nil, err
	}
	if p == 0 || !train {
		return ruleAlias(env, c, self)
	}
	return env.Fresh(self.DType, copyExprs(self.Shape), env.PreserveStrides(self), self.Device), nil
}

// ruleNumpyT is x.T: the dims reversed (a view).
func ruleNumpyT(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	n := self.Rank()
	shape, strides := make([]sym.Expr, n), make([]sym.Expr, n)
	src := stridesOf(self)
	for i := range n {
		shape[i], strides[i] = self.Shape[n-1-i], src[n-1-i]
	}
	return viewOf(self, shape, strides, offsetOf(self)), nil
}

// ruleUnflatten is unflatten(dim, sizes): a view of self with dim split
// into sizes (one of them may be -1).
func ruleUnflatten(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if self.Rank() == 0 { // maybe_wrap_dim without wrap_scalar
		return nil, Errorf(CodeDim, "", "Dimension specified as %s but tensor has no dimensions", c.Arg("dim"))
	}
	dim, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	sizes, err := c.SymInts("sizes")
	if err != nil {
		return nil, err
	}
	if len(sizes) == 0 {
		return nil, Errorf(CodeShape, "", "unflatten: sizes must be non-empty")
	}
	inner, err := env.InferSize(sizes, self.Shape[dim])
	if err != nil {
		return nil, err
	}
	shape := append(append(copyExprs(self.Shape[:dim]), inner...), self.Shape[dim+1:]...)
	strides := copyExprs(stridesOf(self)[:dim])
	step := stridesOf(self)[dim]
	split := make([]sym.Expr, len(inner))
	for i := len(inner) - 1; i >= 0; i-- {
		split[i] = step
		step = sym.Mul(step, inner[i])
	}
	strides = append(append(strides, split...), stridesOf(self)[dim+1:]...)
	return viewOf(self, shape, strides, offsetOf(self)), nil
}

// ruleLossOverClassDim: a loss over class dim 1 (LossNLL.cpp's
// cross_entropy_loss and nll_loss_nd): reduction none keeps the other dims,
// mean and sum give a 0-d tensor.
func ruleLossOverClassDim(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	red, err := c.Int("reduction")
	if err != nil {
		return nil, err
	}
	var shape []sym.Expr
	if red == 0 && self.Rank() >= 2 {
		shape = append(copyExprs(self.Shape[:1]), self.Shape[2:]...)
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaEinsum follows Linear.cpp's einsum: one operand without summed
// labels is a view (a permutation, with a diagonal for a repeated label);
// anything else is computed into a fresh contiguous tensor (PyTorch 2.15's
// fake tensors, e.g. "ij,jk->ki" gives strides [3, 1]).
func metaEinsum(env *Env, c *Call) ([]ir.Type, error) {
	eq := c.Arg("equation")
	if eq.Kind != ir.ArgString {
		return nil, Errorf(CodeUnsupported, "", "einsum(): equation must be a string")
	}
	ts, err := c.Tensors("tensors")
	if err != nil {
		return nil, err
	}
	spec, err := parseEinsum(eq.Str, ts)
	if err != nil {
		return nil, err
	}
	shape := append(copyExprs(spec.ellipsis), make([]sym.Expr, len(spec.out))...)
	for i, l := range spec.out {
		shape[len(spec.ellipsis)+i] = spec.size[l]
	}
	if len(ts) != 1 || spec.sums {
		return one(env.Contiguous(ts[0].DType, shape, ts[0].Device)), nil
	}
	in, src := ts[0], stridesOf(ts[0])
	strides := make([]sym.Expr, 0, len(shape))
	at := max(spec.ellAt[0], 0)
	strides = append(strides, src[at:at+len(spec.ellipsis)]...)
	for _, l := range spec.out {
		s := sym.Expr(c0)
		for d, x := range spec.labels[0] {
			if x == l {
				s = sym.Add(s, src[spec.dimOf(0, d)])
			}
		}
		strides = append(strides, s)
	}
	return one(viewOf(in, shape, strides, offsetOf(in))), nil
}

// einsumSpec is a parsed equation: labels per operand (ellipsis removed),
// the output labels, each label's size, the ellipsis dims' broadcast sizes.
type einsumSpec struct {
	labels   [][]byte
	out      []byte
	size     map[byte]sym.Expr
	ellipsis []sym.Expr
	ellAt    []int // per operand: the label index the ellipsis stands at, -1 without one
	ellN     []int // per operand: how many dims its ellipsis covers
	sums     bool  // a label is summed away
}

// dimOf maps operand k's d-th label to its tensor dim, skipping the
// ellipsis dims.
func (s *einsumSpec) dimOf(k, d int) int {
	if s.ellAt[k] >= 0 && d >= s.ellAt[k] {
		return d + s.ellN[k]
	}
	return d
}

func parseEinsum(eq string, ts []*ir.TensorType) (*einsumSpec, error) {
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	ops := strings.Split(lhs, ",")
	if len(ops) != len(ts) {
		return nil, Errorf(CodeShape, "", "einsum(): %s operands were provided than specified in the equation",
			map[bool]string{true: "fewer", false: "more"}[len(ts) < len(ops)])
	}
	s := &einsumSpec{size: map[byte]sym.Expr{}, ellAt: make([]int, len(ts)), ellN: make([]int, len(ts))}
	count := map[byte]int{}
	for k, op := range ops {
		before, after, ell := strings.Cut(op, "...")
		labels := []byte(before + after)
		s.labels = append(s.labels, labels)
		s.ellAt[k], s.ellN[k] = -1, 0
		nell := ts[k].Rank() - len(labels)
		switch {
		case !ell && nell != 0:
			return nil, Errorf(CodeShape, "", "einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d and no ellipsis was given",
				len(labels), ts[k].Rank(), k)
		case nell < 0:
			return nil, Errorf(CodeShape, "", "einsum(): the number of subscripts in the equation (%d) is more than the number of dimensions (%d) for operand %d",
				len(labels), ts[k].Rank(), k)
		}
		if ell {
			s.ellAt[k], s.ellN[k] = len(before), nell
			for i := 0; i < nell; i++ { // broadcast right-aligned
				d := ts[k].Shape[len(before)+i]
				j := len(s.ellipsis) - nell + i
				for j < 0 {
					s.ellipsis = append([]sym.Expr{c1}, s.ellipsis...)
					j++
				}
				if isOne(s.ellipsis[j]) {
					s.ellipsis[j] = d
				}
			}
		}
		for d, l := range labels {
			count[l]++
			if old, ok := s.size[l]; !ok || isOne(old) {
				s.size[l] = ts[k].Shape[s.dimOf(k, d)]
			}
		}
	}
	if explicit {
		s.out = []byte(strings.ReplaceAll(rhs, "...", ""))
	} else {
		for l := range count {
			if count[l] == 1 {
				s.out = append(s.out, l)
			}
		}
		slices.Sort(s.out)
	}
	outSet := map[byte]bool{}
	for _, l := range s.out {
		outSet[l] = true
	}
	for l := range count {
		if !outSet[l] {
			s.sums = true
		}
	}
	return s, nil
}

// ruleGroupNorm: native_group_norm's output, in the memory format the
// input suggests.
func ruleGroupNorm(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if self.Rank() < 2 {
		return nil, Errorf(CodeShape, "", "Expected at least 2 dimensions for input tensor but received %d", self.Rank())
	}
	return env.layoutLike(self.DType, copyExprs(self.Shape), self), nil
}

// ruleOneHot: int64 self.shape + [num_classes]; without num_classes the
// size is self.max() + 1, a data-dependent .item() (PyTorch's fake tensors
// raise DataDependentOutputException on aten._local_scalar_dense).
func ruleOneHot(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	n, err := c.SymInt("num_classes")
	if err != nil {
		return nil, err
	}
	if v, ok := n.Const(); ok && v == -1 {
		return nil, Errorf(CodeDataDep, hintCaptureScalar, "data dependent operator: aten._local_scalar_dense.default (one_hot without num_classes reads self.max())")
	}
	return env.Contiguous(ir.I64, append(copyExprs(self.Shape), n), self.Device), nil
}
