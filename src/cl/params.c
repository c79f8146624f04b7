/* Parameter sets: the one list of their names, the text form of tuning
   files, and the checks that a set can run on a device.

   The kernel template (gemm.cl), after Matsumoto, Nakasato and Sedukhin's
   OpenCL GEMM generator, is specialised by a set prepended as #defines: the
   work-group tile MWG x NWG x KWG; the work-items MDIMC x NDIMC, so each
   computes an MWI x NWI block of C in registers (MWI = MWG/MDIMC, NWI =
   NWG/NDIMC); vector widths VWM and VWN; whether A and B go through local
   memory (SA, SB: the next tile is fetched into registers while this one is
   multiplied, and DB keeps two local tiles so one barrier per step
   suffices); the layout of the packed operands (PACK: k-major rows, or one
   contiguous panel per tile); how a warp's 32 work-items lie (WARPM); and a
   register cap (REGS, a build option on NVIDIA). DIRECT and SMALL are the
   host's: when the direct and the small-tile kernels run instead (run.c). */
#pragma once

#include <stddef.h> /* offsetof */
#include <stdio.h>
#include <stdlib.h> /* atoi */
#include <string.h>

#include "internal.h"

/* The fields of gemm_cl_params in tuning-file order, with their names and
   what they are: a #define of the kernel source, a build option (REGS), or
   the host's own (DIRECT, the crossover, and SMALL, the batches' small
   kernel: not part of the program). Fields
   added later are optional: a line without them means 0. */
typedef enum gemm__cl_field_kind { GEMM__CL_HOST = 0, GEMM__CL_DEFINE = 1, GEMM__CL_OPTION = 2 } gemm__cl_field_kind;

typedef struct gemm__cl_field {
    const char *name;
    size_t offset;
    gemm__cl_field_kind kind;
    int optional;
} gemm__cl_field;

static const gemm__cl_field gemm__cl_fields[] = {
    {"MWG", offsetof(gemm_cl_params, mwg), GEMM__CL_DEFINE, 0},
    {"NWG", offsetof(gemm_cl_params, nwg), GEMM__CL_DEFINE, 0},
    {"KWG", offsetof(gemm_cl_params, kwg), GEMM__CL_DEFINE, 0},
    {"MDIMC", offsetof(gemm_cl_params, mdimc), GEMM__CL_DEFINE, 0},
    {"NDIMC", offsetof(gemm_cl_params, ndimc), GEMM__CL_DEFINE, 0},
    {"VWM", offsetof(gemm_cl_params, vwm), GEMM__CL_DEFINE, 0},
    {"VWN", offsetof(gemm_cl_params, vwn), GEMM__CL_DEFINE, 0},
    {"SA", offsetof(gemm_cl_params, sa), GEMM__CL_DEFINE, 0},
    {"SB", offsetof(gemm_cl_params, sb), GEMM__CL_DEFINE, 0},
    {"PACK", offsetof(gemm_cl_params, pack), GEMM__CL_DEFINE, 0},
    {"DIRECT", offsetof(gemm_cl_params, direct), GEMM__CL_HOST, 0},
    {"DB", offsetof(gemm_cl_params, db), GEMM__CL_DEFINE, 1},
    {"WARPM", offsetof(gemm_cl_params, warpm), GEMM__CL_DEFINE, 1},
    {"REGS", offsetof(gemm_cl_params, regs), GEMM__CL_OPTION, 1},
    {"SMALL", offsetof(gemm_cl_params, small), GEMM__CL_HOST, 1},
};
#define GEMM__CL_NFIELDS (sizeof gemm__cl_fields / sizeof gemm__cl_fields[0])

static int gemm__cl_field_get(const gemm_cl_params *p, size_t i)
{
    return *(const int *)(const void *)((const char *)p + gemm__cl_fields[i].offset);
}

static void gemm__cl_field_set(gemm_cl_params *p, size_t i, int value)
{
    *(int *)(void *)((char *)p + gemm__cl_fields[i].offset) = value;
}

