package rt

import "fmt"

// convGeom is a convolution's geometry with spatial dims padded to three
// (a 1-D or 2-D convolution is a 3-D one with leading size-1 dims).
type convGeom struct {
	n, c, o, groups   int64
	in, k, out        [3]int64
	stride, pad, dila [3]int64
}

// convParam reads a per-spatial-dim parameter (one value means all dims).
func convParam(params map[string][]int64, name string, dims int, def int64) ([3]int64, error) {
	v := [3]int64{def, def, def}
	p, ok := params[name]
	switch {
	case !ok || len(p) == 0:
	case len(p) == 1:
		for i := 3 - dims; i < 3; i++ {
			v[i] = p[0]
		}
	case len(p) == dims:
		copy(v[3-dims:], p)
	default:
		return v, fmt.Errorf("aten::convolution: %s has %d values for %d spatial dims", name, len(p), dims)
	}
	return v, nil
}

func isTransposed(params map[string][]int64) bool {
	t := params["transposed"]
	return len(t) > 0 && t[0] != 0
}

// newConvGeom is the geometry of the direct convolution from x to out
// with weight w. A transposed convolution from x to out is the adjoint of
// the direct one from out to x, with the same weight ([in, out/groups,
// k...] is a direct weight [out, in/groups, k...] read the other way), so
// for transposed=True it returns that direct convolution's geometry:
// callers run its grad_input walk as the transposed forward, and so on.
func newConvGeom(out, x, w *Tensor, params map[string][]int64) (*convGeom, error) {
	dims := len(x.Shape) - 2
	if dims < 1 || dims > 3 || len(w.Shape) != dims+2 || len(out.Shape) != dims+2 {
		return nil, fmt.Errorf("aten::convolution: unsupported ranks: input %v, weight %v", x.Shape, w.Shape)
	}
	if isTransposed(params) {
		op, err := convParam(params, "output_padding", dims, 0)
		if err != nil {
			return nil, err
		}
		st, _ := convParam(params, "stride", dims, 1)
		dl, _ := convParam(params, "dilation", dims, 1)
		for d := range 3 {
			if op[d] < 0 || (op[d] >= st[d] && op[d] >= dl[d]) {
				return nil, fmt.Errorf("aten::convolution: output padding %v must be smaller than either stride %v or dilation %v", op, st, dl)
			}
		}
		out, x = x, out
	}
	g := &convGeom{n: x.Shape[0], c: x.Shape[1], o: w.Shape[0], groups: 1}
	if p := params["groups"]; len(p) > 0 {
		g.groups = p[0]
	}
	var err error
	if g.stride, err = convParam(params, "stride", dims, 1); err != nil {
		return nil, err
	}
	if g.pad, err = convParam(params, "padding", dims, 0); err != nil {
		return nil, err
	}
	if g.dila, err = convParam(params, "dilation", dims, 1); err != nil {
		return nil, err
	}
	g.in, g.k, g.out = [3]int64{1, 1, 1}, [3]int64{1, 1, 1}, [3]int64{1, 1, 1}
	copy(g.in[3-dims:], x.Shape[2:])
	copy(g.k[3-dims:], w.Shape[2:])
	copy(g.out[3-dims:], out.Shape[2:])
	if g.groups <= 0 || g.c%g.groups != 0 || g.o%g.groups != 0 || w.Shape[1] != g.c/g.groups {
		return nil, fmt.Errorf("aten::convolution: input %v and weight %v do not fit groups=%d", x.Shape, w.Shape, g.groups)
	}
	if out.Shape[0] != g.n || out.Shape[1] != g.o {
		return nil, fmt.Errorf("aten::convolution: output shape %v does not fit input %v and weight %v", out.Shape, x.Shape, w.Shape)
	}
	for d := range 3 {
		if g.stride[d] <= 0 || g.dila[d] <= 0 || g.pad[d] < 0 {
			return nil, fmt.Errorf("aten::convolution: stride %v, dilation %v and padding %v must be positive, positive and non-negative", g.stride, g.dila, g.pad)
		}
		want := (g.in[d]+2*g.pad[d]-g.dila[d]*(g.k[d]-1)-1)/g.stride[d] + 1
		if g.out[d] != want {
			return nil, fmt.Errorf("aten::convolution: output shape %v does not fit input %v and weight %v", out.Shape, x.Shape, w.Shape)
		}
	}
	return g, nil
}

