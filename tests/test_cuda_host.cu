/* tests/test_cuda_host.cu - the CUDA host-pointer path (gemm_cuda_?gemm_host,
   gemm_cuda_sgemm_mixed_host): its plans, its pipeline, and the calls.

     build/test_cuda_host           everything; the last part needs a GPU
     build/test_cuda_host --plans   the parts that need no GPU (CI runs them)
     GEMM_CUDA_TEST_SMALL=1         a small GPU part (under compute-sanitizer)

   1. Plans, on the CPU: every order (SQUARE, BLOCK-A, BLOCK-B, K-SPLIT) on
      many shapes, element types and device budgets, run step by step on
      host arrays standing in for the device: the result against the
      reference, every element of C stored once, no load or multiply
      overwriting what a step not yet waited for still reads (the plan's
      `after` fields), the budget kept, each panel loaded once in core and
      the first multiply after a small part of A and B.
   2. The pipeline itself (threads, staging chunks, events, two compute
      streams) on a CPU stand-in for the device whose streams are threads
      that run their work late and in random order against each other:
      staged and direct operands, tiny chunks, one to three copy threads.
   3. On a GPU: the battery (tests/battery.h) through the host calls in
      every mode, with small max_device_bytes and tiles forcing many pieces
      and every order, from pageable, page-locked and device memory; odd
      larger shapes, beta = 0 with NaN in C, alpha = 0; TF32 and FP16 with
      tiles; refusals with C unchanged; the timing; two host threads at
      once; gemm_cuda_release_scratch between calls.
   4. C overlapping A or B (no GPU, in --plans): the host calls on one
      device and on several, the mixed types, and the device-pointer calls
      refuse it before any CUDA call, C untouched; blocks side by side in
      one array are not refused.
   Last line: N passed, N failed[, N skipped]. */
#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include "battery.h"

#include <functional>

static int small_run; /* GEMM_CUDA_TEST_SMALL */

/* ======================================================================
   1. Plans on the CPU
   ====================================================================== */

/* Runs plan `pl` step by step: "device" bytes hold doubles at each
   element's first byte; a, b, c are the canonical operands (stored with
   lda, ldb, ldc). Checks every hazard as it goes; returns the number of
   problems found (each printed once through battery_check). */
typedef struct plan_sim {
    const gemm__cuda_shape *sh;
    const gemm__cuda_plan *pl;
    std::vector<double> dev;
    std::vector<int> reader, storer, loaded; /* per device byte: last multiply reading it, last store, loaded since */
    std::vector<int> stored;                 /* per element of C: how many stores wrote it */
    std::vector<double> *op[3];
    int64_t ld[3];
    int problems, multiplies, stores;
    const char *label;
} plan_sim;

static size_t sim_host_index(const plan_sim *s, int which, int64_t r, int64_t c)
{
    int tr = s->sh->trans[which];
    return (size_t)((tr ? c : r) + (tr ? r : c) * s->ld[which]);
}

static size_t sim_dev_byte(const plan_sim *s, int which, const gemm__cuda_area *at, int64_t r, int64_t c)
{
    return s->pl->slot_offset[(size_t)at->slot] + gemm__cuda_area_offset(s->sh, which, at, r, c);
}

static void sim_problem(plan_sim *s, int ok, const char *what, long index)
{
    if (ok) return;
    if (s->problems++ == 0) battery_check(0, "plan %s: %s (step %ld)", s->label, what, index);
}

static void sim_load(plan_sim *s, const gemm__cuda_op *o, long index)
{
    const gemm__cuda_area *at = &o->at[o->which];
    int64_t r, c;
    for (c = o->c0; c < o->c1; c++)
        for (r = o->r0; r < o->r1; r++) {
            size_t d = sim_dev_byte(s, o->which, at, r, c);
            sim_problem(s, d + s->sh->elem[o->which] <= s->pl->slot_offset[(size_t)at->slot] + s->pl->slot_bytes[(size_t)at->slot],
                        "a load writes past its slot", index);
            if (d >= s->dev.size()) return;
            if (o->which < 2) sim_problem(s, s->reader[d] <= o->after, "a load overwrites what a multiply it does not wait for reads", index);
            else sim_problem(s, s->storer[d] <= o->after, "a load of C overwrites what a store it does not wait for reads", index);
            s->dev[d] = (*s->op[o->which])[sim_host_index(s, o->which, r, c)];
            s->loaded[d] = 1;
        }
}

static void sim_multiply(plan_sim *s, const gemm__cuda_op *o, long index, double alpha, double beta)
{
    int64_t i, j, p;
    for (j = o->c0; j < o->c1; j++)
        for (i = o->r0; i < o->r1; i++) {
            size_t dc = sim_dev_byte(s, 2, &o->at[2], i, j);
            double sum = 0, b0 = o->p0 == 0 ? beta : 1;
            if (dc >= s->dev.size()) return;
            for (p = o->p0; p < o->p1 && s->sh->reads_ab; p++) {
                size_t da = sim_dev_byte(s, 0, &o->at[0], i, p), db = sim_dev_byte(s, 1, &o->at[1], p, j);
                sum += s->dev[da] * s->dev[db];
                s->reader[da] = s->reader[db] = s->multiplies;
            }
            sim_problem(s, o->after >= 0 ? s->storer[dc] <= o->after : s->storer[dc] < 0 || s->loaded[dc] || o->p0 > 0,
                        "a multiply writes a C slot a store it does not wait for still reads", index);
            s->dev[dc] = alpha * sum + (b0 == 0 ? 0 : b0 * s->dev[dc]);
        }
    s->multiplies++;
}

static void sim_store(plan_sim *s, const gemm__cuda_op *o)
{
    int64_t i, j;
    for (j = o->c0; j < o->c1; j++)
        for (i = o->r0; i < o->r1; i++) {
            size_t dc = sim_dev_byte(s, 2, &o->at[2], i, j), h = sim_host_index(s, 2, i, j);
            if (dc >= s->dev.size()) return;
            (*s->op[2])[h] = s->dev[dc];
            s->storer[dc] = s->stores;
            s->loaded[dc] = 0;
            s->stored[(size_t)(i + j * s->sh->m)]++;
        }
    s->stores++;
}

