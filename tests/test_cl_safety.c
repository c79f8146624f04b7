/* tests/test_cl_safety.c - gemm_cl.h against hostile and unlucky input: offsets
   and leading dimensions whose byte counts overflow, damaged disk-cache
   entries, endless tuning files, tuning lines that must override older ones,
   allocation failures that must not stick, and arguments from the wrong
   place. On the first OpenCL device (PoCL in CI).

   build/test_cl_safety [overflow|cache|tuning|alloc|api ...]   (none: all)
   Last line: N passed, N failed. */
#define GEMM_IMPLEMENTATION
#define GEMM__TEST_HOOKS
#include "../gemm_cl.h"
#include "battery.h"

#include <signal.h>
#include <unistd.h>

/* Contexts adopt one OpenCL context and queue: a gemm_cl context is then
   cheap to make, where a new OpenCL context costs seconds (NVIDIA). */
static cl_context shared_context;
static cl_command_queue shared_queue;

static const char *const any_device_env[] = {"GEMM_CL_TUNING_FILE", "GEMM_CL_CACHE_DIR"};

static void fresh_env(void)
{
    size_t i;
    for (i = 0; i < sizeof any_device_env / sizeof any_device_env[0]; i++) unsetenv(any_device_env[i]);
}

static gemm_cl_context *create_unchecked(const char *cache_dir, const char *tuning_file, int no_self_check)
{
    gemm_cl_create_options o;
    gemm_cl_context *cl = NULL;
    memset(&o, 0, sizeof o);
    o.cache_dir = cache_dir;
    o.tuning_file = tuning_file;
    o.no_self_check = no_self_check;
    o.context = shared_context;
    o.queue = shared_queue;
    if (gemm_cl_create(&o, &cl) != GEMM_OK) printf("note: gemm_cl_create: %s\n", gemm_last_error_detail());
    return cl;
}

static gemm_cl_context *create_with(const char *cache_dir, const char *tuning_file)
{
    return create_unchecked(cache_dir, tuning_file, 0);
}

/* An n x n x n call on host pointers: its status, or GEMM_ERR_DEVICE when it
   does not match the reference. */
static gemm_status call(gemm_cl_context *cl, gemm_precision prec, int n)
{
    uint64_t st = 3;
    battery_buf A = battery_buf_new(prec, (size_t)(3 * n * n)), R;
    void *a = A.data, *b, *c;
    double eps = prec == GEMM_F64 ? DBL_EPSILON : FLT_EPSILON;
    size_t i, nn = (size_t)n * (size_t)n, elem = prec == GEMM_F64 ? 8 : 4;
    gemm_status s;
    battery_fill(&A, &st);
    R = battery_buf_copy(&A);
    b = (char *)a + nn * elem;
    c = (char *)b + nn * elem;
    s = prec == GEMM_F64 ? gemm_cl_dgemm_host(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, n, n, n, 1.5,
                                              (const double *)a, n, (const double *)b, n, -0.5, (double *)c, n, NULL)
                         : gemm_cl_sgemm_host(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, n, n, n, 1.5f,
                                              (const float *)a, n, (const float *)b, n, -0.5f, (float *)c, n, NULL);
    if (prec == GEMM_F64)
        gemm_ref_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, n, n, n, 1.5, (const double *)R.data, n,
                       (const double *)R.data + nn, n, -0.5, (double *)R.data + 2 * nn, n);
    else
        gemm_ref_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, n, n, n, 1.5f, (const float *)R.data, n,
                       (const float *)R.data + nn, n, -0.5f, (float *)R.data + 2 * nn, n);
    for (i = 2 * nn; s == GEMM_OK && i < 3 * nn; i++)
        if (!(fabs(battery_get(&A, i) - battery_get(&R, i)) <= 4 * eps * n)) s = GEMM_ERR_DEVICE;
    battery_buf_free(&A);
    battery_buf_free(&R);
    return s;
}

