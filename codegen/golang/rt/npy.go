package rt

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// NumPy .npy files as interp writes them: version 1.0, row-major; dtypes
// numpy has no name for (bf16, the float8 family) are raw bits in a
// same-size unsigned container, accepted when the caller expects them.

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
	bw.Write(data)
	return bw.Flush()
}

var (
	descrRe   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	fortranRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// ReadNPY reads a .npy file holding dtype want (or, for a dtype numpy
// cannot name, its container); want "" takes the file's own dtype.
func ReadNPY(r io.Reader, want string) (*Tensor, error) {
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
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, err
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
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
	dt, shape, fortran, err := parseHeader(string(header), want)
	if err != nil {
		return nil, err
	}
	t := &Tensor{DType: dt, Shape: shape}
	if fortran {
		t.Strides = make([]int64, len(shape))
		acc := int64(1)
		for i := range shape {
			t.Strides[i] = acc
			acc *= max(shape[i], 1)
		}
	}
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

func parseHeader(h, want string) (dt string, shape []int64, fortran bool, err error) {
	dm, fm, sm := descrRe.FindStringSubmatch(h), fortranRe.FindStringSubmatch(h), shapeRe.FindStringSubmatch(h)
	if dm == nil || fm == nil || sm == nil {
		return "", nil, false, fmt.Errorf("malformed .npy header %q", strings.TrimSpace(h))
	}
	descr := dm[1]
	if len(descr) > 1 && descr[0] == '>' && descr[1:] != "u1" && descr[1:] != "i1" && descr[1:] != "b1" {
		return "", nil, false, fmt.Errorf(".npy dtype %q: big-endian data is not supported", descr)
	}
	if len(descr) > 1 && strings.ContainsRune("<>=|", rune(descr[0])) {
		descr = descr[1:]
	}
	for _, name := range sortedDTypes() {
		if info := dtypes[name]; info.exact && info.descr[1:] == descr {
			dt = name
		}
	}
	if dt == "" {
		return "", nil, false, fmt.Errorf(".npy dtype %q is not supported", dm[1])
	}
	if want != "" && want != dt {
		info, ok := dtypes[want]
		if !ok || info.exact || info.descr[1:] != descr {
			return "", nil, false, fmt.Errorf("file holds %s, the graph expects %s", dt, want)
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
			return "", nil, false, fmt.Errorf("malformed .npy shape (%s)", sm[1])
		}
		shape = append(shape, n)
	}
	return dt, shape, fm[1] == "True", nil
}

// sortedDTypes lists the dtype names in a fixed order.
func sortedDTypes() []string { return slices.Sorted(maps.Keys(dtypes)) }

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
func LoadNPY(path, want string) (*Tensor, error) {
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
