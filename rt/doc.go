// Package rt is the scalar runtime shared by interp and the Go code kiln
// generates (codegen/golang):
// the scalar semantics of the loop IR (exact reduced-float conversions,
// PyTorch's integer and float arithmetic), tensors and .npy files, aligned
// allocation, a parallel-for, the extern kernels (mm, bmm, convolution) and
// the generated binary's main.
//
// It is a leaf: it imports only the standard library, and kiln copies this
// source into every module it writes (Sources, used by
// codegen/golang.WriteModule), so it is one source of truth for interp,
// kiln's tests and the generated programs alike.
package rt
