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
// The accepted range is PyTorch's: negative indices count from the end
// only for advanced indexing (index.Tensor, index_put) and index_fill.
// The messages are interp's (kernels_index.go), which follow PyTorch's.

const (
	msgOutOfBounds = "index " + CheckIndex + " is out of bounds for dimension {dim} with size " + CheckSize
	msgOutOfRange  = "index out of range in self"
	msgIndexCopy   = "index_copy_(): " + msgOutOfBounds
)

// boundsCheck is one op's check: the range it accepts and its message
// ({dim} is filled in at lowering, CheckIndex and CheckSize when it fails).
type boundsCheck struct {
	neg bool
	msg string
}

// indexBounds lists every op whose lowering reads indices from a tensor.
var indexBounds = func() map[string]boundsCheck {
	t := map[string]boundsCheck{
		"embedding":             {msg: msgOutOfRange},
		"index_select":          {msg: msgOutOfRange},
		"gather":                {msg: msgOutOfBounds},
		"index.Tensor":          {neg: true, msg: msgOutOfBounds},
		"_unsafe_index.Tensor":  {neg: true, msg: msgOutOfBounds},
		"index_put":             {neg: true, msg: msgOutOfBounds},
		"_unsafe_index_put":     {neg: true, msg: msgOutOfBounds},
		"scatter.src":           {msg: msgOutOfBounds},
		"scatter.value":         {msg: msgOutOfBounds},
		"scatter.reduce":        {msg: msgOutOfBounds},
		"scatter_add":           {msg: msgOutOfBounds},
		"scatter_reduce.two":    {msg: msgOutOfBounds},
		"index_add":             {msg: msgOutOfRange},
		"index_copy":            {msg: msgIndexCopy},
		"index_fill.int_Scalar": {neg: true, msg: msgOutOfBounds},
	}
	out := make(map[string]boundsCheck, len(t))
	for name, c := range t {
		out[qualify(name)] = c
	}
	return out
}()

// boundsOf is the check the call's op makes of its indices.
func boundsOf(c *ops.Call) (boundsCheck, error) {
	chk, ok := indexBounds[c.Op.QualifiedName()]
	if !ok {
		return boundsCheck{}, fmt.Errorf("%s: no index bounds check is declared for it", c.Op.QualifiedName())
	}
	return chk, nil
}

// check emits the OpCheck of index value t (int64) against size along
// dim.
func (b *kbuilder) check(t *Instr, size sym.Expr, dim int, chk boundsCheck) {
	msg := strings.ReplaceAll(chk.msg, "{dim}", strconv.Itoa(dim))
	b.emit(&Instr{Op: OpCheck, DType: t.DType, Args: []*Instr{t}, Expr: size,
		Check: &Check{Neg: chk.neg, Msg: msg}})
}