/* One shape and budget: the plan (or the refusal when nothing fits), run. */
static int plan_case(const gemm__cuda_shape *sh, size_t budget, int64_t lda, int64_t ldb, int *orders)
{
    gemm__cuda_plan pl;
    plan_sim s;
    std::vector<double> a, b, c, want;
    uint64_t state = (uint64_t)(sh->m * 7919 + sh->n * 31 + sh->k) ^ budget;
    int64_t i, j, p, pa = 0, pb = 0, la = 0, lb = 0, first_la = -1, first_lb = -1;
    double alpha = 0.75, beta = sh->loads_c ? -0.5 : 0;
    char label[160];
    size_t e;
    snprintf(label, sizeof label, "m=%lld n=%lld k=%lld trans=%d%d elem=%zu/%zu ab=%d c=%d tile=%lld budget=%zu",
             (long long)sh->m, (long long)sh->n, (long long)sh->k, sh->trans[0], sh->trans[1], sh->elem[0], sh->elem[2],
             (int)sh->reads_ab, (int)sh->loads_c, (long long)sh->tile, budget);
    if (!gemm__cuda_plan_make(&pl, sh, budget)) {
        /* refused: only when not even the smallest K-SPLIT tiles fit */
        int64_t t = GEMM__CUDA_MIN_TILE;
        size_t least = gemm__cuda_ksplit_bytes(sh, gemm__cuda_min64(sh->m, t), gemm__cuda_min64(sh->n, t), gemm__cuda_min64(sh->k, t));
        battery_check(!sh->reads_ab || least > budget || sh->tile < t, "plan %s: refused though tiles of %d fit (%zu bytes)",
                      label, GEMM__CUDA_MIN_TILE, least);
        return 0;
    }
    orders[pl.order]++;
    a.resize((size_t)(lda * (sh->trans[0] ? sh->m : sh->k)) + 1);
    b.resize((size_t)(ldb * (sh->trans[1] ? sh->k : sh->n)) + 1);
    c.resize((size_t)(sh->m * sh->n));
    for (e = 0; e < a.size(); e++) a[e] = battery_uniform(&state);
    for (e = 0; e < b.size(); e++) b[e] = battery_uniform(&state);
    for (e = 0; e < c.size(); e++) c[e] = battery_uniform(&state);
    want = c;
    s.sh = sh;
    s.pl = &pl;
    s.dev.assign(pl.bytes, NAN);
    s.reader.assign(pl.bytes, -1);
    s.storer.assign(pl.bytes, -1);
    s.loaded.assign(pl.bytes, 0);
    s.stored.assign(c.size(), 0);
    s.op[0] = &a; s.op[1] = &b; s.op[2] = &c;
    s.ld[0] = lda; s.ld[1] = ldb; s.ld[2] = sh->m;
    s.problems = s.multiplies = s.stores = 0;
    s.label = label;
    for (j = 0; j < sh->n; j++)
        for (i = 0; i < sh->m; i++) {
            double sum = 0;
            for (p = 0; p < sh->k && sh->reads_ab; p++) sum += a[sim_host_index(&s, 0, i, p)] * b[sim_host_index(&s, 1, p, j)];
            want[(size_t)(i + j * sh->m)] = alpha * sum + (beta == 0 ? 0 : beta * want[(size_t)(i + j * sh->m)]);
        }
    for (e = 0; e < pl.ops.size(); e++) {
        const gemm__cuda_op *o = &pl.ops[e];
        if (o->kind == GEMM__CUDA_LOAD) {
            int64_t n = (o->r1 - o->r0) * (o->c1 - o->c0);
            if (o->which == 0) { la += n; if (first_la < 0 && s.multiplies == 0) pa += n; }
            if (o->which == 1) { lb += n; if (first_lb < 0 && s.multiplies == 0) pb += n; }
            sim_load(&s, o, (long)e);
        } else if (o->kind == GEMM__CUDA_MULTIPLY) {
            sim_problem(&s, !o->chain || (e > 0 && s.multiplies > 0), "a chained multiply comes first", (long)e);
            sim_multiply(&s, o, (long)e, alpha, beta);
        } else {
            sim_store(&s, o);
        }
    }
    for (e = 0; e < c.size() && s.problems == 0; e++) {
        sim_problem(&s, s.stored[e] == 1, "an element of C is not stored exactly once", (long)e);
        sim_problem(&s, fabs(c[e] - want[e]) <= 1e-12 * (double)(sh->k + 1), "a wrong result", (long)e);
    }
    sim_problem(&s, pl.bytes <= budget, "the plan takes more device memory than the budget", -1);
    sim_problem(&s, pl.multiplies == s.multiplies && pl.stores == s.stores, "the plan's counts are wrong", -1);
    if (pl.order == GEMM__CUDA_SQUARE && sh->reads_ab) {
        int64_t panels_a = gemm__cuda_cdiv(sh->m, sh->tile), panels_b = gemm__cuda_cdiv(sh->n, sh->tile);
        sim_problem(&s, la == sh->m * sh->k && lb == sh->k * sh->n, "in core, a panel crosses more than once", -1);
        sim_problem(&s, pa <= gemm__cuda_min64(sh->m, sh->tile) * sh->k && pb <= gemm__cuda_min64(sh->n, sh->tile) * sh->k &&
                            panels_a * panels_b >= 1,
                    "the first multiply waits for more than one panel of A and of B", -1);
    }
    if (s.problems == 0) battery_passed++;
    return 1;
}

static gemm__cuda_shape plan_shape(int64_t m, int64_t n, int64_t k, int ta, int tb, size_t ea, size_t ec, bool ab,
                                   bool lc, int64_t tile, size_t piece)
{
    gemm__cuda_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.m = m; sh.n = n; sh.k = k;
    sh.trans[0] = ta; sh.trans[1] = tb;
    sh.elem[0] = sh.elem[1] = ea;
    sh.elem[2] = ec;
    sh.reads_ab = ab;
    sh.loads_c = lc;
    sh.tile = tile;
    sh.piece_bytes = piece;
    return sh;
}

/* ---- several devices: the pieces of C (no GPU needed) ---- */

/* Pieces of one plan: they tile C exactly (a grid: every element in one
   piece), none is empty, and no more devices than asked take one. */
static bool pieces_tile(int64_t m, int64_t n, int used, const gemm__cuda_piece *pc)
{
    int64_t area = 0;
    for (int i = 0; i < used; i++) {
        if (pc[i].rows <= 0 || pc[i].cols <= 0 || pc[i].row < 0 || pc[i].col < 0 || pc[i].row + pc[i].rows > m ||
            pc[i].col + pc[i].cols > n)
            return false;
        area += pc[i].rows * pc[i].cols;
        for (int j = 0; j < i; j++)
            if (pc[i].row < pc[j].row + pc[j].rows && pc[j].row < pc[i].row + pc[i].rows &&
                pc[i].col < pc[j].col + pc[j].cols && pc[j].col < pc[i].col + pc[i].cols)
                return false;
    }
    return area == m * n;
}

static void test_device_pieces(void)
{
    static const double equal[8] = {132, 132, 132, 132, 132, 132, 132, 132};
    static const double mixed[2] = {132, 66};
    gemm__cuda_piece pc[GEMM__CUDA_MAX_DEVICES];
    uint64_t st = 4242;
    int used, bad = 0, cases = 0;
    /* random shapes and device counts: an exact tiling, never more devices than asked */
    for (int t = 0; t < 3000; t++) {
        int64_t m = 1 + (int64_t)battery_below(&st, 40000), n = 1 + (int64_t)battery_below(&st, 40000);
        int64_t k = 1 + (int64_t)battery_below(&st, 20000);
        int d = 1 + (int)battery_below(&st, 8);
        if (!(t % 3) && d > 2) d = 2; /* mixed holds two weights */
        used = gemm__cuda_devices_plan(m, n, k, d, t % 3 ? equal : mixed, pc);
        cases++;
        if (used < 1 || used > d || !pieces_tile(m, n, used, pc)) {
            if (bad++ < 3) printf("  devices plan %lld x %lld x %lld on %d: %d pieces, not a tiling\n", (long long)m,
                                  (long long)n, (long long)k, d, used);
        }
    }
    battery_check(bad == 0, "cuda devices: %d random plans tile C exactly with at most the devices asked (%d bad)", cases, bad);
    /* 2 devices, square: two equal halves, cut on a multiple of 128 */
    used = gemm__cuda_devices_plan(32768, 32768, 32768, 2, equal, pc);
    battery_check(used == 2 && pc[0].rows * pc[0].cols == pc[1].rows * pc[1].cols && (pc[0].rows == 32768) != (pc[0].cols == 32768),
                  "cuda devices: 32768^3 on 2 devices: two halves (%lld x %lld, %lld x %lld)", (long long)pc[0].rows,
                  (long long)pc[0].cols, (long long)pc[1].rows, (long long)pc[1].cols);
    /* 4 devices, square: the 2 x 2 grid moves fewer bytes than 1 x 4 */
    used = gemm__cuda_devices_plan(16384, 16384, 16384, 4, equal, pc);
    battery_check(used == 4 && pc[0].rows == 8192 && pc[0].cols == 8192 && pc[3].row == 8192 && pc[3].col == 8192,
                  "cuda devices: 16384^3 on 4 devices: a 2 x 2 grid of 8192^2 pieces");
    /* a tall C is cut across its rows (each device reads half of op(A), all of op(B)) */
    used = gemm__cuda_devices_plan(65536, 1024, 4096, 2, equal, pc);
    battery_check(used == 2 && pc[0].cols == 1024 && pc[0].rows == 32768, "cuda devices: a tall C is cut across its rows");
    used = gemm__cuda_devices_plan(1024, 65536, 4096, 2, equal, pc);
    battery_check(used == 2 && pc[0].rows == 1024 && pc[0].cols == 32768, "cuda devices: a wide C is cut across its columns");
    /* devices that differ: bands in proportion, along the longer side */
    used = gemm__cuda_devices_plan(3000, 30000, 4096, 2, mixed, pc);
    battery_check(used == 2 && pc[0].rows == 3000 && pc[0].cols % 128 == 0 && fabs((double)pc[0].cols / 30000 - 2.0 / 3) < 0.01,
                  "cuda devices: SM counts 132 and 66 take 2/3 and 1/3 of the columns (%lld of 30000)", (long long)pc[0].cols);
    /* too small for a second device: one takes it all */
    used = gemm__cuda_devices_plan(512, 512, 512, 8, equal, pc);
    battery_check(used == 1 && pc[0].rows == 512 && pc[0].cols == 512, "cuda devices: 512^3 stays on one device");
    /* a thin C: only as many devices as bands of 128 fit */
    used = gemm__cuda_devices_plan(200, 100000, 100000, 4, equal, pc);
    battery_check(used == 4 && pc[0].rows == 200, "cuda devices: 200 x 100000 on 4 devices: four column bands");
    used = gemm__cuda_devices_plan(200, 300, 1000000, 4, equal, pc);
    battery_check(used == 2 && pieces_tile(200, 300, used, pc), "cuda devices: 200 x 300 x 10^6 on 4 devices: 2 (%d)", used);
    /* every grid the planner picks moves no more bytes than any other grid of the same devices */
    bad = 0;
    for (int t = 0; t < 500; t++) {
        int64_t m = 128 * (1 + (int64_t)battery_below(&st, 100)), n = 128 * (1 + (int64_t)battery_below(&st, 100));
        int d = 1 + (int)battery_below(&st, 8), gr, gc, r, c;
        double cost, best = -1;
        used = gemm__cuda_devices_plan(m, n, 1 << 20, d, equal, pc);
        gr = 0;
        for (int i = 0; i < used; i++) gr += pc[i].col == 0;
        gc = used / gr;
        cost = (double)gc * m + (double)gr * n;
        for (r = 1; r <= used; r++) {
            c = used / r;
            if (used % r || (r > 1 && m / r < 128) || (c > 1 && n / c < 128)) continue;
            if (best < 0 || (double)c * m + (double)r * n < best) best = (double)c * m + (double)r * n;
        }
        if (cost > best + 0.5) bad++;
    }
    battery_check(bad == 0, "cuda devices: the grid chosen moves the fewest bytes of all grids (%d worse)", bad);
}

