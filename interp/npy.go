package interp

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/rt"
)

// NumPy .npy files (format versions 1.0 to 3.0). Dtypes numpy has no name
// for are written as raw bits in an unsigned container of the same size
// (bfloat16 as '<u2', the float8 family as '|u1'); the kiln dtype is
// recorded in the folder's manifest.json, and a reader that expects such a
// dtype accepts the container.
//
// The header format, the descr table and the manifest writer are the Go
// runtime's (codegen/golang/rt/npy.go); interp adds on top of them what rt
// has no need for: complex64/complex128 ('<c8', '<c16') and reading
// big-endian files (byte-swapping them). npy_rt_test.go checks that the two
// write the same bytes, and read each other's files, for every dtype both
// know.

// complexDescr holds the descrs of the dtypes rt has no name for.
var complexDescr = map[ir.DType]string{ir.C64: "<c8", ir.C128: "<c16"}

// NPYDescr is the descr numpy writes for dt, and whether it names dt
// itself (false: a same-size unsigned container of dt's bits).
func NPYDescr(dt ir.DType) (descr string, exact bool) {
	if d, ok := complexDescr[dt]; ok {
		return d, true
	}
	if d, exact, err := rt.NPYDescr(dt.Abbr()); err == nil {
		return d, exact
	}
	switch dt.ItemSize() {
	case 1:
		return "|u1", false
	case 2:
		return "<u2", false
	case 4:
		return "<u4", false
	}
	return "<u8", false
}

// npyDType is the dtype whose exact descr (byte-order mark stripped) is
// base, ir.Invalid when none.
func npyDType(base string) ir.DType {
	for _, dt := range []ir.DType{ir.C64, ir.C128} {
		if complexDescr[dt][1:] == base {
			return dt
		}
	}
	if dt, ok := ir.DTypeFromAbbr(rt.NPYDType(base)); ok {
		return dt
	}
	return ir.Invalid
}

// WriteNPY writes t's elements in row-major order as a version 1.0 .npy.
func WriteNPY(w io.Writer, t *Tensor) error {
	descr, _ := NPYDescr(t.DType)
	bw := bufio.NewWriter(w)
	bw.Write(rt.NPYHeader(descr, t.Shape))
	bw.Write(contiguousBytes(t))
	return bw.Flush()
}

// contiguousBytes copies t's elements, row-major, bit for bit.
func contiguousBytes(t *Tensor) []byte {
	sz := int64(t.DType.ItemSize())
	if t.IsContiguous() {
		start := t.Offset * sz
		return t.Storage.Data[start : start+t.Numel()*sz]
	}
	out := make([]byte, 0, t.Numel()*sz)
	for _, o := range t.offsets() {
		out = append(out, t.Storage.Data[o*sz:(o+1)*sz]...)
	}
	return out
}

// ReadNPY reads a .npy file. When want is a valid dtype the file must hold
// it, or (for dtypes numpy cannot name) its same-size unsigned container;
// ir.Invalid takes the file's own dtype.
func ReadNPY(r io.Reader, want ir.DType) (*Tensor, error) {
	var fileSize int64 = -1
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			fileSize = st.Size()
		}
	}
	br := bufio.NewReader(r)
	descr, shape, fortran, err := rt.ReadNPYHeader(br)
	if err != nil {
		return nil, err
	}
	base, swap := rt.SplitNPYDescr(descr)
	dt := npyDType(base)
	if dt == ir.Invalid {
		return nil, fmt.Errorf(".npy dtype %q is not supported", descr)
	}
	if want.Valid() && want != dt {
		container, exact := NPYDescr(want)
		if exact || container[1:] != base {
			return nil, fmt.Errorf("file holds %s, the graph expects %s", dt.Name(), want.Name())
		}
		dt = want
	}
	// A 128-byte header can claim terabytes: check the claim against the
	// file before allocating for it.
	if need, ok := safeNumel(shape); ok && fileSize >= 0 && need*int64(dt.ItemSize()) > fileSize {
		return nil, fmt.Errorf("short .npy data: the header's shape %v needs %d bytes, the whole file has %d", shape, need*int64(dt.ItemSize()), fileSize)
	}
	return readNPYData(br, dt, shape, fortran, swap)
}

func readNPYData(r io.Reader, dt ir.DType, shape []int64, fortran, swap bool) (*Tensor, error) {
	t, err := Empty(dt, shape, rt.NPYStrides(shape, fortran), ir.CPU)
	if err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(r, t.Storage.Data); err != nil {
		return nil, fmt.Errorf("short .npy data: %w", err)
	}
	if swap {
		sz := dt.ItemSize()
		if dt.IsComplex() {
			sz /= 2
		}
		d := t.Storage.Data
		for i := 0; i+sz <= len(d); i += sz {
			for a, b := i, i+sz-1; a < b; a, b = a+1, b-1 {
				d[a], d[b] = d[b], d[a]
			}
		}
	}
	return t, nil
}

// SaveNPY writes t to path.
func SaveNPY(path string, t *Tensor) error {
	return rt.CreateWith(path, func(w io.Writer) error { return WriteNPY(w, t) })
}

// LoadNPY reads path (see ReadNPY for want).
func LoadNPY(path string, want ir.DType) (*Tensor, error) {
	return rt.OpenWith(path, func(r io.Reader) (*Tensor, error) { return ReadNPY(r, want) })
}

// ManifestEntry describes one file of an output folder: file, the graph
// value it holds, kind ("output" or "mutated-input"), kiln dtype spelling,
// shape, npy descr, whether the file holds raw bits of dtype in an
// unsigned container, or a non-tensor output's value.
type ManifestEntry = rt.ManifestEntry

// WriteDir writes one .npy per tensor and a manifest.json listing every
// entry (scalars are recorded in the manifest only).
func WriteDir(dir string, entries []ManifestEntry, values []any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range entries {
		t, ok := values[i].(*Tensor)
		if !ok {
			entries[i].File = ""
			entries[i].Value = values[i]
			if f, isFloat := values[i].(float64); isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
				entries[i].Value = ir.PyFloat(f) // JSON has no nan or inf
			}
			continue
		}
		descr, exact := NPYDescr(t.DType)
		entries[i].DType, entries[i].Shape, entries[i].NPY, entries[i].Bits = t.DType.Abbr(), t.Shape, descr, !exact
		if err := SaveNPY(filepath.Join(dir, entries[i].File), t); err != nil {
			return err
		}
	}
	return rt.WriteManifest(dir, entries)
}
