/* The host path's plan: a host-pointer call cut into loads (panels of A and
   B; pieces of C when beta != 0), multiplies (pieces of C) and stores
   (pieces of C), in the order the pipeline issues them, and the device
   memory each uses. Pure host code: the tests check plans on the CPU.

   The orders, from the first that fits the device memory the call may
   take (options.max_device_bytes, else most of what is free):
     - K-SPLIT for one tile of C with a long K (m, n <= the tile): C stays
       on the device while the parts of A and B stream past it once.
     - SQUARE (in core): A and B stay on the device as their panels arrive;
       C in pieces, computed shell by shell of a growing square (panel s of
       A, then of B, then the pieces of C that need them), so the first
       multiply waits only for one panel of each and every panel crosses
       the link once. A piece's store runs behind the next multiplies.
     - BLOCK-A / BLOCK-B (out of core): the largest block of A's rows (or
       B's columns) that fits stays, the other operand streams past it
       panel by panel, C in pieces; the operand whose repeats move fewer
       bytes is the one kept. When all of it fits, every byte crosses once.
     - K-SPLIT with smaller tiles when not even one panel of full K fits:
       tiles of C summed over parts of K, every panel streamed. */
#pragma once
#include <stdint.h>
#include <string.h>
#include <vector>

enum { GEMM__CUDA_LOAD = 0, GEMM__CUDA_MULTIPLY = 1, GEMM__CUDA_STORE = 2 };
enum { GEMM__CUDA_SQUARE = 1, GEMM__CUDA_BLOCK_A = 2, GEMM__CUDA_BLOCK_B = 3, GEMM__CUDA_KSPLIT = 4 };

/* The smallest tile the plans cut: smaller pieces would drown in launches. */
#define GEMM__CUDA_MIN_TILE 32
/* The most multiplies a plan may have (else the call is refused). */
#define GEMM__CUDA_MAX_MULTIPLIES (1 << 22)

/* What the plan needs of a call (operands 0 = a, 1 = b, 2 = c, after the
   row-major swap): sizes, whether each is stored transposed, bytes per
   element, which are read, the tile, and the most bytes a piece of C may
   have (its store goes through that much staging). */
typedef struct gemm__cuda_shape {
    int64_t m, n, k;
    int trans[3];
    size_t elem[3];
    bool reads_ab, loads_c, tc; /* tc: the tensor-core modes may copy operands into scratch */
    int64_t tile;
    size_t piece_bytes;
} gemm__cuda_shape;

/* Where an operand's rectangle lives on the device: slot `slot` holds the
   operand's rectangle whose top-left element is (r0, c0), stored as the
   operand is stored, with leading dimension ld. slot -1: nowhere. */
typedef struct gemm__cuda_area {
    int slot;
    int64_t r0, c0, ld;
} gemm__cuda_area;

/* One step. LOAD and STORE move the rectangle rows [r0, r1) x columns
   [c0, c1) of operand `which` (a: m x k, b: k x n, c: m x n) into or out
   of at[which]. MULTIPLY computes C's rows [r0, r1) x columns [c0, c1)
   over K's [p0, p1) from at[0], at[1] into at[2] (beta where p0 == 0,
   else 1; `chain`: it adds to the previous multiply's result). `after`:
   for a LOAD of a or b, the multiply (counted among multiplies) that last
   read the memory it overwrites; for a LOAD of c and a MULTIPLY, the
   store (counted among stores) that last read its C slot; -1 for none. */
typedef struct gemm__cuda_op {
    int kind, which;
    int64_t r0, r1, c0, c1, p0, p1;
    gemm__cuda_area at[3];
    int after;
    bool chain;
} gemm__cuda_op;

typedef struct gemm__cuda_plan {
    int order;
    int64_t tm, tn, tk; /* the largest piece of C, and the part of K a multiply takes */
    std::vector<gemm__cuda_op> ops;
    std::vector<size_t> slot_offset, slot_bytes;
    size_t bytes; /* the one device buffer all slots live in */
    int multiplies, stores;
    std::vector<int> last_reader, last_store; /* per slot, while planning */
    int ring[3][4], ring_size[3], ring_next[3];  /* the rotating slots of each operand */
} gemm__cuda_plan;

static int64_t gemm__cuda_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t gemm__cuda_min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* A leading dimension for `rows` stored rows: a multiple of 128 bytes, so
   the kernels' 16-byte copies apply whatever the caller's ld. */
static int64_t gemm__cuda_ld(int64_t rows, size_t elem)
{
    int64_t unit = (int64_t)(128 / elem);
    return gemm__cuda_cdiv(rows > 1 ? rows : 1, unit) * unit;
}

