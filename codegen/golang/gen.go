// Package golang emits Go from kiln's loop IR: one function per kernel,
// parallel over GOMAXPROCS chunks of its outer range with a tight,
// bounds-check-free innermost loop; a Run entry that binds symbols from
// input shapes, plans buffers and calls the kernels; and (WriteModule) a
// buildable module with a main that reads and writes .npy files, so tests
// can run generated code against interp.
package golang

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"io"
	"strings"

	"github.com/kiln-compiler/kiln/lowering"
)

// DefaultModule is the module path Generate assumes for the runtime
// (DefaultModule + "/rt").
const DefaultModule = "kilngen"

// Generate emits one gofmt-clean Go source file for package pkg holding
// p's kernels and its Run entry; it imports the runtime as
// DefaultModule/rt.
func Generate(p *lowering.Program, pkg string) ([]byte, error) {
	return GenerateWithRuntime(p, pkg, DefaultModule+"/rt")
}

// GenerateWithRuntime is Generate with the runtime's import path.
func GenerateWithRuntime(p *lowering.Program, pkg, rtImport string) ([]byte, error) {
	var out bytes.Buffer
	err := generate(&out, p, pkg, rtImport, nil, nil)
	return out.Bytes(), err
}

// GenerateTo writes what Generate returns to w as it is made, a window of
// kernels at a time, so that a large program's source is never held whole
// (on a 155k-node graph it is 49 MB, and formatting held four copies).
// kernelCode, when not nil, gets each kernel's formatted source (its
// comment and function, then a blank line) with its index in p.Kernels,
// in program order. Output may have been written when an error is
// returned.
func GenerateTo(w io.Writer, p *lowering.Program, pkg string, kernelCode func(i int, src string)) error {
	return generate(w, p, pkg, DefaultModule+"/rt", nil, kernelCode)
}

// File is one generated source file of a graph package.
type File struct {
	Name string // file name in the package folder
	Src  []byte
}

// GeneratePackage emits the files of graph package pkg: <pkg>.go (the
// kernels and Run, as GenerateWithRuntime) whose qualifying pointwise
// inner loops first call an 8-lane version, and then <pkg>_simd.go (built
// with GOEXPERIMENT=simd on amd64, package simd/archsimd) holding those
// versions and <pkg>_nosimd.go, its twin for every other build, in which
// the scalar loops run every element. Without such loops it is one file.
func GeneratePackage(p *lowering.Program, pkg, rtImport string) ([]File, error) {
	simd := &simdOut{}
	var src bytes.Buffer
	if err := generate(&src, p, pkg, rtImport, simd, nil); err != nil {
		return nil, err
	}
	files := []File{{Name: pkg + ".go", Src: src.Bytes()}}
	lanes, twin := simd.files(p.Name, pkg, rtImport)
	if lanes == nil {
		return files, nil
	}
	for _, f := range []File{{pkg + "_simd.go", lanes}, {pkg + "_nosimd.go", twin}} {
		formatted, err := format.Source(f.Src)
		if err != nil {
			return nil, fmt.Errorf("generate %s: %s does not parse: %w\n%s", p.Name, f.Name, err, f.Src)
		}
		files = append(files, File{Name: f.Name, Src: formatted})
	}
	return files, nil
}

// kernelWindow is how many kernels are emitted and formatted at a time:
// enough to keep every core busy, few enough that their texts (four
// copies while formatting) stay small.
const kernelWindow = 128

func generate(w io.Writer, p *lowering.Program, pkg, rtImport string, simd *simdOut, kernelCode func(int, string)) error {
	if !token.IsIdentifier(pkg) {
		return fmt.Errorf("generate %s: package name %q is not an identifier", p.Name, pkg)
	}
	for _, s := range p.Syms {
		if !token.IsIdentifier(s) || token.IsKeyword(s) {
			return fmt.Errorf("generate %s: symbol %q is not a Go identifier", p.Name, s)
		}
		if runNames[s] {
			return fmt.Errorf("generate %s: symbol %q would hide a name the generated code uses", p.Name, s)
		}
	}
	// Each top-level chunk (Run's, then one per kernel) is emitted unformatted
	// and gofmt'd on its own, in parallel: one go/format call over the
	// whole file was a third of compile's CPU on large graphs.
	run, err := emitRun(p)
	if err != nil {
		return fmt.Errorf("generate %s: %w", p.Name, err)
	}
	f := newFormatter()
	out := &fileWriter{w: w, header: func(w io.Writer, math bool) error { return writeHeader(w, p.Name, pkg, rtImport, math) }}
	if err := f.chunks(run); err != nil {
		return fmt.Errorf("generate %s: generated code does not parse: %w", p.Name, err)
	}
	for _, c := range run {
		out.add(c)
	}
	own := ownCode(p) // a kernel that shares another's code has none of its own
	for lo := 0; lo < len(own); lo += kernelWindow {
		window := own[lo:min(lo+kernelWindow, len(own))]
		ks := make([]*lowering.Kernel, len(window))
		for i, at := range window {
			ks[i] = p.Kernels[at]
		}
		chunks, err := emitKernels(p, ks, simd)
		if err != nil {
			return fmt.Errorf("generate %s: %w", p.Name, err)
		}
		if err := f.chunks(chunks); err != nil {
			return fmt.Errorf("generate %s: generated code does not parse: %w", p.Name, err)
		}
		for i, c := range chunks {
			if kernelCode != nil {
				kernelCode(window[i], c)
			}
			out.add(c)
		}
	}
	var helpers strings.Builder
	if out.floordiv {
		helpers.WriteString("func floordiv(a, b int64) int64 { return rt.FloorDiv(a, b) }\n")
	}
	if out.pymod {
		helpers.WriteString("func pymod(a, b int64) int64 { return rt.PyMod(a, b) }\n")
	}
	if helpers.Len() > 0 {
		h := []string{helpers.String()}
		if err := f.chunks(h); err != nil {
			return fmt.Errorf("generate %s: generated code does not parse: %w", p.Name, err)
		}
		out.add(h[0])
	}
	return out.finish()
}

// ownCode lists the indices of p's kernels that have code of their own.
func ownCode(p *lowering.Program) []int {
	own := make([]int, 0, len(p.Kernels))
	for i, k := range p.Kernels {
		if k.SharesCode == nil {
			own = append(own, i)
		}
	}
	return own
}

// emitKernels emits ks unformatted, one chunk each.
func emitKernels(p *lowering.Program, ks []*lowering.Kernel, simd *simdOut) ([]string, error) {
	chunks := make([]string, len(ks))
	errs := make([]error, len(ks))
	emit := func(i int) {
		body := &code{}
		stashed, scratch := stashRecomputed(ks[i].Coalesced())
		g := &kernelGen{c: body, prog: p, k: stashed, orig: ks[i], scratch: scratch, uses: countUses(stashed), simd: simd}
		g.simplify()
		errs[i] = g.emit()
		chunks[i] = body.String()
	}
	if simd == nil {
		// Kernels are emitted on every core: each reads only its kernel
		// (stashRecomputed rewrites a copy) and the program. SIMD loops
		// are numbered in program order, so those kernels go one by one.
		parallel(len(ks), emit)
	} else {
		for i := range ks {
			emit(i)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return chunks, nil
}
