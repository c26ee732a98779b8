package rt

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// NumPy .npy files as interp writes them: version 1.0, row-major; dtypes
// numpy has no name for (bf16, the float8 family) are raw bits in a
// same-size unsigned container, accepted when the caller expects them.
// The header steps (NPYHeader, ReadNPYHeader, SplitNPYDescr, NPYDType,
// NPYStrides) are exported for interp, which adds complex dtypes and
// big-endian reading on top of them.

// WriteNPY writes t's elements in row-major order.
func WriteNPY(w io.Writer, t *Tensor) error {
	descr, _, err := NPYDescr(t.DType)
	if err != nil {
		return err
	}
	data, err := t.Bytes()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(NPYHeader(descr, t.Shape))
	bw.Write(data)
	return bw.Flush()
}

// NPYHeader is the preamble of a version 1.0, row-major .npy file: magic,
// version, header length and the header dict, padded so that the data
// starts at a multiple of 64 bytes.
func NPYHeader(descr string, shape []int64) []byte {
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = strconv.FormatInt(s, 10)
	}
	tuple := strings.Join(dims, ", ")
	if len(dims) == 1 {
		tuple += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	total := 10 + len(header) + 1
	header += strings.Repeat(" ", (64-total%64)%64) + "\n"
	out := make([]byte, 0, 10+len(header))
	out = append(out, "\x93NUMPY\x01\x00"...)
	out = append(out, byte(len(header)), byte(len(header)>>8))
	return append(out, header...)
}

var (
	descrRe   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	fortranRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// ReadNPYHeader reads the preamble of a .npy file (versions 1.0 to 3.0),
// leaving r at the first data byte. descr is as the file spells it,
// byte-order mark included (see SplitNPYDescr).
func ReadNPYHeader(r io.Reader) (descr string, shape []int64, fortran bool, err error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return "", nil, false, errors.New("not a .npy file (bad magic)")
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", nil, false, err
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", nil, false, err
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return "", nil, false, fmt.Errorf("unsupported .npy version %d.%d", pre[6], pre[7])
	}
	if hlen > 1<<20 {
		return "", nil, false, errors.New(".npy header too large")
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(r, header); err != nil {
		return "", nil, false, err
	}
	return parseHeader(string(header))
}

func parseHeader(h string) (descr string, shape []int64, fortran bool, err error) {
	dm, fm, sm := descrRe.FindStringSubmatch(h), fortranRe.FindStringSubmatch(h), shapeRe.FindStringSubmatch(h)
	if dm == nil || fm == nil || sm == nil {
		return "", nil, false, fmt.Errorf("malformed .npy header %q", strings.TrimSpace(h))
	}
	for _, part := range strings.Split(sm[1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, perr := strconv.ParseInt(strings.TrimSuffix(part, "L"), 10, 64)
		if perr != nil || n < 0 {
			return "", nil, false, fmt.Errorf("malformed .npy shape (%s)", sm[1])
		}
		shape = append(shape, n)
	}
	return dm[1], shape, fm[1] == "True", nil
}

// SplitNPYDescr strips descr's byte-order mark; bigEndian reports a '>'
// mark on a multi-byte type (the one case whose bytes need swapping).
func SplitNPYDescr(descr string) (base string, bigEndian bool) {
	if len(descr) < 2 || !strings.ContainsRune("<>=|", rune(descr[0])) {
		return descr, false
	}
	base = descr[1:]
	return base, descr[0] == '>' && base != "u1" && base != "i1" && base != "b1"
}

// NPYDType is the dtype whose .npy descr, byte-order mark stripped, is
// base and names it exactly ("" when rt has none).
func NPYDType(base string) string {
	dt := ""
	for _, name := range sortedDTypes() {
		if info := dtypes[name]; info.exact && info.descr[1:] == base {
			dt = name
		}
	}
	return dt
}

// NPYStrides is the element strides of a Fortran-order array of shape;
// nil (row-major) when fortran is false.
func NPYStrides(shape []int64, fortran bool) []int64 {
	if !fortran {
		return nil
	}
	strides := make([]int64, len(shape))
	acc := int64(1)
	for i := range shape {
		strides[i] = acc
		acc *= max(shape[i], 1)
	}
	return strides
}

// ReadNPY reads a .npy file holding dtype want (or, for a dtype numpy
// cannot name, its container); want "" takes the file's own dtype.
func ReadNPY(r io.Reader, want string) (*Tensor, error) {
	br := bufio.NewReader(r)
	descr, shape, fortran, err := ReadNPYHeader(br)
	if err != nil {
		return nil, err
	}
	dt, err := npyDType(descr, want)
	if err != nil {
		return nil, err
	}
	t := &Tensor{DType: dt, Shape: shape, Strides: NPYStrides(shape, fortran)}
	n, ok := byteSize(shape, ItemSize(dt))
	if !ok {
		return nil, fmt.Errorf(".npy shape %v is too large", shape)
	}
	t.Data = Alloc(n)
	if _, err := io.ReadFull(br, t.Data); err != nil {
		return nil, fmt.Errorf("short .npy data: %w", err)
	}
	return t, nil
}

// byteSize is numel·size, false past 1<<40 bytes or on a negative size.
func byteSize(shape []int64, size int) (int64, bool) {
	n := int64(size)
	for _, s := range shape {
		if s < 0 || (s > 0 && n > (1<<40)/s) {
			return 0, false
		}
		n *= s
	}
	return n, true
}

// npyDType is the dtype a file with descr is read as, given want.
func npyDType(descr, want string) (string, error) {
	base, bigEndian := SplitNPYDescr(descr)
	if bigEndian {
		return "", fmt.Errorf(".npy dtype %q: big-endian data is not supported", descr)
	}
	dt := NPYDType(base)
	if dt == "" {
		return "", fmt.Errorf(".npy dtype %q is not supported", descr)
	}
	if want != "" && want != dt {
		info, ok := dtypes[want]
		if !ok || info.exact || info.descr[1:] != base {
			return "", fmt.Errorf("file holds %s, the graph expects %s", dt, want)
		}
		dt = want
	}
	return dt, nil
}

// sortedDTypes lists the dtype names in a fixed order.
func sortedDTypes() []string { return slices.Sorted(maps.Keys(dtypes)) }

// WriteManifest writes entries as dir/manifest.json (indented, HTML left
// unescaped), the index of an output folder.
func WriteManifest(dir string, entries []ManifestEntry) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), buf.Bytes(), 0o644)
}

// SaveNPY writes t to path.
func SaveNPY(path string, t *Tensor) error {
	return CreateWith(path, func(w io.Writer) error { return WriteNPY(w, t) })
}

// LoadNPY reads path (see ReadNPY for want).
func LoadNPY(path, want string) (*Tensor, error) {
	return OpenWith(path, func(r io.Reader) (*Tensor, error) { return ReadNPY(r, want) })
}

// CreateWith creates path and writes it with write, closing it either way.
func CreateWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// OpenWith opens path and reads it with read; read's error names path.
func OpenWith[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
