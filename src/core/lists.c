/* Member lists: how a pointer-array batch's checks read its members'
   addresses. A backend reads a list through a gemm__batch_addr_fn; a list
   of plain pointers (host or device addresses, any element type: what
   every backend passes but OpenCL, whose lists hold buffer offsets) reads
   through gemm__pointer_list_addr, which the scans below recognise and
   read as the array it is, with no call a member. A call through a
   function pointer costs about as much as the comparison it feeds, and a
   batch's checks read each list three to five times: on a grouped call of
   1,000 small members the calls were 10-30 microseconds, more than the
   GPU's work. */
#pragma once

#include <stdint.h>
#include "internal.h" /* gemm__batch_addr_fn */

/* The address of member i of a list of pointers (0 for NULL). */
static uint64_t gemm__pointer_list_addr(const void *list, int64_t i)
{
    return (uint64_t)(uintptr_t)((const void *const *)list)[i];
}

/* The lowest and the highest of `count` members' addresses (UINT64_MAX
   and 0 for none). */
static void gemm__list_range(const void *list, gemm__batch_addr_fn addr, int64_t count, uint64_t *lo, uint64_t *hi)
{
    uint64_t l = UINT64_MAX, h = 0;
    int64_t i;
    if (addr == gemm__pointer_list_addr) { /* two running pairs: half the chain of compares */
        const void *const *p = (const void *const *)list;
        uint64_t l1 = UINT64_MAX, h1 = 0;
        for (i = 0; i + 2 <= count; i += 2) {
            uint64_t x = (uint64_t)(uintptr_t)p[i], y = (uint64_t)(uintptr_t)p[i + 1];
            l = x < l ? x : l;
            h = x > h ? x : h;
            l1 = y < l1 ? y : l1;
            h1 = y > h1 ? y : h1;
        }
        if (i < count) {
            uint64_t x = (uint64_t)(uintptr_t)p[i];
            l = x < l ? x : l;
            h = x > h ? x : h;
        }
        l = l1 < l ? l1 : l;
        h = h1 > h ? h1 : h;
    } else
        for (i = 0; i < count; i++) {
            uint64_t x = addr(list, i);
            l = x < l ? x : l;
            h = x > h ? x : h;
        }
    *lo = l;
    *hi = h;
}

/* The first of `count` members whose address is 0 (NULL), or count when
   none is. */
static int64_t gemm__list_first_null(const void *list, gemm__batch_addr_fn addr, int64_t count)
{
    int64_t i;
    if (addr == gemm__pointer_list_addr) {
        const void *const *p = (const void *const *)list;
        for (i = 0; i + 4 <= count; i += 4) /* four a test (a tenth faster), then one by one */
            if (!p[i] || !p[i + 1] || !p[i + 2] || !p[i + 3]) break;
        for (; i < count; i++)
            if (!p[i]) return i;
    } else
        for (i = 0; i < count; i++)
            if (!addr(list, i)) return i;
    return count;
}

/* Whether the members' addresses step all up or all down, each at least
   `bytes` from the one before: members that far apart never share a
   byte of their first `bytes`, seen in one pass. */
static int gemm__list_spaced(const void *list, gemm__batch_addr_fn addr, int64_t count, uint64_t bytes)
{
    int up = 1, down = 1;
    int64_t i;
    if (addr == gemm__pointer_list_addr) {
        const void *const *p = (const void *const *)list;
        for (i = 1; i < count; i++) { /* no early exit: the loop vectorises */
            uint64_t x = (uint64_t)(uintptr_t)p[i - 1], y = (uint64_t)(uintptr_t)p[i];
            up &= y >= x && y - x >= bytes;
            down &= x >= y && x - y >= bytes;
        }
    } else
        for (i = 1; i < count && (up || down); i++) {
            uint64_t x = addr(list, i - 1), y = addr(list, i);
            up = up && y >= x && y - x >= bytes;
            down = down && x >= y && x - y >= bytes;
        }
    return up || down;
}