static int right(gemm_cl_context *cl, gemm_precision prec, int n) { return call(cl, prec, n) == GEMM_OK; }

/* The f32 (or f64) kernel's info, with the status in *s. */
static gemm_cl_kernel_info info_of(gemm_cl_context *cl, gemm_precision prec, gemm_status *s)
{
    gemm_cl_kernel_info info;
    memset(&info, 0, sizeof info);
    *s = cl ? gemm_cl_kernel_info_get(cl, prec, &info) : GEMM_ERR_UNAVAILABLE;
    return info;
}

/* ---- 1. offsets and leading dimensions whose byte counts overflow ---- */

/* A 4 x 4 x 4 sgemm on one 64-float buffer with the given offsets and
   ldc: must be refused, the buffer unchanged. */
static void refused(gemm_cl_context *cl, cl_mem buf, size_t offa, size_t offb, size_t offc, int64_t ldc,
                    const char *what)
{
    cl_command_queue q = NULL;
    float before[64], after[64];
    gemm_status s;
    gemm_cl_handles(cl, NULL, &q, NULL);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof before, before, 0, NULL, NULL);
    s = gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, buf, offa, 4, buf, offb, 4, 0.0f,
                      buf, offc, ldc, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG, "%s: GEMM_ERR_INVALID_ARG (status %d: %s)", what, (int)s,
                  gemm_last_error_detail());
    clFinish(q);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof after, after, 0, NULL, NULL);
    battery_check(!memcmp(before, after, sizeof before), "%s: the buffer is unchanged", what);
}

static void test_overflow(void)
{
    const size_t big = ((size_t)1 << 62) - 16; /* (big + 16) * 4 bytes wraps to 0 */
    cl_context context = NULL;
    gemm_cl_context *cl = create_with(NULL, NULL);
    cl_mem buf;
    cl_int e;
    float init[64];
    int i;
    if (!cl || sizeof(size_t) < 8) { battery_check(0, "create (overflow test)"); return; }
    for (i = 0; i < 64; i++) init[i] = (float)i;
    gemm_cl_handles(cl, &context, NULL, NULL);
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof init, init, &e);
    refused(cl, buf, 0, 0, big, 4, "C at offset 2^62 - 16 of a 64-float buffer");
    refused(cl, buf, big, 0, 0, 4, "A at offset 2^62 - 16");
    refused(cl, buf, 0, big, 0, 4, "B at offset 2^62 - 16");
    refused(cl, buf, 0, 0, (size_t)-4, 4, "C at offset 2^64 - 4");
    /* (3 * 2^58 + 4 + offset) * 4 bytes wraps to 0 */
    refused(cl, buf, 0, 0, ((size_t)1 << 62) - 3 * ((size_t)1 << 58) - 4, (int64_t)1 << 58,
            "ldc = 2^58 with an offset that wraps the byte count");
    refused(cl, buf, 0, 0, 0, (int64_t)1 << 58, "ldc = 2^58 on a 64-float buffer");
    refused(cl, buf, 0, 0, 0, INT64_MAX, "ldc = 2^63 - 1");
    clReleaseMemObject(buf);
    gemm_cl_destroy(cl);
}

/* ---- 2. damaged disk-cache entries ---- */

typedef struct blob {
    unsigned char *data;
    size_t size;
} blob;

static blob slurp(const char *path)
{
    blob b = {NULL, 0};
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) return b;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
    b.size = n > 0 && fread(b.data, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    fclose(f);
    return b;
}

static int spill(const char *path, const unsigned char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f) ok = fclose(f) == 0 && ok;
    return ok;
}

/* The one cache entry in dir that is not `except`; 1 when found. */
static int find_entry(const char *dir, const char *except, char *path, size_t size)
{
    char cmd[700];
    FILE *f;
    int found = 0;
    snprintf(cmd, sizeof cmd, "ls %s/gemm_cl_*.bin 2>/dev/null", dir);
    if (!(f = popen(cmd, "r"))) return 0;
    while (!found && fgets(path, (int)size, f)) {
        path[strcspn(path, "\n")] = '\0';
        found = !except || strcmp(path, except) != 0;
    }
    pclose(f);
    return found;
}

