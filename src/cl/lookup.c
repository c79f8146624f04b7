/* Which parameter set a device starts with: the last line of the tuning file
   for it, else the last line of the built-in table for it, else the generic
   default. The last line wins, so a line appended later (by the tuner, or by
   hand) overrides the ones above it. */
#pragma once

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "params.c" /* gemm__cl_params_parse */
#include "source.h" /* gemm__cl_builtin */

/* Any other device: modest tiles through local memory, fine on most GPUs. */
static const char gemm__cl_generic[] = "MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=64";
/* The fallback when a set fails to build or to check: the plainest kernel the template makes. */
static const char gemm__cl_safe[] = "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=32";

/* A tuning file is a few lines: reading stops after this many bytes, so an
   endless or huge file (/dev/zero, a log given by mistake) cannot stall the
   first call, which holds the context's lock. */
#define GEMM__CL_TUNING_MAX_BYTES ((size_t)1 << 20)
/* Longer lines are no tuning lines: skipped. */
#define GEMM__CL_LINE_MAX 1024

static const char *gemm__cl_prec_prefix(gemm_precision prec) { return prec == GEMM_F64 ? "f64 " : "f32 "; }

/* Reads the next line of f (without its newline) into line; *budget counts
   the bytes left to read. Returns 0 at the end of the file or of the budget,
   -1 for a line to skip (too long, or with a NUL byte), else 1. */
static int gemm__cl_read_line(FILE *f, char line[GEMM__CL_LINE_MAX], size_t *budget)
{
    size_t len = 0;
    int c = EOF, ok = 1;
    while (*budget > 0 && (c = getc(f)) != EOF) {
        --*budget;
        if (c == '\n') break;
        if (c == '\0' || len + 1 >= GEMM__CL_LINE_MAX) ok = 0;
        else line[len++] = (char)c;
    }
    line[len] = '\0';
    if (c == '\n') return ok ? 1 : -1;
    return c == EOF && len > 0 && ok; /* a last line without its newline; a line cut by the budget is dropped */
}

/* Looks `device` up in one tuning line; returns 1 and fills p (and key, the
   line's device substring) on a match. */
static int gemm__cl_line_match(const char *line, gemm_precision prec, const char *device, gemm_cl_params *p,
                               char *key, size_t keysize)
{
    const char *dev = strstr(line, "device=");
    char name[256];
    size_t len;
    if (!dev || strncmp(line, gemm__cl_prec_prefix(prec), 4) != 0) return 0;
    dev += 7;
    len = strcspn(dev, "\r\n");
    if (len == 0 || len >= sizeof name) return 0;
    memcpy(name, dev, len);
    name[len] = '\0';
    if (!strstr(device, name) || !gemm__cl_params_parse(line, p)) return 0;
    snprintf(key, keysize, "%s", name);
    return 1;
}

/* The last line of the tuning file at path for (device, prec); its line
   number, or 0 when none matches (or the file cannot be read). */
static int gemm__cl_lookup_file(const char *path, const char *device, gemm_precision prec, gemm_cl_params *p)
{
    char line[GEMM__CL_LINE_MAX], key[256];
    size_t budget = GEMM__CL_TUNING_MAX_BYTES;
    gemm_cl_params q;
    FILE *f = path[0] ? fopen(path, "r") : NULL;
    int at = 0, found = 0, r;
    while (f && (r = gemm__cl_read_line(f, line, &budget)) != 0) {
        at++;
        if (r > 0 && gemm__cl_line_match(line, prec, device, &q, key, sizeof key)) {
            *p = q;
            found = at;
        }
    }
    if (f) fclose(f);
    return found;
}

/* The parameter set for (device, prec), and where it came from (origin). */
static void gemm__cl_lookup(const char *tuning_file, const char *device, gemm_precision prec, gemm_cl_params *p,
                            char *origin, size_t size)
{
    char key[256];
    size_t i;
    gemm_cl_params q;
    int line = gemm__cl_lookup_file(tuning_file, device, prec, p), builtin = 0;
    if (line > 0) {
        snprintf(origin, size, "tuning file %.90s, line %d", tuning_file, line);
        return;
    }
    for (i = 0; i < sizeof gemm__cl_builtin / sizeof gemm__cl_builtin[0]; i++)
        if (gemm__cl_line_match(gemm__cl_builtin[i], prec, device, &q, key, sizeof key)) {
            *p = q;
            builtin = 1;
            snprintf(origin, size, "built-in: %.100s", key);
        }
    if (!builtin) {
        gemm__cl_params_parse(gemm__cl_generic, p);
        snprintf(origin, size, "default");
    }
}
