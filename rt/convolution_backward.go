package rt

import (
	"fmt"
	"slices"
)

// convolutionBackward is aten::convolution_backward, direct or
// transposed: args are grad_output, input and weight; outs are
// grad_input, grad_weight and grad_bias, each nil when output_mask (or
// the graph) does not ask for it. Every output element is a gather (no
// scatter), so output planes run in parallel without atomics. grad_input
// sums (channels × taps, short) run in T as the forward's do; grad_weight
// and grad_bias sum over batch and positions (thousands of terms), which
// ATen sums blocked (oneDNN's GEMM) or cascaded (at::sum): a float32 chain
// there was 3.6x eager's error against float64 (corpus 101 backward's
// bias gradient), so they sum in float64 and round once.
func convolutionBackward[T float32 | float64](outs, args []*Tensor, params map[string][]int64) error {
	const op = "aten::convolution_backward"
	if len(args) != 3 || args[0] == nil || args[1] == nil || args[2] == nil || len(outs) != 3 {
		return fmt.Errorf("%s: want grad_output, input, weight and three outputs, got %d operands and %d outputs", op, len(args), len(outs))
	}
	gt, xt, wt := args[0], args[1], args[2]
	g, err := newConvGeom(gt, xt, wt, params)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	bias := g.o
	if isTransposed(params) {
		bias = g.c
	}
	for i, want := range [][]int64{xt.Shape, wt.Shape, {bias}} {
		if o := outs[i]; o != nil && !slices.Equal(o.Shape, want) {
			return fmt.Errorf("%s: output %d has shape %v, want %v", op, i, o.Shape, want)
		}
	}
	gv, err := loadAs[T](gt)
	if err != nil {
		return fmt.Errorf("%s: grad_output: %w", op, err)
	}
	if isTransposed(params) {
		return convTransposedBackward(g, outs, gv, xt, wt)
	}
	if o := outs[0]; o != nil {
		w, err := loadAs[T](wt)
		if err != nil {
			return fmt.Errorf("%s: weight: %w", op, err)
		}
		if err := storeAs(o, convGradInput(g, gv, w)); err != nil {
			return fmt.Errorf("%s: grad_input: %w", op, err)
		}
	}
	if o := outs[1]; o != nil {
		x, err := loadAs[T](xt)
		if err != nil {
			return fmt.Errorf("%s: input: %w", op, err)
		}
		if err := storeAs(o, convGradWeight(g, gv, x)); err != nil {
			return fmt.Errorf("%s: grad_weight: %w", op, err)
		}
	}
	if o := outs[2]; o != nil {
		if err := storeAs(o, convGradBias(g, gv)); err != nil {
			return fmt.Errorf("%s: grad_bias: %w", op, err)
		}
	}
	return nil
}

// convTransposedBackward is the backward of a transposed convolution
// whose direct adjoint has geometry g (grad_output is g's input, the
// transposed input g's output): grad_input is the direct convolution of
// grad_output, grad_weight the direct one's weight gradient with the
// roles of its input and output gradient swapped, grad_bias the sum of
// grad_output per channel.
func convTransposedBackward[T float32 | float64](g *convGeom, outs []*Tensor, gv []T, xt, wt *Tensor) error {
	const op = "aten::convolution_backward"
	if o := outs[0]; o != nil {
		w, err := loadAs[T](wt)
		if err != nil {
			return fmt.Errorf("%s: weight: %w", op, err)
		}
		_, _, outP := g.planes()
		gx := make([]T, g.n*g.o*outP)
		_ = ParallelFor(g.n*g.o, g.c/g.groups*g.k[0]*g.k[1]*g.k[2]*outP, func(lo, hi int64) error {
			for no := lo; no < hi; no++ {
				convPlane(g, gv, w, nil, gx[no*outP:(no+1)*outP], no/g.o, no%g.o)
			}
			return nil
		})
		if err := storeAs(o, gx); err != nil {
			return fmt.Errorf("%s: grad_input: %w", op, err)
		}
	}
	if o := outs[1]; o != nil {
		x, err := loadAs[T](xt)
		if err != nil {
			return fmt.Errorf("%s: input: %w", op, err)
		}
		if err := storeAs(o, convGradWeight(g, x, gv)); err != nil {
			return fmt.Errorf("%s: grad_weight: %w", op, err)
		}
	}
	if o := outs[2]; o != nil {
		inP, _, _ := g.planes()
		gb := make([]T, g.c)
		for c := range g.c {
			var acc float64 // as convGradBias: a long sum
			for n := range g.n {
				for _, v := range gv[(n*g.c+c)*inP:][:inP] {
					acc += float64(v)
				}
			}
			gb[c] = T(acc)
		}
		if err := storeAs(o, gb); err != nil {
			return fmt.Errorf("%s: grad_bias: %w", op, err)
		}
	}
	return nil
}

