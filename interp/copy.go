package interp

// CopyValues deep-copies runtime values: tensors get new storages (inputs
// that shared a storage still share their copy), so a run cannot disturb
// another's inputs.
func CopyValues(xs []any) []any {
	storages := map[*Storage]*Storage{}
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = copyValue(x, storages)
	}
	return out
}

func copyValue(x any, storages map[*Storage]*Storage) any {
	switch v := x.(type) {
	case *Tensor:
		st := storages[v.Storage]
		if st == nil {
			st = &Storage{Data: append([]byte(nil), v.Storage.Data...), Device: v.Storage.Device}
			storages[v.Storage] = st
		}
		return &Tensor{DType: v.DType, Shape: clone64(v.Shape), Strides: clone64(v.Strides), Offset: v.Offset, Storage: st, Conj: v.Conj, Neg: v.Neg}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e, storages)
		}
		return out
	}
	return x
}
