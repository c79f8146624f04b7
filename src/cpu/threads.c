#define GEMM__CPU_MAX_THREADS 64 /* the pool's size limit */

static int gemm__cpu_threads_requested; /* by gemm_cpu_set_threads; 0 = automatic */

GEMM_DEF gemm_status gemm_cpu_set_threads(int threads)
{
    gemm__clear_error();
    if (threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cpu_set_threads: threads = %d is negative", threads);
    GEMM__CPU_STORE(gemm__cpu_threads_requested, threads);
    return GEMM_OK;
}

GEMM_DEF int gemm_cpu_get_threads(void)
{
#if !defined(GEMM__CPU_THREADS)
    return 1;
#else
    static long online; /* read once: sysconf reads a file, ~2 us, every call */
    const char *env;
    long n = GEMM__CPU_LOAD(gemm__cpu_threads_requested);
    if (n <= 0 && (env = getenv("GEMM_NUM_THREADS")) != NULL) n = atol(env);
    if (n <= 0 && (n = GEMM__CPU_LOAD(online)) == 0) {
#if defined(_SC_NPROCESSORS_ONLN)
        n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
        GEMM__CPU_STORE(online, n > 0 ? n : 1);
    }
    return n <= 0 ? 1 : n > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : (int)n;
#endif
}

/* The threads a call with these options may use, before the size of the
   problem has its say; options->threads is not negative here. */
static int gemm__cpu_threads_for_call(const gemm_cpu_options *options)
{
#if !defined(GEMM__CPU_THREADS)
    (void)options;
    return 1;
#else
    int n = options ? options->threads : 0;
    if (n == 0) return gemm_cpu_get_threads();
    return n > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : n;
#endif
}
