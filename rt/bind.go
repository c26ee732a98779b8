package rt

import (
	"fmt"
	"slices"
	"unsafe"
)

// Env binds a program's size symbols: from the caller's values and from
// the sizes of input tensors whose dims are bare symbols.
type Env struct {
	vals map[string]int64
	from map[string]string // where each value came from, for messages
}

// NewEnv starts from the caller's symbol values.
func NewEnv(syms map[string]int64) *Env {
	e := &Env{vals: map[string]int64{}, from: map[string]string{}}
	for k, v := range syms {
		e.vals[k], e.from[k] = v, "the given symbols"
	}
	if _, ok := e.vals[SeedSym]; !ok { // random ops draw with seed 0 unless told
		e.vals[SeedSym], e.from[SeedSym] = 0, "the default seed"
	}
	return e
}

// Bind checks an input tensor's dtype and rank and binds every dim whose
// size is a bare symbol (dims[i] != "") to the tensor's size.
func (e *Env) Bind(name string, t *Tensor, dtype string, dims []string) error {
	if t == nil {
		return fmt.Errorf("input %s: no tensor given", name)
	}
	if t.DType != dtype {
		return fmt.Errorf("input %s: dtype %s, the graph expects %s", name, t.DType, dtype)
	}
	if len(t.Shape) != len(dims) {
		return fmt.Errorf("input %s: %d dims, the graph expects %d", name, len(t.Shape), len(dims))
	}
	for i, s := range dims {
		if s == "" {
			continue
		}
		size := t.Shape[i]
		if v, ok := e.vals[s]; ok && v != size {
			return fmt.Errorf("input %s: dim %d has size %d, but %s = %d from %s", name, i, size, s, v, e.from[s])
		}
		e.vals[s], e.from[s] = size, "input "+name
	}
	return nil
}

// Get is a symbol's value.
func (e *Env) Get(s string) (int64, error) {
	v, ok := e.vals[s]
	if !ok {
		return 0, fmt.Errorf("symbol %s is not bound by any input shape; give it a value (-sym %s=N)", s, s)
	}
	return v, nil
}

// CheckShape compares an input's shape with the one the graph computes.
func CheckShape(name string, t *Tensor, shape []int64) error {
	if !slices.Equal(t.Shape, shape) {
		return fmt.Errorf("input %s: shape %v, the graph expects %v", name, t.Shape, shape)
	}
	return nil
}

// InputBuffer gives an input's buffer of n bytes. When zeroCopy is allowed
// (the buffer holds exactly this contiguous input) and t's data is
// contiguous and 64-byte aligned, the buffer is t's own memory, so writes
// land in t (copied = false). Otherwise the elements are copied into a
// fresh buffer at the layout (strides, offset).
func InputBuffer(t *Tensor, n int64, strides []int64, off int64, zeroCopy bool) (buf []byte, copied bool, err error) {
	if zeroCopy && t.IsContiguous() && int64(len(t.Data)) >= n && n > 0 &&
		uintptr(unsafe.Pointer(&t.Data[0]))%64 == 0 {
		return t.Data[:n], false, nil
	}
	buf = Alloc(n)
	return buf, true, Scatter(buf, t, strides, off)
}

// Wrap prefixes err with what failed ("kernel7", "input x"). Generated Run
// steps call it once per kernel call and input, and it is not inlined: a
// call site of fmt.Errorf is a slice of boxed arguments built in place,
// and over a 10k-node graph's Run that was a fifth of go build's CPU and
// 15% of its memory.
//
//go:noinline
func Wrap(what string, err error) error { return fmt.Errorf("%s: %w", what, err) }