static void test_plans(void)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {37, 29, 19}, {200, 150, 60}, {100, 300, 7}, {64, 64, 1000},
                                        {157, 129, 213}, {33, 700, 40}, {500, 31, 90}};
    static const size_t elems[][2] = {{4, 4}, {8, 8}, {2, 4}, {2, 2}};
    int orders[8] = {0}, si, v, bi, runs = 0;
    uint64_t state = 4242;
    for (si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++)
        for (v = 0; v < 8; v++) { /* each shape in 8 of the 48 ways (transposes x element types x what is read) */
            int ti = (int)battery_below(&state, 4), ei = (int)battery_below(&state, 4), fl = (int)battery_below(&state, 3);
            int64_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2], tile = v % 2 ? 32 : 64;
            bool ab = fl != 2, lc = fl == 1 || (fl == 2 && si % 2);
            gemm__cuda_shape sh = plan_shape(m, n, k, ti & 1, ti >> 1, elems[ei][0], elems[ei][1], ab, lc, tile,
                                             (size_t)(si % 3 + 1) * 6000);
            int64_t lda = (sh.trans[0] ? k : m) + si % 3, ldb = (sh.trans[1] ? n : k) + ti % 2;
            size_t whole = gemm__cuda_square_bytes(&sh, tile, gemm__cuda_square_group(&sh, tile));
            size_t budgets[5] = {(size_t)1 << 40, whole, whole / 2, whole / 5, 30000};
            for (bi = 0; bi < 5; bi++) runs += plan_case(&sh, budgets[bi], lda, ldb, orders);
        }
    battery_check(orders[GEMM__CUDA_SQUARE] > 0 && orders[GEMM__CUDA_BLOCK_A] > 0 && orders[GEMM__CUDA_BLOCK_B] > 0 &&
                      orders[GEMM__CUDA_KSPLIT] > 0,
                  "plans: %d run; every order taken (square %d, block-A %d, block-B %d, k-split %d)", runs,
                  orders[GEMM__CUDA_SQUARE], orders[GEMM__CUDA_BLOCK_A], orders[GEMM__CUDA_BLOCK_B], orders[GEMM__CUDA_KSPLIT]);
    {   /* the default tiles: n = 90000 fp32 in 74 GB keeps A and B (SQUARE); in 40 GB it keeps a block of A */
        gemm__cuda_shape sh = plan_shape(90000, 90000, 90000, 0, 0, 4, 4, true, false, 2048, (size_t)40 << 20);
        gemm__cuda_plan pl;
        bool big = gemm__cuda_plan_make(&pl, &sh, (size_t)74 << 30);
        int order_big = pl.order;
        bool capped = gemm__cuda_plan_make(&pl, &sh, (size_t)40 << 30);
        battery_check(big && order_big == GEMM__CUDA_SQUARE && capped &&
                          (pl.order == GEMM__CUDA_BLOCK_A || pl.order == GEMM__CUDA_BLOCK_B) && pl.bytes <= ((size_t)40 << 30),
                      "plans: fp32 n = 90000 is SQUARE in 74 GB (order %d), a block order in 40 GB (order %d, %zu bytes, "
                      "%d multiplies)", order_big, pl.order, pl.bytes, pl.multiplies);
        sh = plan_shape(1024, 1024, 1 << 20, 1, 0, 4, 4, true, false, 256, (size_t)4 << 20);
        battery_check(gemm__cuda_plan_make(&pl, &sh, (size_t)1 << 30) && pl.order == GEMM__CUDA_KSPLIT && pl.tm == 1024 &&
                          pl.tn == 1024 && pl.tk >= 16384 && pl.bytes <= ((size_t)1 << 30),
                      "plans: a long K streams past C held whole (order %d, C %lld x %lld, parts of K %lld)", pl.order,
                      (long long)pl.tm, (long long)pl.tn, (long long)pl.tk);
    }
}

/* ======================================================================
   2. The pipeline on a CPU stand-in for the device
   ====================================================================== */

/* Streams are threads running their work in order, each item after a
   random short delay; events count records and completions. */
struct fake_event {
    std::mutex mu;
    std::condition_variable cv;
    unsigned long long recorded = 0, completed = 0;
    double when = 0;
};
struct fake_stream {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::function<void()>> work;
    bool stop = false;
    std::thread th;
};

static void fake_jitter(void)
{
    static thread_local uint64_t state = (uint64_t)(uintptr_t)&state;
    uint64_t r = battery_next(&state);
    if (r % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds((long)(r >> 8) % 40));
    else if (r % 3 == 1) std::this_thread::yield();
}

static void fake_stream_main(fake_stream *s)
{
    for (;;) {
        std::function<void()> f;
        {
            std::unique_lock<std::mutex> lk(s->mu);
            s->cv.wait(lk, [s] { return s->stop || !s->work.empty(); });
            if (s->work.empty()) return;
            f = s->work.front();
        }
        fake_jitter();
        f();
        {
            std::lock_guard<std::mutex> lk(s->mu);
            s->work.pop_front();
        }
    }
}

static std::atomic<long> fake_multiplies;
/* Failures injected into the stand-in: the Nth copy, multiply or event
   wait from now fails (0: none). */
static std::atomic<long> fake_fail_copy, fake_fail_multiply, fake_fail_sync;
static bool fake_trip(std::atomic<long> &at)
{
    return at.load() > 0 && at.fetch_sub(1) == 1;
}
static const battery_backend plain_backend = {}; /* the battery's default tolerance */

template <typename T, typename TC, typename S> static void fake_gemm(const gemm__problem &p, const gemm__cuda_operands<T, TC, S> &x)
{
    int64_t i, j, l;
    for (j = 0; j < p.n; j++)
        for (i = 0; i < p.m; i++) {
            double sum = 0;
            TC *c = x.c + i + j * p.ldc;
            for (l = 0; l < p.k && p.work == GEMM__WORK_FULL; l++)
                sum += (double)x.a[i * p.ars + l * p.acs] * (double)x.b[l * p.brs + j * p.bcs];
            *c = (TC)((double)x.alpha * sum + (x.beta == S(0) ? 0.0 : (double)x.beta * (double)*c));
        }
}

