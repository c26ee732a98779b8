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
