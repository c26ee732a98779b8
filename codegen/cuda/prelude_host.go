package cuda

// preludeHost is the host side's runtime: .npy reading and writing,
// strided copies between a dense tensor and its buffer, memory and
// launches. Under KILN_EMULATE memory is host memory and a launch runs
// every block and thread of the grid in turn; under the CUDA runtime it is
// cudaMalloc and <<<grid, block>>>.
const preludeHost = `
#if defined(KILN_HOST_CODE)
#include <stdarg.h>
static void kiln_fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "kiln: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

#if defined(KILN_CUDA_RUNTIME)
static void kiln_check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) kiln_fail("%s: %s", what, cudaGetErrorString(err));
}
static void* kiln_alloc(long long bytes) {
  void* p = 0;
  kiln_check(cudaMalloc(&p, bytes > 0 ? (size_t)bytes : 1), "cudaMalloc");
  kiln_check(cudaMemset(p, 0, bytes > 0 ? (size_t)bytes : 1), "cudaMemset");
  return p;
}
static void kiln_upload(void* dev, const void* host, long long bytes) {
  if (bytes > 0) kiln_check(cudaMemcpy(dev, host, (size_t)bytes, cudaMemcpyHostToDevice), "upload");
}
static void kiln_download(void* host, const void* dev, long long bytes) {
  if (bytes > 0) kiln_check(cudaMemcpy(host, dev, (size_t)bytes, cudaMemcpyDeviceToHost), "download");
}
static void kiln_free(void* p) { cudaFree(p); }
static void kiln_sync(void) { kiln_check(cudaDeviceSynchronize(), "kernel execution"); }
#define KILN_LAUNCH(k, grid, block, ...) \
  do { k<<<(grid), (block)>>>(__VA_ARGS__); kiln_check(cudaGetLastError(), "launch " #k); } while (0)
#else
static void* kiln_alloc(long long bytes) {
  size_t n = ((size_t)(bytes > 0 ? bytes : 1) + 63) / 64 * 64;
  void* p = aligned_alloc(64, n);
  if (!p) kiln_fail("out of memory (%lld bytes)", bytes);
  memset(p, 0, n);
  return p;
}
static void kiln_upload(void* dev, const void* host, long long bytes) { if (bytes > 0) memcpy(dev, host, (size_t)bytes); }
static void kiln_download(void* host, const void* dev, long long bytes) { if (bytes > 0) memcpy(host, dev, (size_t)bytes); }
static void kiln_free(void* p) { free(p); }
static void kiln_sync(void) {}
#define KILN_LAUNCH(k, grid, block, ...)                           \
  do {                                                             \
    kiln_gdim = (grid);                                            \
    kiln_bdim = (block);                                           \
    for (kiln_bid = 0; kiln_bid < kiln_gdim; ++kiln_bid)           \
      for (kiln_tid = 0; kiln_tid < kiln_bdim; ++kiln_tid) k(__VA_ARGS__); \
  } while (0)
#endif

static unsigned kiln_grid(long long nwork, unsigned block) {
  long long g = (nwork + block - 1) / block;
  return (unsigned)(g < 1 ? 1 : g > 4096 ? 4096 : g);
}

// A .npy file: descr, shape and the raw little-endian data (C order).
typedef struct {
  char descr[16];
  int ndim;
  long long shape[16];
  unsigned char* data;
  long long bytes;
} kiln_npy;

static int kiln_read_npy(const char* path, kiln_npy* t) {
  FILE* f = fopen(path, "rb");
  if (!f) return 1;
  unsigned char pre[10];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) kiln_fail("%s: not a .npy file", path);
  long long hlen;
  if (pre[6] == 1) {
    if (fread(pre, 1, 2, f) != 2) kiln_fail("%s: short header", path);
    hlen = pre[0] | (pre[1] << 8);
  } else {
    if (fread(pre, 1, 4, f) != 4) kiln_fail("%s: short header", path);
    hlen = (long long)pre[0] | ((long long)pre[1] << 8) | ((long long)pre[2] << 16) | ((long long)pre[3] << 24);
  }
  if (hlen <= 0 || hlen > (1 << 20)) kiln_fail("%s: bad header length", path);
  char* h = (char*)calloc((size_t)hlen + 1, 1);
  if (fread(h, 1, (size_t)hlen, f) != (size_t)hlen) kiln_fail("%s: short header", path);
  const char* d = strstr(h, "'descr'");
  const char* fo = strstr(h, "'fortran_order'");
  const char* s = strstr(h, "'shape'");
  if (!d || !fo || !s) kiln_fail("%s: malformed header %s", path, h);
  d = strchr(d + 7, '\'');
  const char* dend = d ? strchr(d + 1, '\'') : 0;
  if (!d || !dend || dend - d - 1 >= (long)sizeof t->descr) kiln_fail("%s: malformed descr", path);
  memset(t->descr, 0, sizeof t->descr);
  memcpy(t->descr, d + 1, (size_t)(dend - d - 1));
  if (strstr(fo, "True") && strstr(fo, "True") < s) kiln_fail("%s: fortran_order files are not supported", path);
  s = strchr(s, '(');
  if (!s) kiln_fail("%s: malformed shape", path);
  t->ndim = 0;
  long long n = 1;
  for (++s; *s && *s != ')';) {
    while (*s == ' ' || *s == ',') s++;
    if (*s == ')') break;
    char* end;
    long long v = strtoll(s, &end, 10);
    if (end == s || t->ndim == 16) kiln_fail("%s: malformed shape", path);
    t->shape[t->ndim++] = v;
    n *= v;
    s = end;
    if (*s == 'L') s++;
  }
  free(h);
  int isz = atoi(t->descr + 2);
  t->bytes = n * isz;
  t->data = (unsigned char*)malloc((size_t)(t->bytes > 0 ? t->bytes : 1));
  if ((long long)fread(t->data, 1, (size_t)t->bytes, f) != t->bytes) kiln_fail("%s: short data", path);
  fclose(f);
  return 0;
}

static void kiln_write_npy(const char* path, const char* descr, int ndim, const long long* shape, const void* data, long long bytes) {
  char shp[512] = "", hdr[640];
  for (int i = 0; i < ndim; i++) {
    char one[32];
    snprintf(one, sizeof one, i == 0 ? "%lld" : ", %lld", shape[i]);
    strncat(shp, one, sizeof shp - strlen(shp) - 1);
  }
  if (ndim == 1) strncat(shp, ",", sizeof shp - strlen(shp) - 1);
  int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shp);
  int total = 10 + n + 1, padn = (64 - total % 64) % 64;
  FILE* f = fopen(path, "wb");
  if (!f) kiln_fail("cannot create %s", path);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)((n + padn + 1) & 0xFF), (unsigned char)((n + padn + 1) >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(hdr, 1, (size_t)n, f);
  for (int i = 0; i < padn; i++) fputc(' ', f);
  fputc('\n', f);
  if (bytes > 0) fwrite(data, 1, (size_t)bytes, f);
  fclose(f);
}

// kiln_strided_copy moves elements between a dense row-major array and
// a strided layout (offset and strides in elements of isz bytes).
static void kiln_strided_copy(unsigned char* buf, unsigned char* dense, int isz, int ndim, const long long* shape,
                              const long long* strides, long long offset, int to_buf) {
  long long n = 1, idx[16] = {0};
  for (int i = 0; i < ndim; i++) n *= shape[i];
  for (long long e = 0; e < n; e++) {
    long long off = offset;
    for (int i = 0; i < ndim; i++) off += idx[i] * strides[i];
    if (to_buf) memcpy(buf + off * isz, dense + e * isz, (size_t)isz);
    else memcpy(dense + e * isz, buf + off * isz, (size_t)isz);
    for (int i = ndim - 1; i >= 0; i--) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
}

// kiln_arg finds NAME=VALUE among the command-line arguments.
static int kiln_arg(int argc, char** argv, const char* name, long long* v) {
  size_t n = strlen(name);
  for (int i = 3; i < argc; i++) {
    if (strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') {
      *v = strtoll(argv[i] + n + 1, 0, 10);
      return 1;
    }
  }
  return 0;
}
#endif
`