struct fake_dev {
    typedef fake_stream *stream;
    typedef fake_event *event;
    static void enqueue(stream s, std::function<void()> f)
    {
        std::lock_guard<std::mutex> lk(s->mu);
        s->work.push_back(f);
        s->cv.notify_one();
    }
    static cudaError_t stream_create(stream *s)
    {
        *s = new fake_stream;
        (*s)->th = std::thread(fake_stream_main, *s);
        return cudaSuccess;
    }
    static void stream_destroy(stream s)
    {
        {
            std::lock_guard<std::mutex> lk(s->mu);
            s->stop = true;
            s->cv.notify_all();
        }
        s->th.join();
        delete s;
    }
    static cudaError_t event_create(event *e)
    {
        *e = new fake_event;
        return cudaSuccess;
    }
    static void event_destroy(event e) { delete e; }
    static cudaError_t host_alloc(void **p, size_t bytes) { return (*p = malloc(bytes)) ? cudaSuccess : cudaErrorMemoryAllocation; }
    static void host_free(void *p) { free(p); }
    static void set_device(int) {}
    static cudaError_t copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows, stream s)
    {
        if (fake_trip(fake_fail_copy)) return cudaErrorInvalidValue;
        enqueue(s, [=] {
            for (size_t r = 0; r < rows; r++) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
        });
        return cudaSuccess;
    }
    static cudaError_t record(event e, stream s)
    {
        unsigned long long g;
        {
            std::lock_guard<std::mutex> lk(e->mu);
            g = ++e->recorded;
        }
        enqueue(s, [e, g] {
            std::lock_guard<std::mutex> lk(e->mu); /* notified under the lock: a waiter may free the event next */
            if (g > e->completed) e->completed = g;
            e->when = gemm__cuda_now();
            e->cv.notify_all();
        });
        return cudaSuccess;
    }
    static cudaError_t wait(stream s, event e)
    {
        unsigned long long g;
        {
            std::lock_guard<std::mutex> lk(e->mu);
            g = e->recorded;
        }
        enqueue(s, [e, g] {
            std::unique_lock<std::mutex> lk(e->mu);
            e->cv.wait(lk, [e, g] { return e->completed >= g; });
        });
        return cudaSuccess;
    }
    static cudaError_t sync_event(void *v)
    {
        event e = (event)v;
        std::unique_lock<std::mutex> lk(e->mu);
        unsigned long long g = e->recorded;
        e->cv.wait(lk, [e, g] { return e->completed >= g; });
        return fake_trip(fake_fail_sync) ? cudaErrorLaunchFailure : cudaSuccess;
    }
    static cudaError_t sync_stream(stream s)
    {
        fake_event e;
        record(&e, s);
        return sync_event(&e);
    }
    static cudaError_t elapsed(float *ms, event a, event b)
    {
        *ms = (float)((b->when - a->when) * 1e3);
        return cudaSuccess;
    }
    static gemm_status device_alloc(const char *, void **p, size_t bytes, int, stream)
    {
        *p = malloc(bytes ? bytes : 1);
        return *p ? GEMM_OK : GEMM_ERR_OUT_OF_MEMORY;
    }
    static void device_free(void *p, stream) { free(p); }
    static void device_trim(int) {}
    template <typename T, typename TC, typename S>
    static gemm_status multiply(const char *, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                const gemm_cuda_options *, stream s)
    {
        gemm__problem q = *p;
        gemm__cuda_operands<T, TC, S> y = x;
        if (fake_trip(fake_fail_multiply)) return gemm__fail(GEMM_ERR_DEVICE, "fake: a multiply failed");
        enqueue(s, [q, y] { fake_gemm(q, y); });
        fake_multiplies++;
        return GEMM_OK;
    }
};

static bool fake_failing; /* fake_case expects the injected failure, not a result */

/* One call through gemm__cuda_pipeline on the stand-in: the canonical
   problem and operands as gemm__cuda_call makes them, the shape as
   gemm__cuda_host makes it, then `tile`, `budget`, `z`, `threads`. */
template <typename T>
static void fake_case(gemm__cuda_context<fake_dev> *ctx, const battery_call *c, uint64_t seed, int threads, size_t z,
                      bool in_caller, int direct, int64_t tile, size_t budget)
{
    gemm_precision prec = sizeof(T) == 4 ? GEMM_F32 : GEMM_F64;
    int64_t arows = c->ta == GEMM_NO_TRANS ? c->m : c->k, acols = c->ta == GEMM_NO_TRANS ? c->k : c->m;
    int64_t brows = c->tb == GEMM_NO_TRANS ? c->k : c->n, bcols = c->tb == GEMM_NO_TRANS ? c->n : c->k;
    battery_buf A = battery_buf_new(prec, battery_extent(c->layout, arows, acols, c->lda));
    battery_buf B = battery_buf_new(prec, battery_extent(c->layout, brows, bcols, c->ldb));
    battery_buf C = battery_buf_new(prec, battery_extent(c->layout, c->m, c->n, c->ldc)), R;
    gemm_cuda_options opt;
    gemm__problem p = {};
    gemm__cuda_reach r;
    gemm__cuda_shape sh;
    gemm__cuda_plan pl;
    gemm_timing t = {};
    uint64_t state = seed;
    char desc[256];
    bool made = false;
    gemm_status s;
    double err = INFINITY;
    memset(&opt, 0, sizeof opt);
    memset(&r, 0, sizeof r);
    battery_fill(&A, &state);
    battery_fill(&B, &state);
    battery_fill(&C, &state);
    R = battery_buf_copy(&C);
    battery_invoke(NULL, prec, c, A.data, B.data, R.data);
    s = gemm__prepare("fake", c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha == 0, 1, c->lda, 1, c->ldb,
                      c->beta == 1, 1, c->ldc, &p);
    if (s == GEMM_OK && p.work != GEMM__WORK_NONE) {
        const T *a = (const T *)(p.swapped ? B.data : A.data), *b = (const T *)(p.swapped ? A.data : B.data);
        gemm__cuda_operands<T, T, T> x = {a, b, (T *)C.data, (T)c->alpha, (T)c->beta};
        int64_t ld[3] = {p.lda, p.ldb, p.ldc};
        r.direct[0] = direct & 1;
        r.direct[1] = (direct >> 1) & 1;
        r.direct[2] = (direct >> 2) & 1;
        gemm__cuda_host_shape(&p, x, &opt, &r, threads, z, &sh);
        sh.tile = tile;
        made = gemm__cuda_plan_make(&pl, &sh, budget);
        if (made) {
            char *buf = (char *)malloc(pl.bytes ? pl.bytes : 1);
            s = gemm__cuda_pipeline<fake_dev>("fake", ctx, &sh, &pl, x, ld, r.direct, &opt, threads, z, in_caller, buf, &t);
            free(buf);
        }
    }
    if (fake_failing) {
        battery_check(made && s != GEMM_OK && ctx->workers.queue.empty() && ctx->workers.waiting.empty(),
                      "pipeline (CPU stand-in): an injected failure (copy %ld, multiply %ld, event wait %ld to go) "
                      "returns an error, every copy job drained: status %d (%s), queued %zu + %zu",
                      fake_fail_copy.load(), fake_fail_multiply.load(), fake_fail_sync.load(), (int)s,
                      s ? gemm_last_error_detail() : "ok", ctx->workers.queue.size(), ctx->workers.waiting.size());
        fake_fail_copy = fake_fail_multiply = fake_fail_sync = 0;
    } else {
        if (s == GEMM_OK) err = battery_compare(c, &C, &R);
        battery_check(made && s == GEMM_OK && err <= battery_bound(&plain_backend, prec, c, 0.5, 0.5, 0.5) * 4,
                  "pipeline (CPU stand-in) %s %s threads=%d z=%zu in_caller=%d direct=%d tile=%lld budget=%zu order=%d: "
                  "status %d (%s) err %.3g",
                  sizeof(T) == 4 ? "f32" : "f64", battery_call_str(c, desc, sizeof desc), threads, z, (int)in_caller,
                  direct, (long long)tile, budget, made ? pl.order : -1, (int)s, s ? gemm_last_error_detail() : "ok", err);
        battery_check(s != GEMM_OK || (t.compute_s >= 0 && t.to_device_s >= 0 && t.from_device_s >= 0),
                      "pipeline (CPU stand-in): the timing parts are not negative (%g %g %g)", t.to_device_s, t.compute_s,
                      t.from_device_s);
    }
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C);
    battery_buf_free(&R);
}

