package rt

import "fmt"

// dtypeInfo is what the runtime knows of a kiln dtype (its FX spelling).
type dtypeInfo struct {
	size  int
	descr string // the .npy descr numpy writes for it
	exact bool   // false: descr is a same-size unsigned container of the bits
}

var dtypes = map[string]dtypeInfo{
	"b8": {1, "|b1", true}, "u8": {1, "|u1", true}, "i8": {1, "|i1", true},
	"i16": {2, "<i2", true}, "u16": {2, "<u2", true}, "i32": {4, "<i4", true}, "u32": {4, "<u4", true},
	"i64": {8, "<i8", true}, "u64": {8, "<u8", true},
	"f16": {2, "<f2", true}, "f32": {4, "<f4", true}, "f64": {8, "<f8", true},
	"bf16": {2, "<u2", false}, "f8e4m3fn": {1, "|u1", false}, "f8e5m2": {1, "|u1", false},
	"f8e4m3fnuz": {1, "|u1", false}, "f8e5m2fnuz": {1, "|u1", false}, "f8e8m0fnu": {1, "|u1", false},
}

// ItemSize is the element size of dtype in bytes (0 for an unknown dtype).
func ItemSize(dtype string) int { return dtypes[dtype].size }

// NPYDescr is the .npy descr kiln writes for dtype and whether it names the
// dtype itself (false: raw bits in an unsigned container, as interp writes).
func NPYDescr(dtype string) (descr string, exact bool, err error) {
	info, ok := dtypes[dtype]
	if !ok {
		return "", false, fmt.Errorf("dtype %q is not supported", dtype)
	}
	return info.descr, info.exact, nil
}
