package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/kiln-compiler/kiln/ir"
)

// searchsorted/bucketize, isin, median/nanmedian of all elements, histc,
// logit_backward and masked_scatter_backward, after ATen's CPU kernels
// (Bucketization.cpp, TensorCompare.cpp, SummaryOps.cpp).

func init() {
	register(kSearchSorted, "searchsorted.Tensor", "searchsorted.Scalar", "bucketize.Tensor", "bucketize.Scalar")
	register(kIsin, "isin.Tensor_Tensor", "isin.Tensor_Scalar", "isin.Scalar_Tensor")
	register(kMedianAll, "median", "nanmedian")
	register(kHistc, "histc")
	register(kMaskedScatterBackward, "masked_scatter_backward")
	register(kSpaceTensors, "linspace.Tensor_Tensor", "linspace.Tensor_Scalar", "linspace.Scalar_Tensor",
		"logspace.Tensor_Tensor", "logspace.Tensor_Scalar", "logspace.Scalar_Tensor")
}

// asTensor reads a Tensor-or-Scalar parameter as a tensor (a Scalar is a
// 0-dim float64 or int64 tensor).
func asTensor(c *call, name string) (*Tensor, error) {
	v, err := c.val(name)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case *Tensor:
		return x, nil
	case int64:
		return FromInts(ir.I64, []int64{}, []int64{x}), nil
	case bool:
		return FromInts(ir.I64, []int64{}, []int64{int64(rtB2I(x))}), nil
	case float64:
		return FromFloats(ir.F64, []int64{}, []float64{x}), nil
	}
	return nil, fmt.Errorf("%s: expected a tensor or a number, got %s", name, describe(v))
}