static void test_fake_pipeline(void)
{
    int threads, i, n = small_run ? 40 : 160;
    uint64_t state = battery_base_seed() ^ 0x5eedull;
    for (threads = 1; threads <= 3; threads++) {
        cudaError_t e = cudaSuccess;
        gemm__cuda_context<fake_dev> *ctx = gemm__cuda_context_create<fake_dev>(0, &e);
        for (i = 0; i < n / 3; i++) {
            static const size_t zs[] = {64, 200, 1000, 4096, 65536};
            static const int64_t tiles[] = {16, 32, 64};
            battery_call c;
            int64_t max = 130;
            size_t z = zs[battery_below(&state, 5)], budget;
            int64_t tile = tiles[battery_below(&state, 3)];
            c.layout = battery_layouts[battery_below(&state, 2)];
            c.ta = battery_transposes[battery_below(&state, 2)];
            c.tb = battery_transposes[battery_below(&state, 2)];
            c.m = 1 + battery_below(&state, max);
            c.n = 1 + battery_below(&state, max);
            c.k = battery_below(&state, 5) == 0 ? 0 : 1 + battery_below(&state, max);
            c.alpha = battery_below(&state, 6) == 0 ? 0.0 : 1.25;
            c.beta = battery_below(&state, 2) ? 0.0 : -0.5;
            battery_min_lds(&c);
            if (battery_below(&state, 2)) { c.lda += 3; c.ldb += 1; c.ldc += 2; }
            budget = battery_below(&state, 3) == 0 ? (size_t)1 << 30 : (size_t)(90000 + battery_below(&state, 200000));
            if (battery_below(&state, 2))
                fake_case<float>(ctx, &c, battery_next(&state), threads, z, battery_below(&state, 4) == 0,
                                 (int)battery_below(&state, 8), tile, budget);
            else
                fake_case<double>(ctx, &c, battery_next(&state), threads, z, battery_below(&state, 4) == 0,
                                  (int)battery_below(&state, 8), tile, budget);
        }
        gemm__cuda_context_destroy(ctx);
    }
}

/* Failures injected at the first few copies, multiplies and event waits
   (the copy threads' among them) of calls with many staged pieces: each
   call returns an error without hanging, leaves no copy job behind, and
   the same context then runs a call right. */
static void test_fake_failures(void)
{
    uint64_t state = battery_base_seed() ^ 0xfa11ull;
    int threads, kind, at;
    for (threads = 1; threads <= 3; threads += 2) {
        cudaError_t e = cudaSuccess;
        gemm__cuda_context<fake_dev> *ctx = gemm__cuda_context_create<fake_dev>(0, &e);
        for (kind = 0; kind < 3; kind++)
            for (at = 1; at <= 7; at += 3) {
                battery_call c;
                int direct = (int)battery_below(&state, 2) * 4; /* C staged or straight */
                c.layout = GEMM_COL_MAJOR;
                c.ta = battery_transposes[battery_below(&state, 2)];
                c.tb = GEMM_NO_TRANS;
                c.m = 90 + battery_below(&state, 40);
                c.n = 90 + battery_below(&state, 40);
                c.k = 90 + battery_below(&state, 40);
                c.alpha = 1.25;
                c.beta = -0.5;
                battery_min_lds(&c);
                (kind == 0 ? fake_fail_copy : kind == 1 ? fake_fail_multiply : fake_fail_sync) = at;
                fake_failing = true;
                fake_case<double>(ctx, &c, battery_next(&state), threads, 1000, false, direct, 32, (size_t)200000);
                fake_failing = false;
                fake_case<double>(ctx, &c, battery_next(&state), threads, 1000, false, direct, 32, (size_t)200000);
            }
        gemm__cuda_context_destroy(ctx);
    }
}

/* ======================================================================
   3. On a GPU
   ====================================================================== */

/* A battery adapter for the host calls: the options, the test hooks set
   around each call (tile, chunk bytes), and where the operands live: 0 the
   battery's pageable buffers, 1 page-locked copies (cudaHostAlloc), 2
   device copies (cudaMalloc). Each call's order and direct operands are
   counted. */
typedef struct host_ctx {
    gemm_cuda_options opt;
    int memory, tile;
    size_t chunk;
} host_ctx;

static int orders_seen[8], direct_seen[8];

static size_t extent_of(gemm_layout layout, int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1) ld = 1;
    return battery_extent(layout == GEMM_COL_MAJOR ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR, rows, cols, ld);
}

static void cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    printf("FAIL %s: %s\n", what, cudaGetErrorString(e));
    battery_failed++;
    exit(battery_summary());
}

static void *copy_to(int memory, const void *src, size_t bytes)
{
    void *p = NULL;
    if (!src) return NULL;
    cuda_ok(memory == 1 ? cudaHostAlloc(&p, bytes ? bytes : 16, cudaHostAllocDefault) : cudaMalloc(&p, bytes ? bytes : 16),
            "allocating the test's operand copies");
    if (bytes) cuda_ok(cudaMemcpy(p, src, bytes, cudaMemcpyDefault), "copying the test's operands");
    return p;
}

static void release_copy(int memory, void *p)
{
    if (p) cuda_ok(memory == 1 ? cudaFreeHost(p) : cudaFree(p), "freeing the test's operand copies");
}

template <typename T>
static gemm_status run_host(void *vctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                            int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc)
{
    host_ctx *ctx = (host_ctx *)vctx;
    bool nt_a = ta != GEMM_TRANS, nt_b = tb != GEMM_TRANS;
    size_t na = extent_of(layout, nt_a ? m : k, nt_a ? k : m, lda) * sizeof(T);
    size_t nb = extent_of(layout, nt_b ? k : n, nt_b ? n : k, ldb) * sizeof(T);
    size_t nc = extent_of(layout, m, n, ldc) * sizeof(T);
    const T *a = A, *b = B;
    T *c = C;
    gemm_status s;
    gemm__test_hooks()->cuda_host_tile = ctx->tile;
    gemm__test_hooks()->cuda_host_chunk_bytes = ctx->chunk;
    if (ctx->memory) {
        a = (const T *)copy_to(ctx->memory, A, na);
        b = (const T *)copy_to(ctx->memory, B, nb);
        c = (T *)copy_to(ctx->memory, C, nc);
    }
    gemm__cuda_host_last[0] = -1;
    s = sizeof(T) == 4 ? gemm_cuda_sgemm_host(layout, ta, tb, m, n, k, (float)alpha, (const float *)a, lda, (const float *)b,
                                              ldb, (float)beta, (float *)c, ldc, &ctx->opt)
                       : gemm_cuda_dgemm_host(layout, ta, tb, m, n, k, (double)alpha, (const double *)a, lda,
                                              (const double *)b, ldb, (double)beta, (double *)c, ldc, &ctx->opt);
    if (s == GEMM_OK && gemm__cuda_host_last[0] >= 0) {
        orders_seen[gemm__cuda_host_last[0] & 7]++;
        direct_seen[gemm__cuda_host_last[1] & 7]++;
    }
    if (ctx->memory) {
        if (C && nc) cuda_ok(cudaMemcpy(C, c, nc, cudaMemcpyDefault), "copying C back");
        release_copy(ctx->memory, (void *)a);
        release_copy(ctx->memory, (void *)b);
        release_copy(ctx->memory, c);
    }
    gemm__test_hooks()->cuda_host_tile = 0;
    gemm__test_hooks()->cuda_host_chunk_bytes = 0;
    return s;
}

