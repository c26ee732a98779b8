package interp

import (
	"fmt"
	"math"
)

// nll_loss2d (+backward) as nll_loss over the rows of [N·H·W, C], and the
// margin losses (multi_margin_loss, multilabel_margin_loss_forward) after
// aten/src/ATen/native/LossMultiMargin.cpp and LossMultiLabelMargin.cpp.

func init() {
	register(kNLLLoss2dForward, "nll_loss2d_forward")
	register(kNLLLoss2dBackward, "nll_loss2d_backward")
	register(kMultiMarginLoss, "multi_margin_loss")
	register(kMultilabelMarginLoss, "multilabel_margin_loss_forward")
	register(marginBackward(false), "multi_margin_loss_backward")
	register(marginBackward(true), "multilabel_margin_loss_backward")
}

// marginBackward spreads each hinge term that is active (positive) of a
// row: +d to the other class, -d to the target; scaled by grad_output
// (per row for reduction none) and 1/N for mean.
func marginBackward(multilabel bool) kernel {
	return func(c *call) ([]any, error) {
		g, self, err := c.tensor2("grad_output", "self")
		if err != nil {
			return nil, err
		}
		target, err := c.tensor("target")
		if err != nil {
			return nil, err
		}
		red, err := c.int("reduction")
		if err != nil {
			return nil, err
		}
		n, ch, err := marginRows(self)
		if err != nil {
			return nil, err
		}
		xs, ts, gs := contiguous(self).Floats(), contiguous(target).Ints(), contiguous(g).Floats()
		grad := make([]float64, n*ch)
		hinge := func(r, j, i int64, margin, scale float64, pow2 bool) {
			z := margin - xs[r*ch+j] + xs[r*ch+i]
			if z <= 0 {
				return
			}
			d := scale / float64(ch)
			if pow2 {
				d *= 2 * z
			}
			grad[r*ch+i] += d
			grad[r*ch+j] -= d
		}
		for r := int64(0); r < n; r++ {
			if multilabel {
				mark := make([]bool, ch)
				var labels []int64
				for _, t := range ts[r*ch : (r+1)*ch] {
					if t < 0 {
						break
					}
					labels = append(labels, t)
					mark[t] = true
				}
				for _, j := range labels {
					for i := int64(0); i < ch; i++ {
						if !mark[i] {
							hinge(r, j, i, 1, 1, false)
						}
					}
				}
				continue
			}
			p, err := c.float("p")
			if err != nil {
				return nil, err
			}
			margin, err := c.float("margin")
			if err != nil {
				return nil, err
			}
			w, err := c.optTensor("weight")
			if err != nil {
				return nil, err
			}
			y, scale := ts[r], 1.0
			if ws := floatsOrNil(w); ws != nil {
				scale = ws[y]
			}
			for i := int64(0); i < ch; i++ {
				if i != y {
					hinge(r, y, i, margin, scale, p == 2)
				}
			}
		}
		for k := range grad {
			gk := gs[0]
			if red == 0 && int64(len(gs)) == n {
				gk = gs[int64(k)/ch]
			}
			if red == 1 {
				gk /= float64(n)
			}
			grad[k] *= gk
		}
		return one(FromFloatsOn(self.DType, self.Shape, grad, self.Device()))
	}
}

// nll2dRows views self [N, C, H, W] as rows [N·H·W, C] and target
// [N, H, W] as [N·H·W].
func nll2dRows(c *call) (map[string]any, []int64, error) {
	self, target, err := c.tensor2("self", "target")
	if err != nil {
		return nil, nil, err
	}
	if self.Dim() != 4 || target.Dim() != 3 {
		return nil, nil, fmt.Errorf("only batches of spatial targets supported (3D tensors) but got targets of dimension: %d", target.Dim())
	}
	n, ch, h, w := self.Shape[0], self.Shape[1], self.Shape[2], self.Shape[3]
	if target.Shape[0] != n || target.Shape[1] != h || target.Shape[2] != w {
		return nil, nil, fmt.Errorf("size mismatch (got input: %v, target: %v)", self.Shape, target.Shape)
	}
	moved, err := permute(self, []int64{0, 2, 3, 1})
	if err != nil {
		return nil, nil, err
	}
	rows := contiguous(moved)
	rows = rows.view([]int64{n * h * w, ch}, []int64{ch, 1}, 0)
	flat := contiguous(target)
	flat = flat.view([]int64{n * h * w}, []int64{1}, 0)
	return map[string]any{"self": rows, "target": flat}, []int64{n, h, w}, nil
}

func kNLLLoss2dForward(c *call) ([]any, error) {
	over, nhw, err := nll2dRows(c)
	if err != nil {
		return nil, err
	}
	res, err := kNLLLossForward(c.with(over))
	if err != nil {
		return nil, err
	}
	if out := res[0].(*Tensor); out.Dim() == 1 {
		res[0] = out.view(nhw, ContiguousStrides(nhw), 0)
	}
	return res, nil
}

