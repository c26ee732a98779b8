package rt

import "sync"

// A pool of buffers by size, so that a program run repeatedly (a benchmark,
// a serving loop) takes its buffers back instead of faulting in fresh
// pages every run, as PyTorch's caching allocator does. A pooled buffer's
// contents are unspecified: the program writes every element it reads.

var pool = struct {
	sync.Mutex
	free map[int][][]byte
}{free: map[int][][]byte{}}

// AllocBuffer returns n bytes, 64-byte aligned: a released buffer of that
// size when there is one (contents unspecified), else zeroed memory.
func AllocBuffer(n int64) []byte {
	pool.Lock()
	list := pool.free[int(n)]
	if k := len(list); k > 0 {
		b := list[k-1]
		pool.free[int(n)] = list[:k-1]
		pool.Unlock()
		return b
	}
	pool.Unlock()
	return Alloc(n)
}

// ReleaseBuffer hands a buffer from AllocBuffer back to the pool; the
// caller must not use it afterwards.
func ReleaseBuffer(b []byte) {
	if len(b) == 0 {
		return
	}
	pool.Lock()
	pool.free[len(b)] = append(pool.free[len(b)], b)
	pool.Unlock()
}
