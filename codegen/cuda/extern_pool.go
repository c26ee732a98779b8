package cuda

import (
	"fmt"
)

// adaptiveAvgPool2dBackward: _adaptive_avg_pool2d_backward(grad_output,
// self), one thread per input element (o0.. over self's shape), a gather
// over the output windows that cover it: rows i with floor(i·in/out) <=
// y < ceil((i+1)·in/out) are [floor(y·out/in), ceil((y+1)·out/in)), and
// likewise columns. Each adds grad_output / window height / window width,
// in the order ATen's CPU kernel scatters them (row-major windows).
func (x *xgen) adaptiveAvgPool2dBackward() error {
	e := x.k.Extern
	if len(e.Args) != 2 || e.Args[0].Buffer == nil {
		return fmt.Errorf("expects grad_output and self")
	}
	g, out := e.Args[0], x.out()
	r := len(out.Layout.Shape)
	if (r != 3 && r != 4) || len(g.Layout.Shape) != r {
		return fmt.Errorf("expects 3-d or 4-d grad_output and self, got ranks %d and %d", len(g.Layout.Shape), r)
	}
	acc := x.accType()
	ih, iw := out.Layout.Shape[r-2].Code(), out.Layout.Shape[r-1].Code()
	oh, ow := g.Layout.Shape[r-2].Code(), g.Layout.Shape[r-1].Code()
	y, xx := fmt.Sprintf("o%d", r-2), fmt.Sprintf("o%d", r-1)
	x.e.line("%s acc = 0;", acc)
	x.e.line("const long long ih = (%s), iw = (%s), oh = (%s), ow = (%s);", ih, iw, oh, ow)
	x.e.line("for (long long i = %s * oh / ih; i < ((%s + 1) * oh + ih - 1) / ih; ++i) {", y, y)
	x.e.in()
	x.e.line("const long long kh = ((i + 1) * ih + oh - 1) / oh - i * ih / oh;")
	x.e.line("for (long long j = %s * ow / iw; j < ((%s + 1) * ow + iw - 1) / iw; ++j) {", xx, xx)
	x.e.in()
	x.e.line("const long long kw = ((j + 1) * iw + ow - 1) / ow - j * iw / ow;")
	gi := append(vars("o", r-2), "i", "j")
	gv, err := x.operand(g, gi...)
	if err != nil {
		return err
	}
	x.e.line("acc = k_add(acc, k_truediv(k_truediv((%s)%s, (%s)kh), (%s)kw));", acc, gv, acc, acc)
	x.closeLoops(2)
	x.store()
	return nil
}

// upsampleBilinear2dBackward: upsample_bilinear2d_backward(grad_output),
// one thread per input element (o0..o3), a gather over the output
// elements whose corners land on it, in the order ATen's CPU kernel
// scatters them (output row-major, corners i00, i01, i10, i11), with its
// weights: the source index scale * (o + 0.5) - 0.5 and each acc += w * g
// as fused multiply-adds, as its AVX2 build computes them (rt's
// upsampleBilinear2dBackward).
func (x *xgen) upsampleBilinear2dBackward() error {
	e := x.k.Extern
	if len(e.Args) != 1 || e.Args[0].Buffer == nil {
		return fmt.Errorf("expects grad_output")
	}
	g, out := e.Args[0], x.out()
	osz, isz := e.Params["output_size"], e.Params["input_size"]
	if len(g.Layout.Shape) != 4 || len(out.Layout.Shape) != 4 || len(osz) != 2 || len(isz) != 4 {
		return fmt.Errorf("expects 4-d grad_output and output with 2 output and 4 input sizes")
	}
	align := len(e.Params["align_corners"]) > 0 && e.Params["align_corners"][0] != 0
	acc := x.accType()
	x.e.line("%s acc = 0;", acc)
	// tap computes index o's source indices i0, i1 and weights l0, l1
	// (compute_source_index_and_lambda) along a dim of in → out.
	tap := func(v string, in, o int64) {
		x.e.line("long long %s0 = o_%s, %s1 = o_%s; %s %sl0 = 1, %sl1 = 0;", v, v, v, v, acc, v, v)
		if in == o {
			return
		}
		var ratio, real string
		switch {
		case align && o > 1:
			ratio = fmt.Sprintf("(%s)%d / (%s)%d", acc, in-1, acc, o-1)
		case align:
			ratio = "0"
		default:
			ratio = fmt.Sprintf("(%s)%d / (%s)%d", acc, in, acc, o)
		}
		if align {
			real = fmt.Sprintf("(%s) * (%s)o_%s", ratio, acc, v)
		} else {
			real = fmt.Sprintf("km_fma((%s)(%s), (%s)o_%s + (%s)0.5, (%s)-0.5)", acc, ratio, acc, v, acc, acc)
		}
		x.e.line("{ %s r = %s; if (r < 0) r = 0;", acc, real)
		x.e.line("  %s0 = (long long)km_floor(r); if (%s0 > %d) %s0 = %d;", v, v, in-1, v, in-1)
		x.e.line("  %sl1 = r - (%s)%s0; if (%sl1 < 0) %sl1 = 0; if (%sl1 > 1) %sl1 = 1;", v, acc, v, v, v, v, v)
		x.e.line("  %s1 = %s0 + (%s0 < %d ? 1 : 0); %sl0 = (%s)1 - %sl1; }", v, v, v, in-1, v, acc, v)
	}
	x.e.line("for (long long o_h = 0; o_h < %d; ++o_h) {", osz[0])
	x.e.in()
	tap("h", isz[2], osz[0])
	x.e.line("if (h0 != o2 && h1 != o2) continue;")
	x.e.line("for (long long o_w = 0; o_w < %d; ++o_w) {", osz[1])
	x.e.in()
	tap("w", isz[3], osz[1])
	gv, err := x.operand(g, "o0", "o1", "o_h", "o_w")
	if err != nil {
		return err
	}
	x.e.line("const %s v = (%s)%s;", acc, acc, gv)
	for _, c := range [][2]string{{"0", "0"}, {"0", "1"}, {"1", "0"}, {"1", "1"}} {
		x.e.line("if (h%s == o2 && w%s == o3) acc = km_fma(hl%s * wl%s, v, acc);", c[0], c[1], c[0], c[1])
	}
	x.closeLoops(2)
	x.store()
	return nil
}