static uint64_t fnv1a(const unsigned char *b, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (n--) h = (h ^ *b++) * 0x100000001b3ull;
    return h;
}

static uint64_t le(const unsigned char *at, int bytes)
{
    uint64_t v = 0;
    while (bytes--) v = v << 8 | at[bytes];
    return v;
}

/* The entry format of the doc block: a 48-byte header (magic, version,
   header length, key, length, checksum), then the binary. Is e sound, and
   for the same key as `like`? */
static int sound_entry(blob e, blob like)
{
    return e.size > 48 && like.size > 48 && !memcmp(e.data, "gemmclb\n", 8) && le(e.data + 32, 8) == e.size - 48 &&
           le(e.data + 40, 8) == fnv1a(e.data + 48, e.size - 48) && !memcmp(e.data + 8, like.data + 8, 24);
}

/* Damages the entry at path as `how` says, then a new context with that
   cache must build the right kernel and leave a sound entry behind. */
static void damaged(const char *dir, const char *path, blob good, const unsigned char *bad, size_t bad_size,
                    const char *how)
{
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_status s;
    blob after;
    if (!spill(path, bad, bad_size)) { battery_check(0, "%s: write the damaged entry", how); return; }
    cl = create_with(dir, NULL);
    info = info_of(cl, GEMM_F32, &s);
    battery_check(s == GEMM_OK && strncmp(info.origin, "built-in", 8) == 0 && !info.fallback_reason[0] &&
                      right(cl, GEMM_F32, 70),
                  "cache entry %s: rebuilt, the device's own kernel in use and right (origin '%s'%s%s)", how,
                  info.origin, info.fallback_reason[0] ? ", fallback: " : "", info.fallback_reason);
    gemm_cl_destroy(cl);
    after = slurp(path);
    battery_check(sound_entry(after, good) && after.size == good.size && !memcmp(after.data, good.data, good.size),
                  "cache entry %s: replaced by a sound entry (%zu bytes, was %zu)", how, after.size, bad_size);
    free(after.data);
}

/* A sound header around the binary of another kernel: the entry loads,
   and only the self-check can tell. */
static blob wrong_binary(blob good, blob other)
{
    blob e;
    e.size = other.size;
    e.data = (unsigned char *)malloc(other.size);
    memcpy(e.data, other.data, other.size);
    memcpy(e.data + 8, good.data + 8, 24); /* version, header length, this key */
    return e;
}

static void test_cache(void)
{
    char dir[] = "/tmp/gemm_cl_safety_XXXXXX", path[600], other_path[600], cmd[700];
    gemm_cl_context *cl;
    gemm_status s;
    blob good, other, bad;
    size_t i;
    if (!mkdtemp(dir)) { battery_check(0, "mkdtemp"); return; }
    cl = create_with(dir, NULL);
    info_of(cl, GEMM_F32, &s);
    gemm_cl_destroy(cl);
    if (s != GEMM_OK || !find_entry(dir, NULL, path, sizeof path)) { battery_check(0, "the first cache entry"); return; }
    good = slurp(path);
    battery_check(sound_entry(good, good), "a cache entry has the documented header (%zu bytes)", good.size);
    /* a kernel that computes wrong, unchecked so its entry stays: another key */
    gemm__test_hooks()->cl_break_kernel = 1;
    cl = create_unchecked(dir, NULL, 1);
    info_of(cl, GEMM_F32, &s);
    gemm__test_hooks()->cl_break_kernel = 0;
    gemm_cl_destroy(cl);
    if (!find_entry(dir, path, other_path, sizeof other_path)) { battery_check(0, "the second cache entry"); return; }
    other = slurp(other_path);
    remove(other_path);

    damaged(dir, path, good, good.data, good.size - 1, "shortened by one byte");
    damaged(dir, path, good, good.data, good.size / 2, "cut in half");
    damaged(dir, path, good, good.data, 0, "empty");
    bad = wrong_binary(good, good);
    for (i = 0; i < bad.size; i++) bad.data[i] = (unsigned char)(i * 7919u >> 3);
    damaged(dir, path, good, bad.data, bad.size, "overwritten with garbage");
    memcpy(bad.data, good.data, good.size);
    bad.data[good.size / 2] ^= 0x40;
    damaged(dir, path, good, bad.data, bad.size, "with one bit flipped");
    free(bad.data);
    damaged(dir, path, good, other.data, other.size, "of another key (another kernel's entry renamed)");
    bad = wrong_binary(good, other);
    damaged(dir, path, good, bad.data, bad.size, "with a sound header but a binary that computes wrong");
    free(bad.data);
    free(good.data);
    free(other.data);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) battery_check(0, "%s", cmd);
}

