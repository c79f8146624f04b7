/* WGMMA: TF32, FP16 and BF16 on Hopper's tensor cores (sm_90a), fp32 sums.
   The copy engine (TMA) fills a ring of shared-memory stages that wgmma
   reads through descriptors; one producer thread issues the copies, two
   consumer warpgroups the wgmma; the epilogue goes through shared memory. */

/* The WGMMA kernel's shape: a block computes BM (M) x 128 (N) of C. Threads
   0-255 are two consumer warpgroups, each one m64nBM accumulator: wgmma's
   M is our N (64 columns of C each), its N our M, so a thread's
   neighbouring accumulators are neighbouring rows of column-major C. From
   thread 256 on the producer: one thread issues the copies of a
   128-byte-wide K slice of both operands per stage.
   BM = 256 (large problems): 4 stages, one block per SM, the producer a
   whole warpgroup so that setmaxnreg can move its registers to the
   consumers (128 accumulators each). BM = 128 (short K, small grids): 3
   stages and two blocks per SM, whose copies and epilogues overlap; the
   producer one warp (64 accumulators fit without setmaxnreg). */
template <int BM_> struct gemm__cuda_wgmma_shape {
    static constexpr int BM = BM_, BN = 128, ROW_BYTES = 128, STAGES = BM == 256 ? 4 : 3,
                         THREADS = BM == 256 ? 384 : 288, BLOCKS_PER_SM = BM == 256 ? 1 : 2,
                         REGS_PRODUCER = 40, REGS_CONSUMER = 232, /* setmaxnreg, BM = 256 only */
                         ACC = BM / 2, /* accumulators per consumer thread */
                         A_BYTES = BM * ROW_BYTES, B_BYTES = BN * ROW_BYTES, STAGE_BYTES = A_BYTES + B_BYTES,
                         SMEM = STAGES * STAGE_BYTES + 1024 /* alignment */ + 2 * STAGES * 8 /* barriers */,
                         EPI_LD = BM + 8, /* floats per column of the epilogue's tile: a warp's float2 writes
                                             (8 columns x 4 row pairs) land on 32 distinct bank pairs */
                         MN_CHUNK_BYTES = 64 * 128; /* an M-major 16-bit A: 64 k rows of 64 elements */
    static_assert(BN * EPI_LD * 4 <= STAGES * STAGE_BYTES, "the epilogue's tile must fit in the ring");
    static_assert(2 * 128 * REGS_CONSUMER + 128 * REGS_PRODUCER <= 65536, "registers");
};

/* C[0..3] (4 consecutive rows of one column) = alpha*v + beta*C, never
   reading C when beta == 0; one vector access when `vec` (aligned) and all
   4 rows exist, else element by element up to `left` rows. */
template <typename TC>
__device__ __forceinline__ void gemm__cuda_store4(TC *c, float4 v, int left, float alpha, float beta, bool vec)
{
    struct alignas(4 * sizeof(TC)) four { TC x[4]; };
    const float x[4] = {v.x, v.y, v.z, v.w};
    if (vec && left >= 4) {
        four o;
        if (beta != 0.0f) o = *reinterpret_cast<const four *>(c);
#pragma unroll
        for (int e = 0; e < 4; e++) o.x[e] = TC(beta == 0.0f ? alpha * x[e] : alpha * x[e] + beta * float(o.x[e]));
        *reinterpret_cast<four *>(c) = o;
    } else {
        for (int e = 0; e < 4 && e < left; e++) gemm__cuda_store(c + e, x[e], alpha, beta, 0);
    }
}

/* Writes a warpgroup's 64 columns x S::BM rows of C, laid out in shared
   memory column by column (`tile`), 4 rows per thread at a time, so that a
   warp writes 128 contiguous elements of a column. */
template <typename S, typename TC>
__device__ __forceinline__ void gemm__cuda_wgmma_write(const float *tile, int M, int N, int m0, int n0, float alpha,
                                                       float beta, TC *C, int64_t ldc)
{
    bool vec = (uintptr_t)C % (4 * sizeof(TC)) == 0 && ldc % 4 == 0;
    for (int e = (int)threadIdx.x % 128; e < 64 * (S::BM / 4); e += 128) {
        int nl = e / (S::BM / 4), ml = e % (S::BM / 4) * 4, n = n0 + nl, m = m0 + ml;
        if (n < N && m < M)
            gemm__cuda_store4(&C[m + (int64_t)n * ldc], *reinterpret_cast<const float4 *>(&tile[nl * S::EPI_LD + ml]),
                              M - m, alpha, beta, vec);
    }
}

/* map_a: op(A) as a k-major M x K tensor (A_MN: as stored, M-major: a K x M
   tensor read in boxes of 64 rows of M); map_b: op(B)^T as a k-major N x K
   tensor. Block z multiplies K tiles [z*kt_per, (z+1)*kt_per): with one part
   it writes C, with several it writes its raw sums into partial[z] (M x N,
   column-major) and gemm__cuda_splitk_sum_kernel adds them up. */