func (g *convGeom) planes() (in, k, out int64) {
	return g.in[0] * g.in[1] * g.in[2], g.k[0] * g.k[1] * g.k[2], g.out[0] * g.out[1] * g.out[2]
}

// tapOut is the output position whose window puts tap k on input
// position i along dim d (i = o·stride - pad + k·dilation), if any.
func (g *convGeom) tapOut(d int, i, k int64) (int64, bool) {
	t := i + g.pad[d] - k*g.dila[d]
	if t < 0 || t%g.stride[d] != 0 || t/g.stride[d] >= g.out[d] {
		return 0, false
	}
	return t / g.stride[d], true
}

// convGradInput: gx[n, c, i] = Σ over the group's output channels oc and
// the taps k that reach i from some output position o of g[n, oc, o] ·
// w[oc, c - c0, k].
func convGradInput[T float32 | float64](g *convGeom, gv, w []T) []T {
	inP, kP, outP := g.planes()
	cpg, opg := g.c/g.groups, g.o/g.groups
	gx := make([]T, g.n*g.c*inP)
	_ = ParallelFor(g.n*g.c, opg*kP*inP, func(lo, hi int64) error {
		for nc := lo; nc < hi; nc++ {
			n, c := nc/g.c, nc%g.c
			grp, ci := c/cpg, c%cpg
			dst := gx[nc*inP : (nc+1)*inP]
			p := 0
			for id := range g.in[0] {
				for ih := range g.in[1] {
					for iw := range g.in[2] {
						var acc T
						for kd := range g.k[0] {
							od, ok := g.tapOut(0, id, kd)
							if !ok {
								continue
							}
							for kh := range g.k[1] {
								oh, ok := g.tapOut(1, ih, kh)
								if !ok {
									continue
								}
								for kw := range g.k[2] {
									ow, ok := g.tapOut(2, iw, kw)
									if !ok {
										continue
									}
									o := (od*g.out[1]+oh)*g.out[2] + ow
									kk := (kd*g.k[1]+kh)*g.k[2] + kw
									for oc := grp * opg; oc < (grp+1)*opg; oc++ {
										acc += gv[(n*g.o+oc)*outP+o] * w[(oc*cpg+ci)*kP+kk]
									}
								}
							}
						}
						dst[p] = acc
						p++
					}
				}
			}
		}
		return nil
	})
	return gx
}

// convGradWeight: gw[oc, ci, k] = Σ over n and output positions o of
// g[n, oc, o] · x[n, c0 + ci, o·stride - pad + k·dilation].
func convGradWeight[T float32 | float64](g *convGeom, gv, x []T) []T {
	inP, kP, outP := g.planes()
	cpg, opg := g.c/g.groups, g.o/g.groups
	gw := make([]T, g.o*cpg*kP)
	_ = ParallelFor(g.o*cpg, g.n*outP*kP, func(lo, hi int64) error {
		for oci := lo; oci < hi; oci++ {
			oc, ci := oci/cpg, oci%cpg
			c := oc/opg*cpg + ci
			for kk := range kP {
				kd, kh, kw := kk/(g.k[1]*g.k[2]), kk/g.k[2]%g.k[1], kk%g.k[2]
				var acc float64
				for n := range g.n {
					gp, xp := gv[(n*g.o+oc)*outP:], x[(n*g.c+c)*inP:]
					for od := range g.out[0] {
						id := od*g.stride[0] - g.pad[0] + kd*g.dila[0]
						if id < 0 || id >= g.in[0] {
							continue
						}
						for oh := range g.out[1] {
							ih := oh*g.stride[1] - g.pad[1] + kh*g.dila[1]
							if ih < 0 || ih >= g.in[1] {
								continue
							}
							for ow := range g.out[2] {
								iw := ow*g.stride[2] - g.pad[2] + kw*g.dila[2]
								if iw < 0 || iw >= g.in[2] {
									continue
								}
								acc += float64(gp[(od*g.out[1]+oh)*g.out[2]+ow]) * float64(xp[(id*g.in[1]+ih)*g.in[2]+iw])
							}
						}
					}
				}
				gw[oci*kP+kk] = T(acc)
			}
		}
		return nil
	})
	return gw
}

// convGradBias: gb[oc] = Σ over n and output positions of g[n, oc, o].
func convGradBias[T float32 | float64](g *convGeom, gv []T) []T {
	_, _, outP := g.planes()
	gb := make([]T, g.o)
	for oc := range g.o {
		var acc float64
		for n := range g.n {
			for _, v := range gv[(n*g.o+oc)*outP:][:outP] {
				acc += float64(v)
			}
		}
		gb[oc] = T(acc)
	}
	return gb
}