/* ---- 3 and 4. tuning files: bounded reads, the last line wins ---- */

static void on_alarm(int sig)
{
    static const char msg[] = "FAIL the first call did not return within its time bound (an endless tuning file?)\n"
                              "0 passed, 1 failed\n";
    (void)sig;
    if (write(1, msg, sizeof msg - 1) < 0) _exit(1);
    _exit(1);
}

/* The first call with this tuning file returns within `bound` seconds. */
static void bounded(const char *file, int bound, const char *what)
{
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_status s;
    double t0 = gemm__cl_now();
    setenv("GEMM_CL_TUNING_FILE", file, 1);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)bound);
    cl = create_with(NULL, NULL);
    info = info_of(cl, GEMM_F32, &s);
    alarm(0);
    unsetenv("GEMM_CL_TUNING_FILE");
    battery_check(s == GEMM_OK && strncmp(info.origin, "tuning file", 11) != 0 && right(cl, GEMM_F32, 40),
                  "GEMM_CL_TUNING_FILE=%s: the first call returns in %.2f s (bound %d s), with the built-in set (%s)",
                  what, gemm__cl_now() - t0, bound, info.origin);
    gemm_cl_destroy(cl);
}

/* A sparse file of 64 GiB whose only bytes are zeros: reading it all would take minutes. */
static void test_endless(const char *dir)
{
    char path[600];
    FILE *f;
    bounded("/dev/zero", 20, "/dev/zero");
    snprintf(path, sizeof path, "%s/huge.txt", dir);
    f = fopen(path, "w");
    if (!f || ftruncate(fileno(f), (off_t)64 << 30) != 0) {
        battery_check(0, "a sparse 64 GiB file in %s", dir);
        if (f) fclose(f);
        return;
    }
    fclose(f);
    bounded(path, 20, "a sparse 64 GiB file");
    remove(path);
}