func kNLLLoss2dBackward(c *call) ([]any, error) {
	over, _, err := nll2dRows(c)
	if err != nil {
		return nil, err
	}
	g, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	if g.Dim() == 3 {
		g = contiguous(g)
		over["grad_output"] = g.view([]int64{g.Numel()}, []int64{1}, 0)
	}
	res, err := kNLLLossBackward(c.with(over))
	if err != nil {
		return nil, err
	}
	self, _ := c.tensor("self")
	n, ch, h, w := self.Shape[0], self.Shape[1], self.Shape[2], self.Shape[3]
	rows := res[0].(*Tensor).view([]int64{n, h, w, ch}, ContiguousStrides([]int64{n, h, w, ch}), 0)
	back, err := permute(rows, []int64{0, 3, 1, 2})
	if err != nil {
		return nil, err
	}
	return one(contiguous(back))
}

// marginRows reads self as [N, C] rows (a 1-d self is one row).
func marginRows(self *Tensor) (n, ch int64, err error) {
	switch self.Dim() {
	case 0:
		return 1, 1, nil
	case 1:
		return 1, self.Shape[0], nil
	case 2:
		return self.Shape[0], self.Shape[1], nil
	}
	return 0, 0, fmt.Errorf("Expected non-empty vector or matrix with optional 0-dim batch size, but got: %v", self.Shape)
}

// reduceRows applies reduction to per-row losses: [N] (a 0-dim tensor for
// a 1-d self) for none, their mean or sum otherwise.
func reduceRows(self *Tensor, losses []float64, red int64) *Tensor {
	dev := self.Device()
	if red == 0 {
		shape := []int64{int64(len(losses))}
		if self.Dim() <= 1 {
			shape = []int64{}
		}
		return FromFloatsOn(self.DType, shape, losses, dev)
	}
	s := 0.0
	for _, l := range losses {
		s += l
	}
	if red == 1 {
		s /= float64(len(losses))
	}
	return FromFloatsOn(self.DType, []int64{}, []float64{s}, dev)
}

// kMultiMarginLoss: row loss Σ_{i≠y} w[y]·max(0, margin - x[y] + x[i])^p / C.
func kMultiMarginLoss(c *call) ([]any, error) {
	self, target, err := c.tensor2("self", "target")
	if err != nil {
		return nil, err
	}
	w, err := c.optTensor("weight")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	margin, err := c.float("margin")
	if err != nil {
		return nil, err
	}
	red, err := c.int("reduction")
	if err != nil {
		return nil, err
	}
	if p != 1 && p != 2 {
		return nil, fmt.Errorf("only p == 1 and p == 2 supported")
	}
	n, ch, err := marginRows(self)
	if err != nil {
		return nil, err
	}
	xs, ys, ws := contiguous(self).Floats(), target.Ints(), floatsOrNil(w)
	if int64(len(ys)) != n {
		return nil, fmt.Errorf("inconsistent target size, expected %d but got %v", n, target.Shape)
	}
	losses := make([]float64, n)
	for r := int64(0); r < n; r++ {
		y := ys[r]
		if y < 0 || y >= ch {
			return nil, fmt.Errorf("target out of range")
		}
		row := xs[r*ch : (r+1)*ch]
		for i, x := range row {
			if int64(i) == y {
				continue
			}
			z := margin - row[y] + x
			if z > 0 {
				h := math.Pow(z, p)
				if ws != nil {
					h *= ws[y]
				}
				losses[r] += h
			}
		}
		losses[r] /= float64(ch)
	}
	return one(reduceRows(self, losses, red))
}

// kMultilabelMarginLoss: a row's targets are its target entries before the
// first -1; loss Σ_{j target} Σ_{i not target} max(0, 1 - (x[j] - x[i])) / C,
// and is_target marks the targets.
func kMultilabelMarginLoss(c *call) ([]any, error) {
	self, target, err := c.tensor2("self", "target")
	if err != nil {
		return nil, err
	}
	red, err := c.int("reduction")
	if err != nil {
		return nil, err
	}
	n, ch, err := marginRows(self)
	if err != nil {
		return nil, err
	}
	xs, ts := contiguous(self).Floats(), contiguous(target).Ints()
	if int64(len(ts)) != n*ch {
		return nil, fmt.Errorf("inconsistent target size: %v for input of size: %v", target.Shape, self.Shape)
	}
	losses, isTarget := make([]float64, n), make([]float64, n*ch)
	for r := int64(0); r < n; r++ {
		row, tr, mark := xs[r*ch:(r+1)*ch], ts[r*ch:(r+1)*ch], isTarget[r*ch:(r+1)*ch]
		var labels []int64
		for _, t := range tr {
			if t < 0 {
				break
			}
			if t >= ch {
				return nil, fmt.Errorf("target index out of range")
			}
			labels = append(labels, t)
			mark[t] = 1
		}
		for _, j := range labels {
			for i, x := range row {
				if mark[i] == 0 {
					if z := 1 - (row[j] - x); z > 0 {
						losses[r] += z
					}
				}
			}
		}
		losses[r] /= float64(ch)
	}
	return []any{reduceRows(self, losses, red), FromFloatsOn(self.DType, self.Shape, isTarget, self.Device())}, nil
}