static gemm_status host_s(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                          int64_t ldc)
{
    return run_host<float>(ctx, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status host_d(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const double *A, int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                          int64_t ldc)
{
    return run_host<double>(ctx, l, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static battery_backend host_backend(const char *name, host_ctx *ctx)
{
    battery_backend be;
    memset(&be, 0, sizeof be);
    be.name = name;
    be.sgemm = host_s;
    be.dgemm = host_d;
    be.ctx = ctx;
    return be;
}

static host_ctx host_config(gemm_cuda_mode mode, int memory, size_t cap, int tile, size_t chunk, int threads)
{
    host_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.opt.mode = mode;
    ctx.opt.max_device_bytes = cap;
    ctx.opt.host_threads = threads;
    ctx.memory = memory;
    ctx.tile = tile;
    ctx.chunk = chunk;
    return ctx;
}

/* The battery through one configuration. */
static void battery_host(const char *name, gemm_cuda_mode mode, int memory, size_t cap, int tile, size_t chunk, int threads,
                         int cases, int max_dim)
{
    host_ctx ctx = host_config(mode, memory, cap, tile, chunk, threads);
    battery_backend be = host_backend(name, &ctx);
    be.cases = cases;
    be.max_dim = max_dim;
    battery_run(&be);
}

/* Shapes past the battery's 300, each in core, with a cap of a third of
   the operands (a block order), and with 200 KB (small tiles, split K). */
static void test_larger(void)
{
    static const int64_t big[][3] = {{600, 500, 400}, {129, 1031, 777}, {2049, 63, 517}, {64, 64, 4099}};
    static const int64_t tiny[][3] = {{131, 67, 300}};
    const int64_t(*shapes)[3] = small_run ? tiny : big;
    int si, way, li, ai, bi, count = small_run ? 1 : 4;
    for (si = 0; si < count; si++)
        for (way = 0; way < 3; way++)
            for (li = 0; li < 2; li++)
                for (ai = 0; ai < 2; ai++)
                    for (bi = 0; bi < 2; bi++) {
                        int64_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
                        size_t operands = (size_t)(m * k + k * n + m * n) * 8;
                        host_ctx ctx = host_config(GEMM_CUDA_PAGEABLE, 0, way == 0 ? 0 : way == 1 ? operands / 3 : 200000,
                                                   way == 0 ? 0 : 64, way == 2 ? 3000 : 0, way + 1);
                        char name[64];
                        battery_backend be;
                        battery_call c;
                        snprintf(name, sizeof name, "cuda host %s", way == 0 ? "in core" : way == 1 ? "cap 1/3" : "cap 200 KB");
                        be = host_backend(name, &ctx);
                        c.layout = battery_layouts[li];
                        c.ta = battery_transposes[ai];
                        c.tb = battery_transposes[bi];
                        c.m = m; c.n = n; c.k = k;
                        c.alpha = 0.75;
                        c.beta = (si + ai) % 2 ? -0.5 : 0.0;
                        battery_min_lds(&c);
                        if (bi) { c.lda += 3; c.ldb += 1; c.ldc += 5; }
                        if ((li + ai + bi + way) % 2) continue; /* half of the 8 layouts per way: all 8 over the ways */
                        battery_case(&be, GEMM_F32, &c, 1000u + (uint64_t)si);
                        battery_case(&be, GEMM_F64, &c, 2000u + (uint64_t)si);
                    }
}

/* beta = 0 with NaN everywhere in C, out of core: no NaN survives. */
static void test_nan_out_of_core(void)
{
    int64_t m = small_run ? 150 : 700, n = small_run ? 120 : 600, k = small_run ? 90 : 500, i;
    double *A = (double *)malloc(sizeof(double) * (size_t)(m * k)), *B = (double *)malloc(sizeof(double) * (size_t)(k * n));
    double *C = (double *)malloc(sizeof(double) * (size_t)(m * n)), *R = (double *)malloc(sizeof(double) * (size_t)(m * n));
    double err = 0;
    uint64_t st = 77;
    gemm_cuda_options o;
    gemm_status s;
    memset(&o, 0, sizeof o);
    o.max_device_bytes = (size_t)(m * k + k * n + m * n) * 8 / 4;
    for (i = 0; i < m * k; i++) A[i] = battery_uniform(&st);
    for (i = 0; i < k * n; i++) B[i] = battery_uniform(&st);
    for (i = 0; i < m * n; i++) C[i] = R[i] = i % 3 ? NAN : INFINITY;
    gemm__cuda_host_last[0] = -1;
    s = gemm_cuda_dgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0, A, k, B, n, 0.0, C, n, &o);
    gemm_ref_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0, A, k, B, n, 0.0, R, n);
    for (i = 0; i < m * n && s == GEMM_OK; i++) err = fabs(C[i] - R[i]) > err || C[i] != C[i] ? fabs(C[i] - R[i]) : err;
    battery_check(s == GEMM_OK && err <= 2 * DBL_EPSILON * (double)k * 0.25 && gemm__cuda_host_last[0] >= GEMM__CUDA_BLOCK_A,
                  "cuda host: beta = 0 clears NaN and Inf in C out of core (order %d, err %.3g, status %d %s)",
                  gemm__cuda_host_last[0], err, (int)s, s ? gemm_last_error_detail() : "");
    free(A); free(B); free(C); free(R);
}

/* A value exactly representable in FP16 and TF32 (a multiple of 1/64 in
   [-1, 1)): products and fp32 sums of them are exact here. */
static float exact_value(uint64_t *st) { return (float)((int)battery_below(st, 128) - 64) / 64.0f; }

/* FP16 inputs and TF32 through the host path, cut into tiles. */
static void test_tensor_cores_host(void)
{
    static const int64_t shapes[][3] = {{77, 513, 64}, {300, 200, 150}};
    int si, kind;
    for (si = 0; si < (small_run ? 1 : 2); si++)
        for (kind = 0; kind < 2; kind++) {
            int64_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2], i, j, p;
            float *A = (float *)malloc(sizeof(float) * (size_t)(m * k)), *B = (float *)malloc(sizeof(float) * (size_t)(k * n));
            float *C = (float *)malloc(sizeof(float) * (size_t)(m * n));
            __half *hA = (__half *)malloc(sizeof(__half) * (size_t)(m * k)), *hB = (__half *)malloc(sizeof(__half) * (size_t)(k * n));
            double err = 0;
            uint64_t st = 11 + (uint64_t)si;
            gemm_cuda_options o;
            gemm_status s;
            memset(&o, 0, sizeof o); /* no cap: the tensor-core modes reserve tens of MB for their copies and sums */
            for (i = 0; i < m * k; i++) hA[i] = __float2half(A[i] = exact_value(&st));
            for (i = 0; i < k * n; i++) hB[i] = __float2half(B[i] = exact_value(&st));
            for (i = 0; i < m * n; i++) C[i] = exact_value(&st);
            gemm__test_hooks()->cuda_host_tile = 32;
            if (kind == 0) {
                s = gemm_cuda_sgemm_mixed_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, m, n, k, 1.0f, hA, GEMM_F16, k, hB,
                                               GEMM_F16, k, 0.5f, C, GEMM_F32, n, &o);
            } else {
                o.math = GEMM_CUDA_MATH_TF32;
                s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, m, n, k, 1.0f, A, k, B, k, 0.5f, C, n, &o);
            }
            gemm__test_hooks()->cuda_host_tile = 0;
            st = 11 + (uint64_t)si;
            for (i = 0; i < m * k; i++) exact_value(&st);
            for (i = 0; i < k * n; i++) exact_value(&st);
            for (i = 0; i < m && s == GEMM_OK; i++)
                for (j = 0; j < n; j++) {
                    double sum = 0.5 * exact_value(&st);
                    for (p = 0; p < k; p++) sum += (double)A[i * k + p] * (double)B[j * k + p];
                    if (!(fabs(C[i * n + j] - sum) <= err)) err = fabs(C[i * n + j] - sum);
                }
            battery_check(s == GEMM_OK && err == 0, "cuda host %s m=%lld n=%lld k=%lld in tiles of 32: "
                          "exact inputs give the exact result (err %.3g, status %d %s)", kind ? "tf32" : "fp16",
                          (long long)m, (long long)n, (long long)k, err, (int)s, s ? gemm_last_error_detail() : "");
            free(A); free(B); free(C); free(hA); free(hB);
        }
}

static void test_refusals(void)
{
    enum { N = 128 }; /* operands of 192 KB: past the zero-copy size, so the cap applies */
    float *A = (float *)malloc(sizeof(float) * N * N * 4), *B = A + N * N, *C = B + N * N, *before = C + N * N;
    gemm_cuda_options o;
    gemm_status s;
    int i;
    if (!A) { fprintf(stderr, "test_cuda_host: out of memory\n"); exit(2); }
    for (i = 0; i < N * N; i++) A[i] = B[i] = C[i] = before[i] = (float)(i % 7);
    memset(&o, 0, sizeof o);
    o.max_device_bytes = 600; /* no tile of 32 fits in 600 bytes */
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1, A, N, B, N, 0, C, N, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "max_device_bytes") &&
                      !memcmp(C, before, sizeof(float) * N * N),
                  "cuda host: a cap too small for any tile is refused, C unchanged: %d \"%s\"", (int)s, gemm_last_error_detail());
    memset(&o, 0, sizeof o);
    o.host_threads = -1;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, A, 8, B, 8, 0, C, 8, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "host_threads") &&
                      !memcmp(C, before, sizeof(float) * N * N),
                  "cuda host: options.host_threads < 0 is refused, C unchanged");
    memset(&o, 0, sizeof o);
    o.mode = (gemm_cuda_mode)7;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, A, 8, B, 8, 0, C, 8, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "options.mode") &&
                      !memcmp(C, before, sizeof(float) * N * N),
                  "cuda host: an unknown mode is refused, C unchanged");
    memset(&o, 0, sizeof o);
    o.device = 999;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, A, 8, B, 8, 0, C, 8, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && !memcmp(C, before, sizeof(float) * N * N),
                  "cuda host: a device past the last is refused");
    free(A);
}