static void write_lines(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Two lines for this device, the later one wins. */
static void test_last_line_wins(const char *dir, const char *device)
{
    char path[600], text[1200];
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_status s;
    snprintf(path, sizeof path, "%s/two.txt", dir);
    snprintf(text, sizeof text,
             "# two lines for one device\n"
             "f32 MWG=16 NWG=16 KWG=4 MDIMC=4 NDIMC=4 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=8 device=%.5s\n"
             "f32 MWG=8 NWG=16 KWG=2 MDIMC=2 NDIMC=4 VWM=1 VWN=2 SA=1 SB=0 PACK=1 DIRECT=9 device=%s\n",
             device, device);
    write_lines(path, text);
    cl = create_with(NULL, path);
    info = info_of(cl, GEMM_F32, &s);
    battery_check(s == GEMM_OK && info.params.mwg == 8 && info.params.direct == 9 && strstr(info.origin, "line 3") &&
                      right(cl, GEMM_F32, 50),
                  "two tuning lines for this device: the last one is used and reported (origin '%s', MWG=%d)",
                  info.origin, info.params.mwg);
    gemm_cl_destroy(cl);
}

/* The tuner appends its line for this exact device below an older line
   whose key is a substring of the name (as the shipped ones are): a new
   context uses the tuned set. */
static void test_tuned_line_used(const char *dir, const char *device)
{
    char path[600], text[1200];
    gemm_cl_context *cl;
    gemm_cl_kernel_info info;
    gemm_cl_tune_options to;
    gemm_cl_tune_result tr;
    gemm_status s;
    snprintf(path, sizeof path, "%s/tuned.txt", dir);
    snprintf(text, sizeof text, "f32 MWG=16 NWG=16 KWG=4 MDIMC=4 NDIMC=4 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=8 "
                                "device=%.5s\n", device);
    write_lines(path, text);
    cl = create_with(NULL, NULL);
    memset(&to, 0, sizeof to);
    to.tiny = 1;
    to.output = path;
    s = cl ? gemm_cl_tune(cl, GEMM_F32, &to, &tr) : GEMM_ERR_UNAVAILABLE;
    gemm_cl_destroy(cl);
    battery_check(s == GEMM_OK, "a tiny tuner run writes %s (%s)", path, s == GEMM_OK ? tr.line : gemm_last_error_detail());
    if (s != GEMM_OK) return;
    cl = create_with(NULL, path);
    info = info_of(cl, GEMM_F32, &s);
    battery_check(s == GEMM_OK && gemm__cl_same_program(&info.params, &tr.best) &&
                      info.params.direct == tr.best.direct && strncmp(info.origin, "tuning file", 11) == 0 &&
                      right(cl, GEMM_F32, 60),
                  "the tuned line, appended below an older line for the device, is the one a new context uses "
                  "(origin '%s', MWG=%d, tuned MWG=%d)", info.origin, info.params.mwg, tr.best.mwg);
    gemm_cl_destroy(cl);
}

static void test_tuning(void)
{
    char dir[] = "/tmp/gemm_cl_safety_XXXXXX", cmd[700];
    gemm_cl_context *cl = create_with(NULL, NULL);
    gemm_cl_kernel_info info;
    gemm_status s;
    info = info_of(cl, GEMM_F32, &s);
    gemm_cl_destroy(cl);
    if (s != GEMM_OK || !mkdtemp(dir)) { battery_check(0, "create (tuning test)"); return; }
    test_endless(dir);
    test_last_line_wins(dir, info.device_name);
    test_tuned_line_used(dir, info.device_name);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) battery_check(0, "%s", cmd);
}

/* ---- 5. allocation failures that must not stick ---- */

static const gemm_cl_create_options *adopting(void)
{
    static gemm_cl_create_options o;
    o.context = shared_context;
    o.queue = shared_queue;
    return &o;
}

/* With the n-th allocation failing (host or device): create and the first
   calls (f32, then f64 where the device has it) either succeed (the failure
   was one they can do without) or return GEMM_ERR_OUT_OF_MEMORY; then the
   next try succeeds with the device's own kernel, and fp64 where the device
   has it. Returns 0 once n is past the allocations these calls make. */
