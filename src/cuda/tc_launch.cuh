/* The tensor-core modes' launches: which kernel this device and build can
   run, the tensor maps of WGMMA's copy engine, the operand copies, the
   WGMMA tile height and K split, and the launches of WGMMA and MMA. */

/* Whether this build holds the sm_90a WGMMA code for device `dev`: read once
   per device from the module the runtime loaded for it. */
static bool gemm__cuda_wgmma_available(int dev, int major, int minor)
{
    static std::atomic<int> known[64]; /* 0: not asked yet, 1: no, 2: yes */
    int built = 0;
    if (major != 9 || minor != 0 || dev < 0 || dev >= 64) return false;
    if (known[dev].load() == 0)
        known[dev].store(cudaMemcpyFromSymbol(&built, gemm__cuda_wgmma_built, sizeof built) == cudaSuccess && built ? 2 : 1);
    return known[dev].load() == 2;
}

static gemm_cuda_kernel gemm__cuda_choose_tc(int dev, int major, int minor)
{
    if (gemm__cuda_wgmma_available(dev, major, minor)) return GEMM_CUDA_KERNEL_WGMMA;
    return major >= 8 ? GEMM_CUDA_KERNEL_MMA : GEMM_CUDA_KERNEL_NAIVE;
}

/* cuTensorMapEncodeTiled from the driver, found through the runtime so that
   nothing needs -lcuda. */
typedef CUresult (*gemm__cuda_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                         const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                         CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                         CUtensorMapFloatOOBfill);

template <typename T> static CUtensorMapDataType gemm__cuda_tma_type(void)
{
    return std::is_same<T, __half>::value          ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
           : std::is_same<T, __nv_bfloat16>::value ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/* A k-major operand the tensor-core kernels can read: X(r, q) at X[r*ld + q],
   16-byte aligned base and rows. */
template <typename T> struct gemm__cuda_kmajor {
    const T *X;
    int64_t ld;
};

static bool gemm__cuda_kmajor_ready(const void *X, int64_t ld, size_t elem, bool kmajor)
{
    return kmajor && (uintptr_t)X % 16 == 0 && (ld * (int64_t)elem) % 16 == 0;
}

/* An outer x inner matrix (rows of `inner` contiguous elements, ld apart)
   as a tensor map whose box is box_outer rows of 128 bytes, swizzled for
   wgmma. */
template <typename T>
static gemm_status gemm__cuda_tensor_map(const char *fn, CUtensorMap *map, const T *X, int64_t ld, int inner, int outer,
                                         int box_outer)
{
    static std::atomic<gemm__cuda_encode_fn> encode{NULL};
    cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer}, strides[1] = {(cuuint64_t)ld * sizeof(T)};
    cuuint32_t box[2] = {(cuuint32_t)(gemm__cuda_wgmma_shape<256>::ROW_BYTES / sizeof(T)), (cuuint32_t)box_outer},
               unit[2] = {1, 1};
    CUresult r;
    if (!encode.load()) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", e);
        if (q != cudaDriverEntryPointSuccess || !f)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the driver has no cuTensorMapEncodeTiled", fn);
        encode.store((gemm__cuda_encode_fn)f);
    }
    r = encode.load()(map, gemm__cuda_tma_type<T>(), 2, (void *)X, dims, strides, box, unit,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gemm__fail(GEMM_ERR_DEVICE, "%s: cuTensorMapEncodeTiled failed (CUresult %d)", fn, (int)r);
    return GEMM_OK;
}

/* Copies operand X (rows x K; k-major or not) into `out` as k-major rows of
   ldo elements. */