func rtB2I(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lowerBound is ATen's cus_lower_bound (right: cus_upper_bound); the
// negated comparisons put NaN after every number.
func lowerBound(seq []float64, v float64, right bool) int64 {
	lo, hi := 0, len(seq)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if (!right && !(seq[mid] >= v)) || (right && !(seq[mid] > v)) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return int64(lo)
}

func kSearchSorted(c *call) ([]any, error) {
	bucketize := c.op.Schema.Name == "bucketize"
	seqName, valName := "sorted_sequence", "self"
	if bucketize {
		seqName = "boundaries"
	}
	seq, err := c.tensor(seqName)
	if err != nil {
		return nil, err
	}
	vals, err := asTensor(c, valName)
	if err != nil {
		return nil, err
	}
	right, err := c.bool("right")
	if err != nil {
		return nil, err
	}
	if c.has("side") && !c.isNone("side") {
		side, err := c.str("side")
		if err != nil {
			return nil, err
		}
		right = side == "right"
	}
	small, err := c.bool("out_int32")
	if err != nil {
		return nil, err
	}
	if seq.Dim() == 0 {
		return nil, fmt.Errorf("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor [] and input value tensor %v", vals.Shape)
	}
	ss := contiguous(seq).Floats()
	if c.has("sorter") && !c.isNone("sorter") {
		sorter, err := c.tensor("sorter")
		if err != nil {
			return nil, err
		}
		order := contiguous(sorter).Ints()
		sorted := make([]float64, len(ss))
		n := int64(seq.Shape[seq.Dim()-1])
		for i, k := range order {
			sorted[i] = ss[int64(i)/n*n+k]
		}
		ss = sorted
	}
	n := seq.Shape[seq.Dim()-1]
	vs := contiguous(vals).Floats()
	inner := int64(1)
	if vals.Dim() > 0 {
		inner = vals.Shape[vals.Dim()-1]
	}
	if seq.Dim() > 1 && (vals.Dim() != seq.Dim() || !equal64(vals.Shape[:vals.Dim()-1], seq.Shape[:seq.Dim()-1])) {
		return nil, fmt.Errorf("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor %v and input value tensor %v", seq.Shape, vals.Shape)
	}
	out := make([]int64, len(vs))
	for i, v := range vs {
		row := int64(0)
		if seq.Dim() > 1 {
			row = int64(i) / inner
		}
		out[i] = lowerBound(ss[row*n:(row+1)*n], v, right)
	}
	dt := ir.I64
	if small {
		dt = ir.I32
	}
	res := FromInts(dt, clone64(vals.Shape), out)
	res.Storage.Device = seq.Device()
	return one(res)
}

func kIsin(c *call) ([]any, error) {
	names := map[string][2]string{"Tensor_Tensor": {"elements", "test_elements"}, "Tensor_Scalar": {"elements", "test_element"},
		"Scalar_Tensor": {"element", "test_elements"}}[c.op.Schema.Overload]
	el, err := asTensor(c, names[0])
	if err != nil {
		return nil, err
	}
	test, err := asTensor(c, names[1])
	if err != nil {
		return nil, err
	}
	invert, err := c.bool("invert")
	if err != nil {
		return nil, err
	}
	set := map[float64]bool{}
	for _, v := range test.Floats() {
		set[v] = true
	}
	es := contiguous(el).Floats()
	out := make([]int64, len(es))
	for i, v := range es {
		if set[v] != invert {
			out[i] = 1
		}
	}
	return one(FromInts(ir.Bool, clone64(el.Shape), out))
}

// kMedianAll is the lower median of every element (NaN when one is NaN;
// nanmedian skips NaNs).
func kMedianAll(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if self.Numel() == 0 {
		return nil, fmt.Errorf("%s() input tensor cannot be empty", c.op.Schema.Name)
	}
	var xs []float64
	nan := false
	for _, v := range self.Floats() {
		if v != v {
			nan = true
			if c.op.Schema.Name == "nanmedian" {
				continue
			}
		}
		xs = append(xs, v)
	}
	res := math.NaN()
	if !(nan && c.op.Schema.Name == "median") && len(xs) > 0 {
		sort.Float64s(xs)
		res = xs[(len(xs)-1)/2]
	}
	return one(FromFloatsOn(self.DType, []int64{}, []float64{res}, self.Device()))
}

// kHistc counts elements in bins equal-width bins over [min, max] (the
// data's range when min == max, widened by 1 each way if still equal).
func kHistc(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	bins, err := c.int("bins")
	if err != nil {
		return nil, err
	}
	lo, err := c.float("min")
	if err != nil {
		return nil, err
	}
	hi, err := c.float("max")
	if err != nil {
		return nil, err
	}
	xs := self.Floats()
	if lo == hi && len(xs) > 0 {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, x := range xs {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	out := make([]float64, bins)
	for _, x := range xs {
		if x < lo || x > hi || x != x {
			continue
		}
		b := int64((x - lo) * float64(bins) / (hi - lo))
		if b == bins {
			b--
		}
		out[b]++
	}
	return one(FromFloatsOn(self.DType, []int64{bins}, out, self.Device()))
}

// kMaskedScatterBackward gathers grad_output where mask (broadcast to it)
// is set, in order, into the front of a zero tensor of sizes.
func kMaskedScatterBackward(c *call) ([]any, error) {
	g, mask, err := c.tensor2("grad_output", "mask")
	if err != nil {
		return nil, err
	}
	sizes, err := c.intList("sizes")
	if err != nil {
		return nil, err
	}
	shape, err := broadcastShapes(g.Shape, mask.Shape)
	if err != nil {
		return nil, err
	}
	gs := contiguous(expandTo(g, shape)).Floats()
	ms := contiguous(expandTo(mask, shape)).Ints()
	out := make([]float64, numel(sizes))
	k := 0
	for i, m := range ms {
		if m != 0 && k < len(out) {
			out[k] = gs[i]
			k++
		}
	}
	return one(FromFloatsOn(g.DType, sizes, out, g.Device()))
}

// kSpaceTensors is linspace/logspace with 0-dim tensor endpoints: their
// items are the Scalars.
func kSpaceTensors(c *call) ([]any, error) {
	over := map[string]any{}
	for _, name := range []string{"start", "end"} {
		v, err := c.val(name)
		if err != nil {
			return nil, err
		}
		if t, ok := v.(*Tensor); ok {
			if t.Dim() != 0 {
				return nil, fmt.Errorf("%s only supports 0-dimensional %s tensor, but got tensor with %d dimension(s).", c.op.Schema.Name, name, t.Dim())
			}
			over[name] = tensorItem(t)
		}
	}
	return kSpace(c.with(over))
}
