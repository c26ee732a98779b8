package lowering

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Bounds checks of loaded indices. PyTorch (CPU) checks every index an op
// reads from a tensor and raises an IndexError naming it; the lowered
// kernel does the same with an OpCheck before the index reaches an
// access, so a bad index is an error, never a read of another element.
// The accepted ranges and messages are PyTorch's, declared once in
// ops.IndexBounds.

// boundsOf is the check the call's op makes of its indices (declared with
// the op, ops.IndexBoundsOf; interp raises the same errors).
func boundsOf(c *ops.Call) (ops.IndexBounds, error) {
	chk, ok := ops.IndexBoundsOf(c.Op.QualifiedName())
	if !ok {
		return ops.IndexBounds{}, fmt.Errorf("%s: no index bounds check is declared for it", c.Op.QualifiedName())
	}
	return chk, nil
}

// check emits the OpCheck of index value t (int64) against size along
// dim.
func (b *kbuilder) check(t *Instr, size sym.Expr, dim int, chk ops.IndexBounds) {
	msg := strings.ReplaceAll(chk.Msg, ops.DimPlaceholder, strconv.Itoa(dim))
	b.emit(&Instr{Op: OpCheck, DType: t.DType, Args: []*Instr{t}, Expr: size,
		Check: &Check{Neg: chk.Neg, Msg: msg}})
}
