package main

import "testing"

// The soft limit is 1 GiB up to 16 MiB of input (a 155k-node graph is
// 15 MB), then grows with the input: a 1M-node graph (118 MB) gets room
// for the live heap it needs (2.6 GB at 6db2560) instead of a GC that
// thrashes against it.
func TestMemoryLimitFor(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{
		{0, 1 << 30},
		{15_300_000, 1 << 30},
		{16 << 20, 1 << 30},
		{118 << 20, 64 * (118 << 20)},
	} {
		if got := memoryLimitFor(c.in); got != c.want {
			t.Errorf("memoryLimitFor(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