template <typename T>
static gemm_status gemm__cuda_pack(const char *fn, const T *X, int64_t ld, bool kmajor, int rows, int K, T *out,
                                   int64_t ldo, cudaStream_t stream)
{
    if (!kmajor && (uintptr_t)X % 16 == 0 && (ld * (int64_t)sizeof(T)) % 16 == 0) {
        dim3 grid((unsigned)((K + 63) / 64), (unsigned)((rows + 63) / 64));
        if (grid.y > 65535)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand copy", fn, rows);
        gemm__cuda_transpose_kernel<T><<<grid, 256, 0, stream>>>(rows, K, X, ld, out, ldo);
    } else {
        dim3 grid((unsigned)((K + 31) / 32), (unsigned)((rows + 31) / 32)), block(32, 8);
        if (grid.y > 65535)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand copy", fn, rows);
        gemm__cuda_pack_kernel<T><<<grid, block, 0, stream>>>(rows, K, X, ld, kmajor ? 1 : 0, out, ldo);
    }
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The WGMMA block height: options.variant 1 = 256, 2 = 128; automatic
   (0): 128 when K spans at most 16 slices of 128 bytes (K <= 1024 for
   16-bit types, 512 for TF32). There a block's fixed costs (first copies,
   epilogue) weigh more than its K loop, and two blocks per SM hide each
   other's; with longer K the 256-row tile's reuse wins (both measured on
   an H200). */
static int gemm__cuda_wgmma_bm(int K, int elem, int variant)
{
    if (variant == 1 || variant == 2) return variant == 1 ? 256 : 128;
    return ((int64_t)K * elem + 127) / 128 <= 16 ? 128 : 256;
}

/* How many parts the WGMMA kernel splits K into: options.split_k when set,
   else enough to give every SM a block when the tiles are fewer than the
   SMs, keeping at least 4 K tiles per part. */
static int gemm__cuda_wgmma_split(int BM, int M, int N, int K, int elem, int sms, int requested)
{
    int tiles = ((M + BM - 1) / BM) * ((N + 127) / 128), bk = 128 / elem;
    int ktiles = (K + bk - 1) / bk, split = requested > 0 ? requested : tiles < sms ? sms / tiles : 1;
    if (requested <= 0 && split > ktiles / 4) split = ktiles / 4;
    if (split > ktiles) split = ktiles;
    if (split > 64) split = 64;
    if (split < 1) return 1;
    return (ktiles + (ktiles + split - 1) / split - 1) / ((ktiles + split - 1) / split); /* no empty parts */
}

/* How one tensor-core call runs: its kernel; whether WGMMA reads a 16-bit
   op(A) M-major in place (a_mn); which operands are first copied into
   k-major rows of ldo elements; the WGMMA tile height and K split; and the
   scratch bytes of the copies (a's elements first) and of split-K's sums. */
typedef struct gemm__cuda_tc_plan {
    gemm_cuda_kernel kernel;
    bool a_mn, copy_a, copy_b;
    int wg_bm, split;
    int64_t ldo;
    size_t a_elems, b_elems, packed, partial_bytes;
} gemm__cuda_tc_plan;

template <typename T>
static gemm__cuda_tc_plan gemm__cuda_tc_plan_of(gemm_cuda_kernel kernel, const gemm__problem *p, const T *a,
                                                const T *b, const gemm_cuda_options *opt, int sms)
{
    gemm__cuda_tc_plan t;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, elem = (int)sizeof(T);
    bool ak = p->a_trans, bk = !p->b_trans; /* k-major operands */
    t.kernel = kernel;
    t.ldo = (K + 7) / 8 * 8; /* 16-byte rows for every element size */
    /* WGMMA reads a 16-bit op(A) M-major as well (wgmma's transposed B) */
    t.a_mn = kernel == GEMM_CUDA_KERNEL_WGMMA && elem == 2 && !ak && gemm__cuda_kmajor_ready(a, p->lda, elem, true);
    t.copy_a = !t.a_mn && !gemm__cuda_kmajor_ready(a, p->lda, elem, ak);
    t.copy_b = !gemm__cuda_kmajor_ready(b, p->ldb, elem, bk);
    t.wg_bm = gemm__cuda_wgmma_bm(K, elem, opt->variant);
    t.split = kernel == GEMM_CUDA_KERNEL_WGMMA ? gemm__cuda_wgmma_split(t.wg_bm, M, N, K, elem, sms, opt->split_k) : 1;
    t.a_elems = t.copy_a ? (size_t)M * t.ldo : 0;
    t.b_elems = t.copy_b ? (size_t)N * t.ldo : 0;
    t.packed = ((t.a_elems + t.b_elems) * sizeof(T) + 255) / 256 * 256;
    t.partial_bytes = t.split > 1 ? (size_t)t.split * M * N * sizeof(float) : 0;
    return t;
}