/* Bytes of operand `which`'s rows x columns rectangle stored compactly. */
static size_t gemm__cuda_area_bytes(const gemm__cuda_shape *sh, int which, int64_t rows, int64_t cols)
{
    int64_t srows = sh->trans[which] ? cols : rows, scols = sh->trans[which] ? rows : cols;
    if (rows <= 0 || cols <= 0) return 0;
    return (size_t)gemm__cuda_ld(srows, sh->elem[which]) * (size_t)scols * sh->elem[which];
}

static gemm__cuda_area gemm__cuda_area_of(const gemm__cuda_shape *sh, int which, int slot, int64_t r0, int64_t c0,
                                          int64_t rows, int64_t cols)
{
    gemm__cuda_area a;
    a.slot = slot;
    a.r0 = r0;
    a.c0 = c0;
    a.ld = gemm__cuda_ld(sh->trans[which] ? cols : rows, sh->elem[which]);
    return a;
}

/* A new slot of `bytes` (256-byte aligned); returns its index. */
static int gemm__cuda_slot(gemm__cuda_plan *pl, size_t bytes)
{
    size_t at = (pl->bytes + 255) / 256 * 256;
    pl->slot_offset.push_back(at);
    pl->slot_bytes.push_back(bytes);
    pl->last_reader.push_back(-1);
    pl->last_store.push_back(-1);
    pl->bytes = at + bytes;
    return (int)pl->slot_offset.size() - 1;
}

/* `count` rotating slots of `bytes` for operand `which`. */
static void gemm__cuda_ring(gemm__cuda_plan *pl, int which, int count, size_t bytes)
{
    int i;
    for (i = 0; i < count; i++) pl->ring[which][i] = gemm__cuda_slot(pl, bytes);
    pl->ring_size[which] = count;
    pl->ring_next[which] = 0;
}

static int gemm__cuda_ring_take(gemm__cuda_plan *pl, int which)
{
    int s = pl->ring[which][pl->ring_next[which]];
    pl->ring_next[which] = (pl->ring_next[which] + 1) % pl->ring_size[which];
    return s;
}

static void gemm__cuda_plan_op(gemm__cuda_plan *pl, int kind, int which, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                               int after)
{
    gemm__cuda_op o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.which = which;
    o.r0 = r0; o.r1 = r1; o.c0 = c0; o.c1 = c1;
    o.after = after;
    o.at[0].slot = o.at[1].slot = o.at[2].slot = -1;
    pl->ops.push_back(o);
}

static void gemm__cuda_plan_load(gemm__cuda_plan *pl, int which, const gemm__cuda_area *at, int64_t r0, int64_t r1,
                                 int64_t c0, int64_t c1, int after)
{
    gemm__cuda_plan_op(pl, GEMM__CUDA_LOAD, which, r0, r1, c0, c1, after);
    pl->ops.back().at[which] = *at;
}

static void gemm__cuda_plan_multiply(gemm__cuda_plan *pl, int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t p0,
                                     int64_t p1, const gemm__cuda_area *a, const gemm__cuda_area *b,
                                     const gemm__cuda_area *c, int after, bool chain)
{
    gemm__cuda_op *o;
    gemm__cuda_plan_op(pl, GEMM__CUDA_MULTIPLY, 2, r0, r1, c0, c1, after);
    o = &pl->ops.back();
    o->p0 = p0;
    o->p1 = p1;
    o->at[0] = *a;
    o->at[1] = *b;
    o->at[2] = *c;
    o->chain = chain;
    if (a->slot >= 0) pl->last_reader[a->slot] = pl->multiplies;
    if (b->slot >= 0) pl->last_reader[b->slot] = pl->multiplies;
    pl->multiplies++;
}

static void gemm__cuda_plan_store(gemm__cuda_plan *pl, const gemm__cuda_area *c, int64_t r0, int64_t r1, int64_t c0,
                                  int64_t c1)
{
    gemm__cuda_plan_op(pl, GEMM__CUDA_STORE, 2, r0, r1, c0, c1, -1);
    pl->ops.back().at[2] = *c;
    pl->last_store[c->slot] = pl->stores++;
}

/* A piece of C with all of K: into the next C slot (its C loaded first when
   beta != 0), multiplied, stored. */
static void gemm__cuda_plan_piece(gemm__cuda_plan *pl, const gemm__cuda_shape *sh, int64_t r0, int64_t r1, int64_t c0,
                                  int64_t c1, const gemm__cuda_area *a, const gemm__cuda_area *b)
{
    int slot = gemm__cuda_ring_take(pl, 2);
    gemm__cuda_area c = gemm__cuda_area_of(sh, 2, slot, r0, c0, r1 - r0, c1 - c0);
    if (sh->loads_c) gemm__cuda_plan_load(pl, 2, &c, r0, r1, c0, c1, pl->last_store[slot]);
    gemm__cuda_plan_multiply(pl, r0, r1, c0, c1, 0, sh->k, a, b, &c, sh->loads_c ? -1 : pl->last_store[slot], false);
    gemm__cuda_plan_store(pl, &c, r0, r1, c0, c1);
}
