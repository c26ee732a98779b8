package ir

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/kiln-compiler/kiln/limits"
)

// CheckTensorType rejects a tensor type no PyTorch tensor can have, with
// PyTorch's message where it has one: a negative size, sizes whose storage
// size overflows int64, a size or stride that divides by zero. It also
// applies kiln's rank limit. ParseType calls it on every annotation, so a
// corrupt shape stops at the line that spells it.
func CheckTensorType(t *TensorType) error {
	if err := limits.Check("tensor rank", int64(len(t.Shape)), limits.Rank, ""); err != nil {
		return err
	}
	for i, s := range t.Shape {
		if c, ok := s.Const(); ok && c < 0 {
			return fmt.Errorf("Trying to create tensor with negative dimension %d: %s", c, sizesText(t))
		}
		if s.DividesByZero() {
			return fmt.Errorf("size %d (%s): integer division or modulo by zero", i, s)
		}
	}
	for i, s := range t.Strides {
		if s.DividesByZero() {
			return fmt.Errorf("stride %d (%s): integer division or modulo by zero", i, s)
		}
	}
	if storageOverflows(t) {
		return fmt.Errorf("Storage size calculation overflowed with sizes=%s", sizesText(t))
	}
	return nil
}

// storageOverflows reports whether the constant sizes' numel times the item
// size passes int64 (PyTorch's computeStorageNbytes check). A symbolic size
// leaves the question open.
func storageOverflows(t *TensorType) bool {
	n := uint64(max(t.DType.ItemSize(), 1))
	for _, s := range t.Shape {
		c, ok := s.Const()
		if !ok {
			return false
		}
		if c == 0 {
			return false
		}
		hi, lo := bits.Mul64(n, uint64(c))
		if hi != 0 || lo > 1<<63-1 {
			return true
		}
		n = lo
	}
	return false
}

func sizesText(t *TensorType) string {
	parts := make([]string, len(t.Shape))
	for i, s := range t.Shape {
		parts[i] = s.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