/* WGMMA with BM-row block tiles. a and b: the operands as the kernel reads
   them (x's own, or their k-major copies); a_mn (16-bit only): a is op(A)
   as stored, M-major (a.X(r, q) at a.X[q*a.ld + r]). With K split,
   `partial` holds split x M x N floats. */
template <typename T, typename TC, int BM>
static gemm_status gemm__cuda_launch_wgmma(const char *fn, const gemm__problem *p, const gemm__cuda_tc_plan *t,
                                           gemm__cuda_kmajor<T> a, gemm__cuda_kmajor<T> b,
                                           const gemm__cuda_operands<T, TC, float> &x, float *partial,
                                           cudaStream_t stream)
{
    typedef gemm__cuda_wgmma_shape<BM> S;
    CUtensorMap map_a, map_b;
    gemm_status s;
    void *kern = (void *)gemm__cuda_wgmma_kernel<T, TC, false, BM>;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, split = t->split;
    int tm = (M + S::BM - 1) / S::BM, tn = (N + S::BN - 1) / S::BN, bk = S::ROW_BYTES / (int)sizeof(T);
    int kt_per = ((K + bk - 1) / bk + split - 1) / split;
    float alpha = x.alpha, beta = x.beta;
    TC *C = x.c;
    int64_t ldc = p->ldc;
    void *args[] = {&map_a, &map_b, &M, &N, &K, &kt_per, &alpha, &beta, (void *)&C, &ldc, (void *)&partial};
    if (split <= 1) partial = NULL;
    if (tn > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for one launch", fn, N);
    if constexpr (sizeof(T) == 2)
        if (t->a_mn) kern = (void *)gemm__cuda_wgmma_kernel<T, TC, true, BM>;
    if ((s = t->a_mn ? gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, M, K, bk)
                     : gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, K, M, S::BM)) != GEMM_OK ||
        (s = gemm__cuda_tensor_map(fn, &map_b, b.X, b.ld, K, N, S::BN)) != GEMM_OK)
        return s;
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)tm, (unsigned)tn, (unsigned)split), dim3(S::THREADS), args,
                                        S::SMEM, stream));
    if (partial) {
        int64_t blocks = ((int64_t)M * N + 255) / 256;
        gemm__cuda_splitk_sum_kernel<TC><<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
            M, N, split, partial, alpha, beta, C, ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* MMA: 128x128 block tiles, BK 32, 3 stages (the kernel's constants). */
template <typename T, typename TC>
static gemm_status gemm__cuda_launch_mma(const char *fn, const gemm__problem *p, gemm__cuda_kmajor<T> a,
                                         gemm__cuda_kmajor<T> b, const gemm__cuda_operands<T, TC, float> &x,
                                         cudaStream_t stream)
{
    constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3, PAD = 16 / (int)sizeof(T);
    size_t smem = (size_t)STAGES * 2 * gemm__cuda_tile<BM, BK, PAD, true>::SIZE * sizeof(T);
    void *kern = (void *)gemm__cuda_mma_kernel<T, TC>;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN;
    float alpha = x.alpha, beta = x.beta;
    const T *A = a.X, *B = b.X;
    TC *C = x.c;
    int64_t ldc = p->ldc;
    void *args[] = {&M, &N, &K, &alpha, (void *)&A, &a.ld, (void *)&B, &b.ld, &beta, (void *)&C, &ldc};
    static_assert(BM == BN, "the shared-memory size above assumes square tiles");
    if (tn > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for one launch", fn, N);
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)tm, (unsigned)tn), dim3(256), args, smem, stream));
    return GEMM_OK;
}
