/* Which parameter set a device starts with: a line of the tuning file for
   it, else of the built-in table, else the generic default. */

/* Any other device: modest tiles through local memory, fine on most GPUs. */
static const char gemm__cl_generic[] = "MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=2 VWN=2 SA=1 SB=1 PACK=1 DIRECT=64";
/* The fallback when a set fails to build or to check: the plainest kernel the template makes. */
static const char gemm__cl_safe[] = "MWG=8 NWG=8 KWG=1 MDIMC=8 NDIMC=8 VWM=1 VWN=1 SA=0 SB=0 PACK=0 DIRECT=32";

static const char *gemm__cl_prec_prefix(gemm_precision prec) { return prec == GEMM_F64 ? "f64 " : "f32 "; }

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

/* The parameter set for (device, prec), and where it came from (origin). */
static void gemm__cl_lookup(const char *tuning_file, const char *device, gemm_precision prec, gemm_cl_params *p,
                            char *origin, size_t size)
{
    char line[512], key[256];
    size_t i;
    FILE *f = tuning_file[0] ? fopen(tuning_file, "r") : NULL;
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        if (gemm__cl_line_match(line, prec, device, p, key, sizeof key)) {
            snprintf(origin, size, "tuning file %.100s", tuning_file);
            found = 1;
        }
    if (f) fclose(f);
    for (i = 0; !found && i < sizeof gemm__cl_builtin / sizeof gemm__cl_builtin[0]; i++)
        if (gemm__cl_line_match(gemm__cl_builtin[i], prec, device, p, key, sizeof key)) {
            snprintf(origin, size, "built-in: %.100s", key);
            found = 1;
        }
    if (!found) {
        gemm__cl_params_parse(gemm__cl_generic, p);
        snprintf(origin, size, "default");
    }
}