GEMM_DEF gemm_status gemm_cl_params_str(const gemm_cl_params *p, char *out, size_t size)
{
    size_t used = 0, i;
    gemm__clear_error();
    if (!p || !out || size == 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_params_str: NULL argument");
    out[0] = '\0';
    for (i = 0; i < GEMM__CL_NFIELDS && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s=%d", used ? " " : "", gemm__cl_fields[i].name,
                                 gemm__cl_field_get(p, i));
    return used < size ? GEMM_OK : gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cl_params_str: buffer too small");
}

/* The value of "NAME=value" in text, a token starting the text or after a space; 0 when absent. */
static int gemm__cl_token(const char *text, const char *name, int *value)
{
    const char *at = text;
    size_t len = strlen(name);
    while ((at = strstr(at, name)) != NULL) {
        if ((at == text || at[-1] == ' ') && at[len] == '=') {
            *value = atoi(at + len + 1);
            return 1;
        }
        at += len;
    }
    return 0;
}

/* Reads "NAME=value" tokens into p; returns 1 when every field but the
   optional ones was present (those missing are 0). */
static int gemm__cl_params_parse(const char *text, gemm_cl_params *p)
{
    size_t i;
    int ok = 1, v;
    for (i = 0; i < GEMM__CL_NFIELDS; i++) {
        if (gemm__cl_token(text, gemm__cl_fields[i].name, &v)) gemm__cl_field_set(p, i, v);
        else if (gemm__cl_fields[i].optional) gemm__cl_field_set(p, i, 0);
        else ok = 0;
    }
    return ok;
}

/* Do a and b make the same program? DIRECT and SMALL are not part of its identity. */
static int gemm__cl_same_program(const gemm_cl_params *a, const gemm_cl_params *b)
{
    size_t i;
    for (i = 0; i < GEMM__CL_NFIELDS; i++)
        if (gemm__cl_fields[i].kind != GEMM__CL_HOST && gemm__cl_field_get(a, i) != gemm__cl_field_get(b, i)) return 0;
    return 1;
}

/* The #define lines that specialise the kernel source for p. */
static void gemm__cl_params_defines(gemm_precision prec, const gemm_cl_params *p, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "#define PRECISION %d\n", prec == GEMM_F64 ? 64 : 32), i;
    for (i = 0; i < GEMM__CL_NFIELDS && used < size; i++)
        if (gemm__cl_fields[i].kind == GEMM__CL_DEFINE)
            used += (size_t)snprintf(out + used, size - used, "#define %s %d\n", gemm__cl_fields[i].name,
                                     gemm__cl_field_get(p, i));
}

/* The small kernel with T x T tiles (32, 64) runs on the device: (T/4)^2
   work-items, two local tiles of 16 x (T + 4) elements (gemm.cl). */
static int gemm__cl_small_fits(int tile, size_t max_wg, cl_ulong local_mem, size_t elem)
{
    return (size_t)(tile / 4) * (size_t)(tile / 4) <= max_wg && (cl_ulong)(2 * 16 * (tile + 4)) * elem <= local_mem;
}

static int gemm__cl_vector_width_ok(int v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16; }

/* Why a set cannot run on this device, or NULL when it can. */
static const char *gemm__cl_params_invalid(const gemm_cl_params *p, size_t max_wg, cl_ulong local_mem, size_t elem)
{
    if (p->mwg < 1 || p->nwg < 1 || p->kwg < 1 || p->mdimc < 1 || p->ndimc < 1 || p->direct < 0)
        return "a size is not positive";
    if (!gemm__cl_vector_width_ok(p->vwm) || !gemm__cl_vector_width_ok(p->vwn))
        return "vector widths must be 1, 2, 4, 8 or 16";
    if ((p->sa != 0 && p->sa != 1) || (p->sb != 0 && p->sb != 1) || (p->pack != 0 && p->pack != 1) ||
        (p->db != 0 && p->db != 1))
        return "SA, SB, PACK and DB are 0 or 1";
    /* the limits first: after them no product below can overflow an int */
    if (p->mwg > 1024 || p->nwg > 1024 || p->kwg > 256 || p->mdimc > p->mwg || p->ndimc > p->nwg)
        return "tiles too large or too few (MWG, NWG <= 1024, KWG <= 256, MDIMC <= MWG, NDIMC <= NWG)";
    if (p->mwg % (p->mdimc * p->vwm) || p->nwg % (p->ndimc * p->vwn))
        return "MWG must be a multiple of MDIMC*VWM and NWG of NDIMC*VWN";
    if ((p->mwg / p->mdimc) * (p->nwg / p->ndimc) > 512) return "tiles too large (MWI*NWI <= 512)";
    if ((size_t)p->mdimc * (size_t)p->ndimc > max_wg) return "MDIMC*NDIMC exceeds the device's work-group size";
    if (p->warpm != 0 && (!gemm__cl_vector_width_ok(p->warpm) || p->mdimc % p->warpm || p->ndimc % (32 / p->warpm)))
        return "WARPM must be 1, 2, 4, 8 or 16, divide MDIMC, and 32/WARPM divide NDIMC";
    if (p->regs != 0 && (p->regs < 16 || p->regs > 255)) return "REGS is 0 (the driver's choice) or 16..255";
    if (p->small != 0 && p->small != 1 && p->small != 32 && p->small != 64) return "SMALL is 0, 1, 32 or 64";
    if (p->small > 1 && !gemm__cl_small_fits(p->small, max_wg, local_mem, elem))
        return "SMALL's tile needs more work-items or local memory than the device has";
    if ((cl_ulong)((size_t)p->kwg * ((size_t)p->sa * (size_t)p->mwg + (size_t)p->sb * (size_t)p->nwg) * elem *
                   (size_t)(1 + p->db)) > local_mem)
        return "the local-memory tiles exceed the device's local memory";
    return NULL;
}
