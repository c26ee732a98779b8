// Package limits is the one place that lists the bounds kiln puts on its
// input. Every bound is checked before the memory it guards is allocated,
// so that a short hostile file (a 40-byte `getitem = split[99999999]`, a
// 128-byte .npy header claiming terabytes) gets a positioned error instead
// of exhausting memory or time. The bounds are far above what real graphs
// need (the largest corpus line is ~2 KB, the largest rank 6); the ones a
// user could plausibly need more of are variables the CLI overrides with a
// flag (see docs/LIMITS.md, which lists them all).
package limits

import "fmt"

// Bounds on the text kiln reads.
var (
	// InputBytes bounds one input file (FX text or a trace). Flag: -max-input-bytes.
	InputBytes int64 = DefaultInputBytes
	// LineBytes bounds one logical line (physical lines joined while a
	// bracket is open). Past a few MB the expression parser's memory grows
	// many-fold; a real graph's signature with 10^5 weights passes it,
	// though. Flag: -max-line-bytes.
	LineBytes = DefaultLineBytes
)

// Bounds on the graph.
const (
	// Rank bounds a tensor's number of dimensions. PyTorch itself has no
	// small bound; kiln's shape rules are written for ranks a model uses.
	Rank = 1024
	// Results bounds the results of one node: `getitem = split[i]` with
	// i >= Results, and a trace line with more outputs, are rejected
	// before one value per index is made.
	Results = 1 << 18
	// Nodes bounds the nodes of one graph (the benchmarks go to 100k).
	Nodes = 1 << 22
)

// Bounds on what kiln says.
var (
	// RemarksPerPass bounds the remarks one pass keeps for one graph (0: no
	// bound). Past it a pass's remarks are counted, not formatted, and one
	// remark says how many there were: align has a remark per value, 177k
	// on a 100k-node graph, and every one of its facts is in its dump
	// anyway. Errors and warnings are never dropped. Flag: -max-remarks.
	RemarksPerPass = DefaultRemarksPerPass
)

// Bounds on the tensors `kiln run` allocates.
var (
	// TensorBytes bounds one tensor's storage in bytes (element count ×
	// item size), graph values and .npy inputs alike. Flag: kiln run -max-tensor-bytes.
	TensorBytes int64 = DefaultTensorBytes
	// RunBytes bounds the bytes of all the tensors one `kiln run` allocates
	// (0: no bound, the library default; the CLI sets it). Flag: kiln run -max-run-bytes.
	RunBytes int64
)

// Defaults of the bounds a flag can change (flags reset to these).
const (
	DefaultInputBytes  = 256 << 20
	DefaultLineBytes   = 4 << 20
	DefaultTensorBytes = 1 << 30
	DefaultRunBytes    = 3 << 30
	// DefaultRemarksPerPass is far above a real graph's remarks but for
	// the per-value ones (align's) of a graph of thousands of nodes.
	DefaultRemarksPerPass = 10000
)

// Error is a limit that an input went past. Callers position it.
type Error struct {
	What  string // "line length", "tensor rank", ...
	Got   int64
	Limit int64
	Flag  string // the flag that raises the limit, or ""
}

func (e *Error) Error() string {
	if e.Got < 0 {
		return fmt.Sprintf("%s is past kiln's limit of %d", e.What, e.Limit)
	}
	return fmt.Sprintf("%s %d is past kiln's limit of %d", e.What, e.Got, e.Limit)
}

// Hint says how to get past the limit, if one can.
func (e *Error) Hint() string {
	if e.Flag != "" {
		return fmt.Sprintf("if the input is right, raise the limit with %s (limits are listed in docs/LIMITS.md)", e.Flag)
	}
	return "kiln's limits are listed in docs/LIMITS.md; an input past this one is almost surely corrupt"
}

// Check returns an *Error when got > limit.
func Check(what string, got, limit int64, flag string) error {
	if got > limit {
		return &Error{What: what, Got: got, Limit: limit, Flag: flag}
	}
	return nil
}
