package cuda

// preludeRandom defines the lowering.RandFns draws, bit for bit the Go
// runtime's (rt/philox.go): Philox4x32-10 keyed by the seed, counting
// (index, stream); uniform from the first word's low 24 bits; normal by
// Box–Muller in double on the first two words. The 32x32->64 products are
// plain 64-bit integer multiplies, exact on the host and the device alike;
// the libm calls of k_rand_normal may differ from Go's in the last bit of
// a double, rarely of the float result.
const preludeRandom = `
// Counter-based random numbers (lowering.RandFns).
struct kiln_philox_block { unsigned int w[4]; };
KD kiln_philox_block k_philox(unsigned long long seed, unsigned long long stream, unsigned long long index) {
  unsigned int c0 = (unsigned int)index, c1 = (unsigned int)(index >> 32);
  unsigned int c2 = (unsigned int)stream, c3 = (unsigned int)(stream >> 32);
  unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32);
  for (int r = 0; r < 10; r++) {
    if (r > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    unsigned long long p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;
    unsigned int n0 = (unsigned int)(p1 >> 32) ^ c1 ^ k0, n2 = (unsigned int)(p0 >> 32) ^ c3 ^ k1;
    c1 = (unsigned int)p1; c3 = (unsigned int)p0; c0 = n0; c2 = n2;
  }
  kiln_philox_block b = {{c0, c1, c2, c3}};
  return b;
}
KD float k_uniform24(unsigned int x) { return (float)(x & 0xFFFFFFu) * (1.0f / 16777216.0f); }
KD float k_rand_uniform(long long seed, long long stream, long long index) {
  return k_uniform24(k_philox(seed, stream, index).w[0]);
}
KD float k_rand_normal(long long seed, long long stream, long long index) {
  kiln_philox_block b = k_philox(seed, stream, index);
  double u1 = k_uniform24(b.w[0]), u2 = k_uniform24(b.w[1]);
  double r = km_sqrt(-2.0 * km_log(1.0 - u1));
  return (float)(r * km_cos(6.283185307179586 * u2));
}
KD long long k_rand_bits(long long seed, long long stream, long long index) {
  kiln_philox_block b = k_philox(seed, stream, index);
  return (long long)((((unsigned long long)b.w[1] << 32) | b.w[0]) >> 1);
}
`