static int fail_nth(int n, int has_fp64, const char *origin)
{
    gemm_cl_context *cl = NULL;
    gemm_cl_kernel_info info;
    gemm_status created, first = GEMM_OK, s;
    int reached, ok;
    gemm__test_hooks()->cl_fail_alloc = n;
    created = gemm_cl_create(adopting(), &cl);
    if (created == GEMM_OK) first = call(cl, GEMM_F32, 33);
    if (created == GEMM_OK && first == GEMM_OK && has_fp64) first = call(cl, GEMM_F64, 21);
    reached = gemm__test_hooks()->cl_fail_alloc == 0;
    gemm__test_hooks()->cl_fail_alloc = 0;
    ok = (created == GEMM_OK || (created == GEMM_ERR_OUT_OF_MEMORY && !cl)) &&
         (first == GEMM_OK || first == GEMM_ERR_OUT_OF_MEMORY);
    if (created != GEMM_OK) gemm_cl_create(adopting(), &cl);
    info = info_of(cl, GEMM_F32, &s);
    ok = ok && s == GEMM_OK && !strcmp(info.origin, origin) && !info.fallback_reason[0] && right(cl, GEMM_F32, 33);
    ok = ok && (!has_fp64 || right(cl, GEMM_F64, 21));
    battery_check(ok, "allocation %d fails once: create %s, first calls %s; then the device's own kernel (%s%s%s)%s",
                  n, gemm_strerror(created), gemm_strerror(first), info.origin, info.fallback_reason[0] ? ", fallback: " : "",
                  info.fallback_reason, has_fp64 ? " and fp64" : "");
    gemm_cl_destroy(cl);
    return reached;
}

static void test_alloc(void)
{
    gemm_cl_context *cl = create_with(NULL, NULL);
    gemm_cl_kernel_info info;
    gemm_status s, s64;
    int n, has_fp64;
    info = info_of(cl, GEMM_F32, &s);
    info_of(cl, GEMM_F64, &s64);
    has_fp64 = s64 == GEMM_OK;
    gemm_cl_destroy(cl);
    if (s != GEMM_OK) { battery_check(0, "create (allocation test)"); return; }
    for (n = 1; n < 200 && fail_nth(n, has_fp64, info.origin); n++) continue;
    battery_check(n > 5 && n < 200, "every one of the %d allocations of create and the first calls failed once", n - 1);
}

/* ---- 6. arguments from the wrong place ---- */

static void test_null_ctx(void)
{
    float A[16] = {0}, B[16] = {0}, C[16] = {0};
    gemm_status s = gemm_cl_sgemm_host(NULL, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, A, 4, B, 4, 0, C,
                                       4, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "ctx"),
                  "gemm_cl_sgemm_host(NULL, ...): GEMM_ERR_INVALID_ARG (%s)", gemm_last_error_detail());
    s = gemm_cl_dgemm_host(NULL, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, -1, 4, 4, 1, NULL, 4, NULL, 4, 0, NULL, 4,
                           NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "ctx"),
                  "gemm_cl_dgemm_host(NULL, m = -1, ...): the context is the first argument checked (%s)",
                  gemm_last_error_detail());
    s = gemm_cl_sgemm(NULL, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, NULL, 0, 4, NULL, 0, 4, 0, NULL, 0,
                      4, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "ctx"),
                  "gemm_cl_sgemm(NULL, ...): GEMM_ERR_INVALID_ARG (%s)", gemm_last_error_detail());
}

/* A cl_mem of another OpenCL context (same device) is refused, unwritten. */
static void test_foreign_buffer(gemm_cl_context *cl)
{
    cl_device_id dev = NULL;
    cl_context mine = NULL, other;
    cl_command_queue q;
    cl_mem a, c;
    cl_int e;
    float h[16], back[16];
    gemm_status s;
    int i;
    for (i = 0; i < 16; i++) h[i] = (float)i;
    gemm_cl_handles(cl, &mine, NULL, &dev);
    other = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    q = clCreateCommandQueue(other, dev, 0, &e);
    a = clCreateBuffer(mine, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof h, h, &e);
    c = clCreateBuffer(other, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof h, h, &e);
    s = gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, a, 0, 4, a, 0, 4, 0, c, 0, 4, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "another OpenCL context"),
                  "a C buffer of another OpenCL context: GEMM_ERR_INVALID_ARG (%s)", gemm_last_error_detail());
    s = gemm_cl_sgemm(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1, c, 0, 4, a, 0, 4, 0, a, 0, 4, NULL);
    battery_check(s == GEMM_ERR_INVALID_ARG, "an A buffer of another OpenCL context: GEMM_ERR_INVALID_ARG (%s)",
                  gemm_last_error_detail());
    clFinish(q);
    clEnqueueReadBuffer(q, c, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL);
    battery_check(!memcmp(h, back, sizeof h), "the other context's buffer is unchanged");
    clReleaseMemObject(a);
    clReleaseMemObject(c);
    clReleaseCommandQueue(q);
    clReleaseContext(other);
}