/* The timing: every part >= 0, the kernels' part > 0, parts adding up to total_s. */
static void test_timing(void)
{
    int64_t n = small_run ? 200 : 1500, i;
    float *A = (float *)malloc(sizeof(float) * (size_t)(n * n)), *C = (float *)malloc(sizeof(float) * (size_t)(n * n));
    int mode;
    uint64_t st = 5;
    for (i = 0; i < n * n; i++) A[i] = (float)battery_uniform(&st);
    for (mode = 0; mode < 4; mode++) {
        gemm_cuda_options o;
        gemm_timing t;
        gemm_status s;
        double sum;
        memset(&o, 0, sizeof o);
        memset(&t, 0xff, sizeof t);
        o.mode = (gemm_cuda_mode)(mode % 3);
        o.max_device_bytes = mode == 3 ? (size_t)(n * n) * 4 : 0; /* out of core */
        o.timing = &t;
        s = gemm_cuda_sgemm_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1, A, n, A, n, 0, C, n, &o);
        sum = t.setup_s + t.to_device_s + t.compute_s + t.from_device_s;
        battery_check(s == GEMM_OK && t.setup_s >= 0 && t.to_device_s >= 0 && t.compute_s > 0 && t.from_device_s >= 0 &&
                          fabs(sum - t.total_s) <= 1e-6 + 1e-3 * t.total_s && t.distribute_s == 0 && t.total_s < 30,
                      "cuda host timing, mode %d%s: setup %.3f h2d %.3f kernels %.3f d2h %.3f total %.3f ms", mode % 3,
                      mode == 3 ? " out of core" : "", t.setup_s * 1e3, t.to_device_s * 1e3, t.compute_s * 1e3,
                      t.from_device_s * 1e3, t.total_s * 1e3);
    }
    free(A);
    free(C);
}

/* Two host threads calling at once (each its own shapes and options). */
static void test_threads(void)
{
    std::atomic<int> wrong(0), done(0);
    auto worker = [&](int id) {
        uint64_t st = 1000 + (uint64_t)id;
        int call;
        for (call = 0; call < (small_run ? 2 : 10); call++) {
            int64_t m = 1 + battery_below(&st, 300), n = 1 + battery_below(&st, 300), k = 1 + battery_below(&st, 300), i;
            std::vector<double> A((size_t)(m * k)), B((size_t)(k * n)), C((size_t)(m * n)), R;
            gemm_cuda_options o;
            memset(&o, 0, sizeof o);
            o.mode = (gemm_cuda_mode)battery_below(&st, 3);
            o.max_device_bytes = call % 2 ? 200000 : 0;
            o.host_threads = 1 + id;
            for (i = 0; i < m * k; i++) A[(size_t)i] = battery_uniform(&st);
            for (i = 0; i < k * n; i++) B[(size_t)i] = battery_uniform(&st);
            for (i = 0; i < m * n; i++) C[(size_t)i] = battery_uniform(&st);
            R = C;
            if (gemm_cuda_dgemm_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 0.5, A.data(), m, B.data(), k,
                                     -1.0, C.data(), m, &o) != GEMM_OK)
                wrong++;
            gemm_ref_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 0.5, A.data(), m, B.data(), k, -1.0,
                           R.data(), m);
            for (i = 0; i < m * n; i++)
                if (!(fabs(C[(size_t)i] - R[(size_t)i]) <= 4 * DBL_EPSILON * (double)k)) {
                    wrong++;
                    break;
                }
            done++;
        }
    };
    std::thread t1(worker, 0), t2(worker, 1);
    t1.join();
    t2.join();
    battery_check(wrong.load() == 0, "cuda host: two host threads at once, %d calls, %d wrong", done.load(), wrong.load());
}

/* gemm_cuda_release_scratch between calls: what it hands back is made again. */
static void test_release(void)
{
    int round;
    for (round = 0; round < 3; round++) {
        host_ctx ctx = host_config(GEMM_CUDA_PAGEABLE, 0, round == 1 ? 300000 : 0, 0, 0, 2);
        battery_backend be = host_backend("cuda host after release_scratch", &ctx);
        battery_call c;
        gemm_status s;
        c.layout = GEMM_ROW_MAJOR; c.ta = GEMM_NO_TRANS; c.tb = GEMM_TRANS;
        c.m = 400; c.n = 333; c.k = 250; c.alpha = 1; c.beta = 0.25;
        battery_min_lds(&c);
        battery_case(&be, GEMM_F64, &c, 31u + (uint64_t)round);
        s = gemm_cuda_release_scratch();
        battery_check(s == GEMM_OK, "cuda host: gemm_cuda_release_scratch after a host call: %d", (int)s);
    }
}

/* Several devices: the battery with every device taking a piece of even
   small products (the hook lowers the flops a device needs), refusals of
   bad device lists, and a call no device can plan leaving C untouched. */
static void test_devices(int count)
{
    enum { N = 384 }; /* two column bands of 192: every device takes a piece */
    float *A = (float *)malloc(sizeof(float) * N * N * 4), *B = A + N * N, *C = B + N * N, *before = C + N * N;
    int list[3] = {0, 0, 0};
    gemm_cuda_options o;
    gemm_status s;
    host_ctx ctx = host_config(GEMM_CUDA_PAGEABLE, 0, 0, 0, 0, 0);
    battery_backend be;
    if (!A) { fprintf(stderr, "test_cuda_host: out of memory\n"); exit(2); }
    for (int i = 0; i < N * N; i++) A[i] = B[i] = C[i] = before[i] = (float)(i % 7);
    gemm__test_hooks()->cuda_device_flops = 1;
    ctx.opt.device_count = GEMM_CUDA_ALL_DEVICES;
    be = host_backend(count > 1 ? "cuda host, every device" : "cuda host, every device (one here)", &ctx);
    be.cases = small_run ? 4 : 30;
    be.max_dim = small_run ? 64 : 300;
    battery_run(&be);
    ctx.opt.max_device_bytes = 200000; /* out of core on each device */
    be = host_backend("cuda host, every device, 200 KB each", &ctx);
    be.cases = small_run ? 2 : 12;
    be.max_dim = small_run ? 64 : 300;
    battery_run(&be);
    memset(&o, 0, sizeof o);
    o.device_count = GEMM_CUDA_ALL_DEVICES;
    o.max_device_bytes = 600; /* no device can plan: refused before any piece is written */
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1, A, N, B, N, 0, C, N, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && !memcmp(C, before, sizeof(float) * N * N),
                  "cuda host, every device: a cap no device can plan under is refused, C unchanged: %d \"%s\"", (int)s,
                  gemm_last_error_detail());
    if (count > 1) { /* the second device cannot plan: the first must not write its piece either */
        memset(&o, 0, sizeof o);
        o.device_count = 2;
        gemm__test_hooks()->cuda_device_refuse = 2;
        s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1, A, N, B, N, 0, C, N, &o);
        gemm__test_hooks()->cuda_device_refuse = 0;
        battery_check(s == GEMM_ERR_OUT_OF_MEMORY && strstr(gemm_last_error_detail(), "device 1") &&
                          !memcmp(C, before, sizeof(float) * N * N),
                      "cuda host, 2 devices: the second cannot plan, C unchanged, the detail names it: \"%s\"",
                      gemm_last_error_detail());
    }
    gemm__test_hooks()->cuda_device_flops = 0;
    memset(&o, 0, sizeof o);
    o.device_count = count + 1;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1, A, N, B, N, 0, C, N, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "devices") &&
                      !memcmp(C, before, sizeof(float) * N * N),
                  "cuda host: device_count past the devices there are is refused: \"%s\"", gemm_last_error_detail());
    o.device_count = 2;
    o.devices = list; /* device 0 twice */
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1, A, N, B, N, 0, C, N, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "both device") &&
                      !memcmp(C, before, sizeof(float) * N * N),
                  "cuda host: a device listed twice is refused: \"%s\"", gemm_last_error_detail());
    list[1] = -3;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1, A, N, B, N, 0, C, N, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "devices[1]"),
                  "cuda host: a negative device in the list is refused: \"%s\"", gemm_last_error_detail());
    o.device_count = -2;
    s = gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1, A, N, B, N, 0, C, N, &o);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "device_count"),
                  "cuda host: device_count = -2 is refused");
    if (count > 1) { /* timing on two devices: the slowest device's parts, the call's total */
        int64_t n = small_run ? 600 : 3000;
        float *a = (float *)calloc((size_t)(n * n * 3), sizeof(float));
        gemm_timing t;
        memset(&o, 0, sizeof o);
        o.device_count = 2;
        o.timing = &t;
        s = a ? gemm_cuda_sgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1, a, n, a + n * n, n, 0,
                                     a + 2 * n * n, n, &o)
              : GEMM_ERR_OUT_OF_MEMORY;
        battery_check(s == GEMM_OK && t.compute_s > 0 && t.total_s >= t.compute_s && t.setup_s >= 0,
                      "cuda host, 2 devices: timing filled (total %.4f s, compute %.4f s)", t.total_s, t.compute_s);
        free(a);
    }
    free(A);
}