// convolution is a convolution with bias: a direct one computes each
// output plane as a gather (convPlane); a transposed one is its direct
// adjoint's grad_input walk, plus the bias.
func convolution[T float32 | float64](out *Tensor, args []*Tensor, params map[string][]int64) error {
	if len(args) < 2 {
		return fmt.Errorf("aten::convolution: want input and weight, got %d operands", len(args))
	}
	g, err := newConvGeom(out, args[0], args[1], params)
	if err != nil {
		return err
	}
	x, err := loadAs[T](args[0])
	if err != nil {
		return fmt.Errorf("aten::convolution: input: %w", err)
	}
	w, err := loadAs[T](args[1])
	if err != nil {
		return fmt.Errorf("aten::convolution: weight: %w", err)
	}
	var bias []T
	if len(args) > 2 && args[2] != nil && args[2].Data != nil {
		if bias, err = loadAs[T](args[2]); err != nil {
			return fmt.Errorf("aten::convolution: bias: %w", err)
		}
		if int64(len(bias)) != out.Shape[1] {
			return fmt.Errorf("aten::convolution: bias has %d elements, want %d", len(bias), out.Shape[1])
		}
	}
	if isTransposed(params) {
		return storeAs(out, convTransposed(g, x, w, bias))
	}
	outPlane := g.out[0] * g.out[1] * g.out[2]
	ov := make([]T, g.n*g.o*outPlane)
	cost := g.c / g.groups * g.k[0] * g.k[1] * g.k[2] * outPlane
	err = ParallelFor(g.n*g.o, cost, func(lo, hi int64) error {
		for no := lo; no < hi; no++ {
			convPlane(g, x, w, bias, ov[no*outPlane:(no+1)*outPlane], no/g.o, no%g.o)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return storeAs(out, ov)
}

// convPlane computes output channel oc of batch element n.
func convPlane[T float32 | float64](g *convGeom, x, w, bias []T, dst []T, n, oc int64) {
	cpg := g.c / g.groups
	c0 := oc / (g.o / g.groups) * cpg
	inPlane := g.in[0] * g.in[1] * g.in[2]
	kPlane := g.k[0] * g.k[1] * g.k[2]
	i := 0
	for od := range g.out[0] {
		for oh := range g.out[1] {
			for ow := range g.out[2] {
				var acc T
				if bias != nil {
					acc = bias[oc]
				}
				for ci := range cpg {
					xp := x[(n*g.c+c0+ci)*inPlane:]
					wp := w[(oc*cpg+ci)*kPlane:]
					for kd := range g.k[0] {
						id := od*g.stride[0] - g.pad[0] + kd*g.dila[0]
						if id < 0 || id >= g.in[0] {
							continue
						}
						for kh := range g.k[1] {
							ih := oh*g.stride[1] - g.pad[1] + kh*g.dila[1]
							if ih < 0 || ih >= g.in[1] {
								continue
							}
							for kw := range g.k[2] {
								iw := ow*g.stride[2] - g.pad[2] + kw*g.dila[2]
								if iw < 0 || iw >= g.in[2] {
									continue
								}
								acc += xp[(id*g.in[1]+ih)*g.in[2]+iw] * wp[(kd*g.k[1]+kh)*g.k[2]+kw]
							}
						}
					}
				}
				dst[i] = acc
				i++
			}
		}
	}
}

// convTransposed is the transposed convolution whose direct adjoint has
// geometry g (out is g's input): grad_input's walk over x, plus the bias.
func convTransposed[T float32 | float64](g *convGeom, x, w, bias []T) []T {
	y := convGradInput(g, x, w)
	if bias != nil {
		inP, _, _ := g.planes()
		for i := range y {
			y[i] += bias[int64(i)/inP%g.c]
		}
	}
	return y
}
