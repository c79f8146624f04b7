/* bench/openblas_coretype.h - OpenBLAS's kernel for the CPU benchmarks.

   Debian's OpenBLAS 0.3.21 picks its kernel from OPENBLAS_CORETYPE when it
   is set, else from the CPU, which it misjudges on newer Xeons (Prescott,
   SSE3). A bench calls openblas_coretype_set() before OpenBLAS loads: it
   sets OpenBLAS's best kernel for this CPU (SkylakeX with AVX-512,
   Haswell with AVX2), overriding a preset value (some machines export
   OPENBLAS_CORETYPE=Haswell on AVX-512 CPUs), and keeps what was preset
   in BENCH_PRESET_CORETYPE, which survives a re-exec, so that
   openblas_coretype_note() can say it in the header. */
#ifndef BENCH_OPENBLAS_CORETYPE_H
#define BENCH_OPENBLAS_CORETYPE_H

#include <stdlib.h>
#include <string.h>

static void openblas_coretype_set(void)
{
    const char *want = NULL, *preset = getenv("OPENBLAS_CORETYPE");
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) want = "SkylakeX";
    else if (__builtin_cpu_supports("avx2")) want = "Haswell";
#endif
    if (!want) return;
    if (preset && strcmp(preset, want) != 0 && !getenv("BENCH_PRESET_CORETYPE"))
        setenv("BENCH_PRESET_CORETYPE", preset, 1);
    setenv("OPENBLAS_CORETYPE", want, 1);
}

/* "" or, when a different preset was overridden, a note saying so. */
static const char *openblas_coretype_note(void)
{
    static char note[160];
    const char *preset = getenv("BENCH_PRESET_CORETYPE");
    if (!preset) return "";
    snprintf(note, sizeof note, " (OPENBLAS_CORETYPE=%.60s was preset; overridden with %.30s)", preset,
             getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "?");
    return note;
}

#endif