template <typename T, typename TC, bool A_MN, int BM>
__global__ void __launch_bounds__(gemm__cuda_wgmma_shape<BM>::THREADS, gemm__cuda_wgmma_shape<BM>::BLOCKS_PER_SM)
gemm__cuda_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int M,
                        int N, int K, int kt_per, float alpha, float beta, TC *C, int64_t ldc, float *partial)
{
#if GEMM__CUDA_SM90A
    typedef gemm__cuda_wgmma_shape<BM> S;
    constexpr int BK = S::ROW_BYTES / (int)sizeof(T), KS = sizeof(T) == 2 ? 16 : 8;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    /* the 128-byte swizzle repeats every 1024 bytes: tiles start on such a boundary */
    unsigned char *smem = gemm__cuda_smem + ((1024 - gemm__cuda_smem_addr(gemm__cuda_smem) % 1024) % 1024);
    uint64_t *full = reinterpret_cast<uint64_t *>(smem + S::STAGES * S::STAGE_BYTES), *empty = full + S::STAGES;
    int wg = (int)threadIdx.x / 128, bm, bn, kt0 = (int)blockIdx.z * kt_per; /* wg 0, 1: consumers */
    int ktiles = min((K + BK - 1) / BK - kt0, kt_per);
    gemm__cuda_block_tile<8>(bm, bn);
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::STAGES; s++) {
            gemm__cuda_mbar_init(&full[s], 1);
            gemm__cuda_mbar_init(&empty[s], 256);
        }
        gemm__cuda_fence_mbar_init();
        gemm__cuda_fence_proxy_async();
    }
    __syncthreads();

    if (wg == 2) { /* producer: few registers, one thread */
        if constexpr (S::THREADS == 384) gemm__cuda_setmaxnreg_dec<S::REGS_PRODUCER>();
        if (threadIdx.x == 256)
            for (int kt = 0; kt < ktiles; kt++) {
                int s = kt % S::STAGES;
                if (kt >= S::STAGES) gemm__cuda_mbar_wait(&empty[s], (unsigned)(kt / S::STAGES - 1) & 1);
                unsigned char *stage = smem + s * S::STAGE_BYTES;
                gemm__cuda_mbar_expect(&full[s], S::STAGE_BYTES);
                if (A_MN)
                    for (int j = 0; j < S::BM / 64; j++)
                        gemm__cuda_tma_load(stage + j * S::MN_CHUNK_BYTES, &map_a, bm * S::BM + 64 * j, (kt0 + kt) * BK, &full[s]);
                else
                    gemm__cuda_tma_load(stage, &map_a, (kt0 + kt) * BK, bm * S::BM, &full[s]);
                gemm__cuda_tma_load(stage + S::A_BYTES, &map_b, (kt0 + kt) * BK, bn * S::BN, &full[s]);
            }
    } else { /* consumers */
        if constexpr (S::THREADS == 384) gemm__cuda_setmaxnreg_inc<S::REGS_CONSUMER>();
        float d[S::ACC];
#pragma unroll
        for (int i = 0; i < S::ACC; i++) d[i] = 0.0f;
        gemm__cuda_wgmma_fence_acc(d);
        for (int kt = 0; kt < ktiles; kt++) {
            int s = kt % S::STAGES;
            gemm__cuda_mbar_wait(&full[s], (unsigned)(kt / S::STAGES) & 1);
            const unsigned char *stage = smem + s * S::STAGE_BYTES;
            /* wgmma's A: this warpgroup's 64 rows of op(B)^T; its B: all BM rows of op(A) */
            uint64_t da = gemm__cuda_wgmma_desc(stage + S::A_BYTES + wg * 64 * S::ROW_BYTES),
                     db = A_MN ? gemm__cuda_wgmma_desc_mn(stage) : gemm__cuda_wgmma_desc(stage);
            gemm__cuda_wgmma_arrive();
#pragma unroll
            for (int q = 0; q < BK / KS; q++) /* the next KS elements of K: 32 bytes on, 2 descriptor units */
                gemm__cuda_wgmma<T, A_MN, BM>(d, da + (uint64_t)(q * KS * (int)sizeof(T) / 16),
                                          db + (uint64_t)(A_MN ? q * KS * S::ROW_BYTES / 16 : q * KS * (int)sizeof(T) / 16));
            gemm__cuda_wgmma_commit();
            /* the previous stage's group is done once at most this one is pending */
            gemm__cuda_wgmma_wait<1>();
            gemm__cuda_wgmma_fence_acc(d);
            if (kt > 0) gemm__cuda_mbar_arrive(&empty[(kt - 1) % S::STAGES]);
        }
        gemm__cuda_wgmma_wait<0>();
        gemm__cuda_wgmma_fence_acc(d);

        /* The epilogue goes through shared memory, free once both consumer
           warpgroups are past their last wgmma (every copy has landed by
           then too). */
        gemm__cuda_bar_sync<256>(1);
        float *tile = reinterpret_cast<float *>(smem) + wg * 64 * S::EPI_LD;
        int tid = (int)threadIdx.x % 128, w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
#pragma unroll
        for (int i = 0; i < S::ACC; i += 2)
            *reinterpret_cast<float2 *>(&tile[(16 * w + g + 8 * ((i % 4) / 2)) * S::EPI_LD + 8 * (i / 4) + 2 * t]) =
                make_float2(d[i], d[i + 1]);
        gemm__cuda_bar_sync<128>(2 + wg); /* this warpgroup only */
        if (partial)
            gemm__cuda_wgmma_write<S>(tile, M, N, bm * S::BM, bn * S::BN + wg * 64, 1.0f, 0.0f,
                                   partial + (int64_t)blockIdx.z * M * N, (int64_t)M);
        else
            gemm__cuda_wgmma_write<S>(tile, M, N, bm * S::BM, bn * S::BN + wg * 64, alpha, beta, C, ldc);
    }
#else
    (void)map_a; (void)map_b; (void)M; (void)N; (void)K; (void)kt_per; (void)alpha; (void)beta; (void)C; (void)ldc;
    (void)partial;
#endif
}