static void test_gpu(void)
{
    int cases = small_run ? 2 : 25, max_dim = small_run ? 48 : 300;
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("device: %s (compute capability %d.%d, %d SMs); host threads %u\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, std::thread::hardware_concurrency());
    test_refusals();
    test_timing();
    battery_host("cuda host default", GEMM_CUDA_PAGEABLE, 0, 0, 0, 0, 0, small_run ? cases : 40, max_dim);
    battery_host("cuda host cap 96 KB, tiles of 32", GEMM_CUDA_PAGEABLE, 0, 98304, 32, 2048, 2, cases, max_dim);
    battery_host("cuda host page-locked memory, cap 400 KB", GEMM_CUDA_PINNED, 1, 409600, 64, 0, 0, cases, max_dim);
    if (!small_run) {
        battery_host("cuda host tiles of 32, 4 KB chunks", GEMM_CUDA_PAGEABLE, 0, 0, 32, 4096, 3, cases, max_dim);
        battery_host("cuda host mapped mode, page-locked memory", GEMM_CUDA_MAPPED, 1, 0, 0, 0, 0, 12, max_dim);
        battery_host("cuda host pinned mode", GEMM_CUDA_PINNED, 0, 0, 0, 0, 0, 12, max_dim);
        battery_host("cuda host mapped mode", GEMM_CUDA_MAPPED, 0, 0, 0, 0, 0, 12, max_dim);
        battery_host("cuda host mapped mode, cap 200 KB, tiles of 48", GEMM_CUDA_MAPPED, 0, 204800, 48, 0, 1, 20, max_dim);
        battery_host("cuda host device memory, cap 96 KB", GEMM_CUDA_PAGEABLE, 2, 98304, 32, 0, 0, 12, max_dim);
    }
    test_larger();
    test_nan_out_of_core();
    test_tensor_cores_host();
    test_threads();
    test_release();
    {
        int count = 0;
        cudaGetDeviceCount(&count);
        test_devices(count);
    }
    battery_check(orders_seen[0] > 0 && orders_seen[GEMM__CUDA_SQUARE] > 0 && direct_seen[0] > 0 && direct_seen[7] > 0 &&
                      (small_run ? orders_seen[GEMM__CUDA_BLOCK_A] + orders_seen[GEMM__CUDA_BLOCK_B] > 0
                                 : orders_seen[GEMM__CUDA_BLOCK_A] > 0 && orders_seen[GEMM__CUDA_BLOCK_B] > 0 &&
                                       orders_seen[GEMM__CUDA_KSPLIT] > 0),
                  "cuda host: every way was taken: zero-copy %d, square %d, block-A %d, block-B %d, k-split %d; all "
                  "staged %d, all direct %d", orders_seen[0], orders_seen[GEMM__CUDA_SQUARE], orders_seen[GEMM__CUDA_BLOCK_A],
                  orders_seen[GEMM__CUDA_BLOCK_B], orders_seen[GEMM__CUDA_KSPLIT], direct_seen[0], direct_seen[7]);
}

/* ======================================================================
   C overlapping A or B, on the CPU: the host calls (one device, several,
   the mixed types) and the device-pointer calls refuse it before any CUDA
   call, so these run without a GPU; blocks side by side in one array pass
   the check (on a GPU they are computed; without one a CUDA error comes).
   ====================================================================== */

/* One refused call: the status, the detail naming the matrices, C as it was. */
static void overlap_refused(const char *what, gemm_status s, const char *names, const void *x, const void *keep,
                            size_t bytes)
{
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), names) && !memcmp(x, keep, bytes),
                  "cuda overlap: %s is refused, C untouched -> %d \"%s\"", what, (int)s, gemm_last_error_detail());
}

static void test_overlaps(void)
{
    enum { S = 16, L = 2 * S };
    static float X[L * L], keep[L * L], B[S * S];
    static double D[L * L], keepd[L * L], BD[S * S];
    gemm_cuda_options o;
    gemm_status s;
    uint64_t st = 41;
    int i;
    for (i = 0; i < L * L; i++) X[i] = (float)battery_uniform(&st), D[i] = X[i];
    for (i = 0; i < S * S; i++) B[i] = (float)battery_uniform(&st), BD[i] = B[i];
    memcpy(keep, X, sizeof X);
    memcpy(keepd, D, sizeof D);
    memset(&o, 0, sizeof o);

    s = gemm_cuda_sgemm_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1, X, S, B, S, 0, X, S, NULL);
    overlap_refused("gemm_cuda_sgemm_host, C == A", s, "C overlaps A", X, keep, sizeof X);
    s = gemm_cuda_dgemm_host(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, 1, BD, S, D + 3, L, 1, D + 5 * L, L,
                             NULL);
    overlap_refused("gemm_cuda_dgemm_host, row-major C over B's rows", s, "C overlaps B", D, keepd, sizeof D);
    o.device_count = 2;
    s = gemm_cuda_sgemm_host(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, S, S, S, 1, X, L, B, S, 0.5f, X + 7, L, &o);
    overlap_refused("gemm_cuda_sgemm_host on 2 devices, C inside A^T", s, "C overlaps A", X, keep, sizeof X);
    o.device_count = 0;
    /* F16 A and B, F32 C: C's floats over A's halves, compared byte by byte */
    s = gemm_cuda_sgemm_mixed_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1, B, GEMM_F16, S,
                                   X + S * S / 2, GEMM_F16, S, 0, X + S * S / 2 - 1, GEMM_F32, S, NULL);
    overlap_refused("gemm_cuda_sgemm_mixed_host, F32 C over F16 B", s, "C overlaps B", X, keep, sizeof X);
    /* device pointers: one address space, compared the same way */
    s = gemm_cuda_sgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1, B, S, X, S, 0, X + S, S, NULL);
    overlap_refused("gemm_cuda_sgemm, C one column past B's start", s, "C overlaps B", X, keep, sizeof X);
    s = gemm_cuda_sgemm_mixed(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1, X, GEMM_BF16, S, B,
                              GEMM_BF16, S, 0, X, GEMM_BF16, S, NULL);
    overlap_refused("gemm_cuda_sgemm_mixed, BF16 C == A", s, "C overlaps A", X, keep, sizeof X);
    s = gemm_cuda_dgemm(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1, D, L, D + S * L, L, 1, D + S * L,
                        L, NULL);
    overlap_refused("gemm_cuda_dgemm, C == B", s, "C overlaps B", D, keepd, sizeof D);

    /* not refused: A is not read (alpha = 0), or the blocks share no element */
    s = gemm_cuda_sgemm_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 0, X, L, B, S, 1, X, L, NULL);
    battery_check(s == GEMM_OK, "cuda overlap: C == A with alpha = 0, beta = 1 (nothing to do) -> %d \"%s\"", (int)s,
                  gemm_last_error_detail());
    s = gemm_cuda_dgemm_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, -1, D + S, L, D + S * L, L, 1,
                             D + S + S * L, L, NULL);
    battery_check(!strstr(gemm_last_error_detail(), "overlaps"),
                  "cuda overlap: a blocked LU's A22 -= A21 * A12 in one array is not refused as an overlap -> %d "
                  "\"%s\"", (int)s, gemm_last_error_detail());
    s = gemm_cuda_sgemm_mixed_host(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1, B, GEMM_F16, S, X,
                                   GEMM_F16, S, 0, X + S * S / 2, GEMM_F32, S, NULL);
    battery_check(!strstr(gemm_last_error_detail(), "overlaps"),
                  "cuda overlap: F32 C right after F16 B in one array is not refused -> %d \"%s\"", (int)s,
                  gemm_last_error_detail());
}

int main(int argc, char **argv)
{
    int count = 0;
    small_run = getenv("GEMM_CUDA_TEST_SMALL") != NULL;
    {
        double t0 = gemm__cuda_now(), t1;
        test_plans();
        test_device_pieces();
        t1 = gemm__cuda_now();
        test_fake_pipeline();
        test_fake_failures();
        test_overlaps();
        printf("== plans (%.1f s) and the pipeline on the CPU (%.1f s): %d passed, %d failed\n", t1 - t0,
               gemm__cuda_now() - t1, battery_passed, battery_failed);
    }
    if (argc > 1 && !strcmp(argv[1], "--plans")) return battery_summary();
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        battery_skip("test_cuda_host on a GPU", "no CUDA device here");
        return battery_summary();
    }
    test_gpu();
    return battery_summary();
}
