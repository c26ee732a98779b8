package interp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// NumPy .npy files (format versions 1.0 to 3.0). Dtypes numpy has no name
// for are written as raw bits in an unsigned container of the same size
// (bfloat16 as '<u2', the float8 family as '|u1'); the kiln dtype is
// recorded in the folder's manifest.json, and a reader that expects such a
// dtype accepts the container.
//
// The Go runtime (codegen/golang/rt/npy.go) reads and writes the same
// files for the dtypes generated code handles, but this is not a copy to
// fold into it: interp also writes and reads complex64/complex128
// ('<c8', '<c16'), which rt has no dtype for, and reads big-endian files
// (byte-swapping them), which rt rejects; rt exposes whole-file functions
// only, no header step interp could share. npy_rt_test.go checks that the
// two write the same bytes, and read each other's files, for every dtype
// both know.

var npyDescr = map[ir.DType]string{
	ir.Bool: "|b1", ir.U8: "|u1", ir.I8: "|i1", ir.I16: "<i2", ir.U16: "<u2", ir.I32: "<i4", ir.U32: "<u4",
	ir.I64: "<i8", ir.U64: "<u8", ir.F16: "<f2", ir.F32: "<f4", ir.F64: "<f8", ir.C64: "<c8", ir.C128: "<c16",
}

// NPYDescr is the descr numpy writes for dt, and whether it names dt
// itself (false: a same-size unsigned container of dt's bits).
func NPYDescr(dt ir.DType) (descr string, exact bool) {
	if d, ok := npyDescr[dt]; ok {
		return d, true
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

// WriteNPY writes t's elements in row-major order as a version 1.0 .npy.
func WriteNPY(w io.Writer, t *Tensor) error {
	descr, _ := NPYDescr(t.DType)
	shape := make([]string, len(t.Shape))
	for i, s := range t.Shape {
		shape[i] = strconv.FormatInt(s, 10)
	}
	tuple := strings.Join(shape, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	total := 10 + len(header) + 1
	header += strings.Repeat(" ", (64-total%64)%64) + "\n"
	bw := bufio.NewWriter(w)
	bw.WriteString("\x93NUMPY\x01\x00")
	bw.WriteByte(byte(len(header)))
	bw.WriteByte(byte(len(header) >> 8))
	bw.WriteString(header)
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

var (
	descrRe   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	fortranRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// ReadNPY reads a .npy file. When want is a valid dtype the file must hold
// it, or (for dtypes numpy cannot name) its same-size unsigned container;
// ir.Invalid takes the file's own dtype.
func ReadNPY(r io.Reader, want ir.DType) (*Tensor, error) {
	br := bufio.NewReader(r)
	var pre [8]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return nil, errors.New("not a .npy file (bad magic)")
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, err
		}
		hlen = int(b[0]) | int(b[1])<<8
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, err
		}
		hlen = int(le.Uint32(b[:]))
	default:
		return nil, fmt.Errorf("unsupported .npy version %d.%d", pre[6], pre[7])
	}
	if hlen > 1<<20 {
		return nil, errors.New(".npy header too large")
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(br, header); err != nil {
		return nil, err
	}
	dt, shape, fortran, swap, err := parseNPYHeader(string(header), want)
	if err != nil {
		return nil, err
	}
	return readNPYData(br, dt, shape, fortran, swap)
}

func parseNPYHeader(h string, want ir.DType) (dt ir.DType, shape []int64, fortran, swap bool, err error) {
	dm, fm, sm := descrRe.FindStringSubmatch(h), fortranRe.FindStringSubmatch(h), shapeRe.FindStringSubmatch(h)
	if dm == nil || fm == nil || sm == nil {
		return 0, nil, false, false, fmt.Errorf("malformed .npy header %q", strings.TrimSpace(h))
	}
	descr := dm[1]
	if len(descr) > 1 && descr[0] == '>' && descr[1:] != "u1" && descr[1:] != "i1" && descr[1:] != "b1" {
		swap = true
	}
	if len(descr) > 1 && (descr[0] == '>' || descr[0] == '=' || descr[0] == '<' || descr[0] == '|') {
		descr = descr[1:]
	}
	dt = ir.Invalid
	for d, s := range npyDescr {
		if s[1:] == descr {
			dt = d
		}
	}
	if dt == ir.Invalid {
		return 0, nil, false, false, fmt.Errorf(".npy dtype %q is not supported", dm[1])
	}
	if want.Valid() && want != dt {
		container, exact := NPYDescr(want)
		if exact || container[1:] != descr {
			return 0, nil, false, false, fmt.Errorf("file holds %s, the graph expects %s", dt.Name(), want.Name())
		}
		dt = want
	}
	for _, part := range strings.Split(sm[1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, perr := strconv.ParseInt(strings.TrimSuffix(part, "L"), 10, 64)
		if perr != nil || n < 0 {
			return 0, nil, false, false, fmt.Errorf("malformed .npy shape (%s)", sm[1])
		}
		shape = append(shape, n)
	}
	return dt, shape, fm[1] == "True", swap, nil
}

func readNPYData(r io.Reader, dt ir.DType, shape []int64, fortran, swap bool) (*Tensor, error) {
	var strides []int64
	if fortran {
		strides = make([]int64, len(shape))
		acc := int64(1)
		for i := range shape {
			strides[i] = acc
			acc *= max(shape[i], 1)
		}
	}
	t, err := Empty(dt, shape, strides, ir.CPU)
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
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteNPY(f, t); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoadNPY reads path (see ReadNPY for want).
func LoadNPY(path string, want ir.DType) (*Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ReadNPY(f, want)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ManifestEntry describes one file of an output folder.
type ManifestEntry struct {
	File  string  `json:"file"`
	Name  string  `json:"name"`            // the graph value it holds
	Kind  string  `json:"kind"`            // "output" or "mutated-input"
	DType string  `json:"dtype,omitempty"` // kiln spelling: bf16, f32, ...
	Shape []int64 `json:"shape,omitempty"`
	NPY   string  `json:"npy_descr,omitempty"`
	Bits  bool    `json:"bits,omitempty"`  // the file holds raw bits of dtype in an unsigned container
	Value any     `json:"value,omitempty"` // a non-tensor output (int, float, bool)
}

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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), buf.Bytes(), 0o644)
}