/* The host API moves what the call touches: a one-column C with ldc = 2^40
   (its buffer would be 4 TiB at n x ldc), and A with lda = 2^40. */
static void test_host_sizes(gemm_cl_context *cl)
{
    const int64_t huge = (int64_t)1 << 40;
    float A[8], B[2] = {1.0f, 2.0f}, C[4] = {1, 1, 1, 1};
    gemm_status s;
    int i;
    for (i = 0; i < 8; i++) A[i] = (float)(i + 1);
    /* column-major C = A * B: A 4 x 2, B 2 x 1, C 4 x 1 */
    s = gemm_cl_sgemm_host(cl, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 1, 2, 1, A, 4, B, 2, 0.5f, C, huge, NULL);
    battery_check(s == GEMM_OK && C[0] == 11.5f && C[1] == 14.5f && C[2] == 17.5f && C[3] == 20.5f,
                  "host call, one column of C with ldc = 2^40: C's device buffer holds 4 elements (status %d: %s)",
                  (int)s, gemm_last_error_detail());
    /* row-major A, 1 x 4 with lda = 2^40: one row */
    s = gemm_cl_sgemm_host(cl, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 4, 1, A, huge, A, 1, 0, C, huge,
                           NULL);
    battery_check(s == GEMM_OK && C[0] == 30.0f, "host call, a one-row A and C with lda = ldc = 2^40: right "
                  "(status %d: %s)", (int)s, gemm_last_error_detail());
}

static void test_device_list(const char *device)
{
    gemm_cl_context *cl = NULL;
    gemm_status s;
    setenv("GEMM_CL_DEVICE", "no such device, surely", 1);
    s = gemm_cl_create(NULL, &cl);
    unsetenv("GEMM_CL_DEVICE");
    battery_check(s == GEMM_ERR_UNAVAILABLE && !cl && strstr(gemm_last_error_detail(), "no such device") &&
                      strstr(gemm_last_error_detail(), device) && strstr(gemm_last_error_detail(), "0:0"),
                  "GEMM_CL_DEVICE that matches nothing: the detail lists the devices (%s)", gemm_last_error_detail());
}

static void test_api(void)
{
    gemm_cl_context *cl = create_with(NULL, NULL);
    gemm_cl_kernel_info info;
    gemm_status s;
    info = info_of(cl, GEMM_F32, &s);
    if (s != GEMM_OK) { battery_check(0, "create (argument test)"); return; }
    test_null_ctx();
    test_foreign_buffer(cl);
    test_host_sizes(cl);
    test_device_list(info.device_name);
    gemm_cl_destroy(cl);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*run)(void); } groups[] = {
        {"overflow", test_overflow}, {"cache", test_cache}, {"tuning", test_tuning},
        {"alloc", test_alloc},       {"api", test_api},
    };
    gemm_cl_context *cl = NULL;
    size_t g;
    int i;
    fresh_env();
    if (gemm_cl_create(NULL, &cl) != GEMM_OK) {
        battery_skip("OpenCL", gemm_last_error_detail());
        return battery_summary();
    }
    gemm_cl_handles(cl, &shared_context, &shared_queue, NULL);
    clRetainContext(shared_context);
    clRetainCommandQueue(shared_queue);
    gemm_cl_destroy(cl);
    for (g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        int run = argc < 2;
        for (i = 1; i < argc; i++) run |= !strcmp(argv[i], groups[g].name);
        if (!run) continue;
        printf("== %s\n", groups[g].name);
        fflush(stdout);
        groups[g].run();
    }
    clReleaseCommandQueue(shared_queue);
    clReleaseContext(shared_context);
    return battery_summary();
}
