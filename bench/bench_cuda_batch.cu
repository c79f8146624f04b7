/* bench/bench_cuda_batch.cu - gemm's strided-batched calls beside cuBLAS's
   (cublasSgemmStridedBatched, cublasDgemmStridedBatched,
   cublasGemmStridedBatchedEx for TF32, FP16 and BF16 with fp32 sums), in one
   process, interleaved call by call, on random data in [-0.5, 0.5);
   column-major NN, members packed back to back. Each cell: the median of
   --reps timed calls of each (CUDA events), the spread (max/min), and
   cuBLAS time / gemm time (above 1: gemm is faster).

   build/bench_cuda_batch [--reps N] [--prec f32,f64,tf32,f16,bf16]
                          [--shapes 64x10000,256x1000,1024x16] [--csv FILE]
                          [--depth K] (every member n x n x K, not n^3)
                          [--variant N] (options.variant for ours)
                          [--kernel simt|dmma|mma|wgmma] (options.kernel for ours)
   build/bench_cuda_batch --grouped moe,small,tiny [--prec f32,f64] [--reps N]
       grouped batches instead: gemm_cuda_?gemm_grouped_batched (host
       lists) beside cublasGemmGroupedBatchedEx (device lists, as it takes
       them) and beside a loop of cublas?gemm calls, one per member, on
       moe: 64 groups of one member, m from 128 to 4096, n = k = 4096;
       small: 1000 members in 10 groups of 100, m, n, k from 16 to 64;
       tiny: the same with m, n from 8 to 32 and k from 16 to 64 (every
       member the tiny kernel's: the whole call one launch).
       Besides the event times, ours' time in the call on the CPU (its
       checks, list copies and launches: a CPU timer).
   Built with -DGEMM__TEST_HOOKS (research): --epilogue N sets the WGMMA
   epilogue hook (1 staged through shared memory, 2 straight from the
   registers). */
#define GEMM_IMPLEMENTATION
#include "../gemm_cuda.cuh"
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chrono>
#include <vector>
#include <algorithm>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } \
    } while (0)

static __global__ void fill_kernel(unsigned char *p, size_t bytes, int elem, int kind, unsigned seed)
{
    size_t n = bytes / elem;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
        float v = (float)(h & 0xffff) / 65536.0f - 0.5f;
        if (kind == 0) ((float *)p)[i] = v;
        else if (kind == 1) ((double *)p)[i] = v;
        else if (kind == 2) ((__half *)p)[i] = __float2half(v);
        else ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
    }
}

/* options.kernel from its name, as gemm_cuda_kernel_name spells it. */
static bool kernel_named(const char *name, gemm_cuda_kernel *kernel)
{
    for (int k = GEMM_CUDA_KERNEL_AUTO; k <= GEMM_CUDA_KERNEL_WGMMA; k++)
        if (!strcmp(name, gemm_cuda_kernel_name((gemm_cuda_kernel)k))) {
            *kernel = (gemm_cuda_kernel)k;
            return true;
        }
    return false;
}

typedef struct prec_info { const char *name; int kind, elem; } prec_info;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* ---- grouped batches ---- */

typedef struct group_shape { int m, n, k, size; } group_shape;

/* The sets of --grouped: column-major NN, alpha 1, beta 0. */
static std::vector<group_shape> grouped_set(const char *name)
{
    std::vector<group_shape> g;
    if (!strcmp(name, "moe")) {
        for (int i = 0; i < 64; i++) g.push_back({(128 + 3968 * i / 63) / 32 * 32, 4096, 4096, 1});
    } else if (!strcmp(name, "small")) {
        static const group_shape t[10] = {{16, 16, 16, 100}, {32, 32, 32, 100}, {64, 64, 64, 100}, {24, 40, 32, 100},
                                          {48, 16, 64, 100}, {32, 64, 16, 100}, {64, 32, 48, 100}, {20, 20, 20, 100},
                                          {40, 56, 24, 100}, {56, 48, 40, 100}};
        g.assign(t, t + 10);
    } else if (!strcmp(name, "tiny")) { /* small's shapes within the tiny kernel's 32 x 32 (one launch for the call) */
        static const group_shape t[10] = {{16, 16, 16, 100}, {32, 32, 32, 100}, {8, 8, 64, 100}, {24, 32, 32, 100},
                                          {32, 16, 64, 100}, {16, 32, 16, 100}, {12, 28, 48, 100}, {20, 20, 20, 100},
                                          {30, 26, 24, 100}, {28, 24, 40, 100}};
        g.assign(t, t + 10);
    }
    return g;
}

template <typename T>
static void run_grouped(cublasHandle_t h, const cudaDeviceProp &prop, const char *set, int reps, FILE *out)
{
    std::vector<group_shape> gs = grouped_set(set);
    if (gs.empty()) { printf("unknown grouped set %s\n", set); return; }
    const bool f64 = sizeof(T) == 8;
    const char *prec = f64 ? "f64" : "f32";
    int groups = (int)gs.size(), total = 0;
    for (auto &g : gs) total += g.size;
    std::vector<size_t> oa, ob, oc;
    size_t na = 0, nb = 0, nc = 0;
    double flops = 0;
    for (auto &g : gs)
        for (int i = 0; i < g.size; i++) { /* each member 256-byte aligned, as cudaMalloc would give it */
            oa.push_back(na); ob.push_back(nb); oc.push_back(nc);
            na += ((size_t)g.m * g.k + 63) / 64 * 64; nb += ((size_t)g.k * g.n + 63) / 64 * 64;
            nc += ((size_t)g.m * g.n + 63) / 64 * 64;
            flops += 2.0 * g.m * g.n * g.k;
        }
    T *A, *B, *C;
    CHECK(cudaMalloc(&A, na * sizeof(T)));
    CHECK(cudaMalloc(&B, nb * sizeof(T)));
    CHECK(cudaMalloc(&C, nc * sizeof(T)));
    fill_kernel<<<1024, 256>>>((unsigned char *)A, na * sizeof(T), sizeof(T), f64 ? 1 : 0, 1u);
    fill_kernel<<<1024, 256>>>((unsigned char *)B, nb * sizeof(T), sizeof(T), f64 ? 1 : 0, 2u);
    std::vector<const T *> la(total), lb(total);
    std::vector<T *> lc(total);
    for (int i = 0; i < total; i++) { la[i] = A + oa[i]; lb[i] = B + ob[i]; lc[i] = C + oc[i]; }
    void **dl;
    CHECK(cudaMalloc((void **)&dl, 3 * total * sizeof(void *)));
    CHECK(cudaMemcpy(dl, la.data(), total * sizeof(void *), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dl + total, lb.data(), total * sizeof(void *), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dl + 2 * total, lc.data(), total * sizeof(void *), cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    std::vector<gemm_transpose> ta(groups, GEMM_NO_TRANS);
    std::vector<int64_t> m(groups), n(groups), k(groups), size(groups);
    std::vector<T> alpha(groups, T(1)), beta(groups, T(0));
    std::vector<cublasOperation_t> ops(groups, CUBLAS_OP_N);
    std::vector<int> mi(groups), ni(groups), ki(groups), si(groups);
    for (int g = 0; g < groups; g++) {
        m[g] = mi[g] = gs[g].m; n[g] = ni[g] = gs[g].n; k[g] = ki[g] = gs[g].k; size[g] = si[g] = gs[g].size;
    }
    cudaDataType dt = f64 ? CUDA_R_64F : CUDA_R_32F;
    cublasComputeType_t ct = f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    auto ours = [&]() -> bool {
        gemm_status s;
        if constexpr (sizeof(T) == 8)
            s = gemm_cuda_dgemm_grouped_batched(0, GEMM_COL_MAJOR, ta.data(), ta.data(), m.data(), n.data(), k.data(),
                                                alpha.data(), la.data(), m.data(), lb.data(), k.data(), beta.data(),
                                                lc.data(), m.data(), groups, size.data(), NULL);
        else
            s = gemm_cuda_sgemm_grouped_batched(0, GEMM_COL_MAJOR, ta.data(), ta.data(), m.data(), n.data(), k.data(),
                                                alpha.data(), la.data(), m.data(), lb.data(), k.data(), beta.data(),
                                                lc.data(), m.data(), groups, size.data(), NULL);
        if (s != GEMM_OK) printf("%s %s: gemm failed: %s\n", prec, set, gemm_last_error_detail());
        return s == GEMM_OK;
    };
    /* cublasGemmGroupedBatchedEx, or where it refuses the type, cublas?gemmGroupedBatched (said once) */
    bool typed = false;
    auto grouped = [&]() -> bool {
        cublasStatus_t cs = CUBLAS_STATUS_NOT_SUPPORTED;
        if (!typed)
            cs = cublasGemmGroupedBatchedEx(h, ops.data(), ops.data(), mi.data(), ni.data(), ki.data(), alpha.data(),
                                            (const void *const *)dl, dt, mi.data(), (const void *const *)(dl + total),
                                            dt, ki.data(), beta.data(), dl + 2 * total, dt, mi.data(), groups,
                                            si.data(), ct);
        if (cs != CUBLAS_STATUS_SUCCESS && !typed) {
            printf("%s %s: cublasGemmGroupedBatchedEx returned %d; cublas%cgemmGroupedBatched instead\n", prec, set,
                   (int)cs, f64 ? 'D' : 'S');
            typed = true;
        }
        if (typed) {
            if constexpr (sizeof(T) == 8)
                cs = cublasDgemmGroupedBatched(h, ops.data(), ops.data(), mi.data(), ni.data(), ki.data(), alpha.data(),
                                               (const double *const *)dl, mi.data(), (const double *const *)(dl + total),
                                               ki.data(), beta.data(), (double *const *)(dl + 2 * total), mi.data(),
                                               groups, si.data());
            else
                cs = cublasSgemmGroupedBatched(h, ops.data(), ops.data(), mi.data(), ni.data(), ki.data(), alpha.data(),
                                               (const float *const *)dl, mi.data(), (const float *const *)(dl + total),
                                               ki.data(), beta.data(), (float *const *)(dl + 2 * total), mi.data(),
                                               groups, si.data());
        }
        if (cs != CUBLAS_STATUS_SUCCESS) printf("%s %s: cuBLAS grouped failed: %d\n", prec, set, (int)cs);
        return cs == CUBLAS_STATUS_SUCCESS;
    };
    auto loop = [&]() -> bool {
        int i = 0;
        for (int g = 0; g < groups; g++)
            for (int j = 0; j < si[g]; j++, i++) {
                cublasStatus_t cs;
                if constexpr (sizeof(T) == 8)
                    cs = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mi[g], ni[g], ki[g], &alpha[g], la[i], mi[g], lb[i],
                                     ki[g], &beta[g], lc[i], mi[g]);
                else
                    cs = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mi[g], ni[g], ki[g], &alpha[g], la[i], mi[g], lb[i],
                                     ki[g], &beta[g], lc[i], mi[g]);
                if (cs != CUBLAS_STATUS_SUCCESS) { printf("%s %s: cublas gemm failed: %d\n", prec, set, (int)cs); return false; }
            }
        return true;
    };
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<double> t[3], host; /* host: ours' time in the call itself, a CPU timer */
    bool ok = true, works[3] = {true, true, true};
    for (int r = -2; r < reps && ok; r++) /* two warm-up rounds; the three interleaved */
        for (int w = 0; w < 3 && ok; w++) {
            float ms;
            if (!works[w]) continue;
            CHECK(cudaEventRecord(e0));
            auto h0 = std::chrono::steady_clock::now();
            works[w] = w == 0 ? ours() : w == 1 ? grouped() : loop();
            double hms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
            CHECK(cudaEventRecord(e1));
            if (r >= 0 && w == 0) host.push_back(hms);
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 0) t[w].push_back(works[w] ? ms : NAN);
            ok = works[0];
        }
    for (int w = 1; w < 3; w++)
        if (!works[w]) t[w].assign(1, NAN); /* n/a: a failed peer shows as nan */
    if (ok) {
        double mo = median(t[0]), mg = median(t[1]), ml = median(t[2]), mh = median(host);
        printf("%-5s %-6s %3d groups %5d members  ours %9.4f ms (%6.2f TF/s, %8.4f ms in the call on the CPU)  "
               "cuBLAS grouped %9.4f ms  loop %9.4f ms  grouped/ours %6.3f  loop/ours %6.3f\n", prec, set, groups,
               total, mo, flops / mo / 1e9, mh, mg, ml, mg / mo, ml / mo);
        if (out)
            fprintf(out, "%s,%s,grouped-%s,%d,%.5f,%.5f,%.3f,%.3f,%.4f,%.5f,%.4f,%.5f\n", prop.name, prec, set, total, mo,
                    mg, flops / mo / 1e9, flops / mg / 1e9, mg / mo, ml, ml / mo, mh);
    }
    cudaEventDestroy(e0); cudaEventDestroy(e1);
    cudaFree(dl); cudaFree(A); cudaFree(B); cudaFree(C);
}

int main(int argc, char **argv)
{
    int reps = 15, variant = 0, depth = 0;
    gemm_cuda_kernel kernel = GEMM_CUDA_KERNEL_AUTO;
    const char *precs = "f32,f64,tf32,f16,bf16", *shapes = "64x10000,256x1000,1024x16", *csv = NULL, *groups = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--prec") && i + 1 < argc) precs = argv[++i];
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) shapes = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
        else if (!strcmp(argv[i], "--variant") && i + 1 < argc) variant = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc) depth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--grouped") && i + 1 < argc) groups = argv[++i];
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc && kernel_named(argv[i + 1], &kernel)) i++;
#ifdef GEMM__TEST_HOOKS
        else if (!strcmp(argv[i], "--epilogue") && i + 1 < argc) gemm__test_hooks()->cuda_wgmma_epilogue = atoi(argv[++i]);
#endif
        else { fprintf(stderr, "unknown argument %s\n", argv[i]); return 2; }
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasCreate failed\n"); return 2; }
    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (groups) { /* grouped batches: their own table */
        char list[128], plist[128];
        snprintf(plist, sizeof plist, ",%s,", strcmp(precs, "f32,f64,tf32,f16,bf16") ? precs : "f32,f64");
        if (out) fprintf(out, "device,prec,set,members,gemm_ms,cublas_grouped_ms,gemm_tflops,cublas_tflops,ratio,"
                              "loop_ms,loop_ratio,gemm_host_ms\n");
        printf("%s: gemm grouped batches beside cublasGemmGroupedBatchedEx and a loop of cublas?gemm, column-major NN, "
               "median of %d\n", prop.name, reps);
        for (int f64 = 0; f64 < 2; f64++) {
            if (!strstr(plist, f64 ? ",f64," : ",f32,")) continue;
            snprintf(list, sizeof list, "%s", groups);
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
                f64 ? run_grouped<double>(h, prop, tok, reps, out) : run_grouped<float>(h, prop, tok, reps, out);
        }
        if (out) fclose(out);
        cublasDestroy(h);
        return 0;
    }
    if (out) fprintf(out, "device,prec,n,count,gemm_ms,cublas_ms,gemm_tflops,cublas_tflops,ratio,gemm_spread,cublas_spread\n");
    printf("%s: gemm strided-batched beside cuBLAS, column-major NN, median of %d\n", prop.name, reps);
    if (depth > 0) printf("every member n x n x %d\n", depth);
    printf("%-5s %6s %6s %10s %10s %9s %9s %7s %7s %7s\n", "prec", "n", "count", "gemm ms", "cuBLAS ms", "gemm TF/s",
           "cuBLAS TF", "ratio", "spr g", "spr c");
    static const prec_info all[] = {{"f32", 0, 4}, {"f64", 1, 8}, {"tf32", 0, 4}, {"f16", 2, 2}, {"bf16", 3, 2}};
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    char shape_list[256];
    for (const prec_info &pi : all) {
        char key[16];
        snprintf(key, sizeof key, ",%s,", pi.name);
        char plist[128];
        snprintf(plist, sizeof plist, ",%s,", precs);
        if (!strstr(plist, key)) continue;
        snprintf(shape_list, sizeof shape_list, "%s", shapes);
        for (char *tok = strtok(shape_list, ","); tok; tok = strtok(NULL, ",")) {
            int n = 0;
            long long count = 0;
            if (sscanf(tok, "%dx%lld", &n, &count) != 2) continue;
            int k = depth > 0 ? depth : n;
            size_t per = (size_t)n * n, per_ab = (size_t)n * k, bytes_ab = per_ab * count * pi.elem,
                   bytes_c = per * count * (pi.kind >= 2 ? 4 : pi.elem);
            void *A, *B, *C;
            CHECK(cudaMalloc(&A, bytes_ab));
            CHECK(cudaMalloc(&B, bytes_ab));
            CHECK(cudaMalloc(&C, bytes_c));
            fill_kernel<<<1024, 256>>>((unsigned char *)A, bytes_ab, pi.elem, pi.kind, 1u);
            fill_kernel<<<1024, 256>>>((unsigned char *)B, bytes_ab, pi.elem, pi.kind, 2u);
            fill_kernel<<<1024, 256>>>((unsigned char *)C, bytes_c, pi.kind >= 2 ? 4 : pi.elem, pi.kind >= 2 ? 0 : pi.kind, 3u);
            CHECK(cudaDeviceSynchronize());
            gemm_cuda_options opt = {};
            opt.variant = variant;
            opt.kernel = kernel;
            if (!strcmp(pi.name, "tf32")) opt.math = GEMM_CUDA_MATH_TF32;
            float alpha = 1.0f, beta = 0.0f;
            double alpha_d = 1.0, beta_d = 0.0;
            long long st = (long long)per_ab, stc = (long long)per;
            auto ours = [&]() -> gemm_status {
                if (pi.kind == 0)
                    return gemm_cuda_sgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, k, alpha,
                                                           (float *)A, n, st, (float *)B, k, st, beta, (float *)C, n, stc,
                                                           count, &opt);
                if (pi.kind == 1)
                    return gemm_cuda_dgemm_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, k,
                                                           alpha_d, (double *)A, n, st, (double *)B, k, st, beta_d,
                                                           (double *)C, n, stc, count, &opt);
                gemm_precision p = pi.kind == 2 ? GEMM_F16 : GEMM_BF16;
                return gemm_cuda_sgemm_mixed_strided_batched(0, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, k,
                                                             alpha, A, p, n, st, B, p, k, st, beta, C, GEMM_F32, n, stc,
                                                             count, &opt);
            };
            auto theirs = [&]() -> cublasStatus_t {
                if (!strcmp(pi.name, "f32"))
                    return cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &alpha, (float *)A, n, st,
                                                     (float *)B, k, st, &beta, (float *)C, n, stc, (int)count);
                if (pi.kind == 1)
                    return cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &alpha_d, (double *)A, n, st,
                                                     (double *)B, k, st, &beta_d, (double *)C, n, stc, (int)count);
                cudaDataType t = pi.kind == 0 ? CUDA_R_32F : pi.kind == 2 ? CUDA_R_16F : CUDA_R_16BF;
                cublasComputeType_t ct = pi.kind == 0 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
                return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &alpha, A, t, n, st, B, t, k, st,
                                                  &beta, C, CUDA_R_32F, n, stc, (int)count, ct, CUBLAS_GEMM_DEFAULT);
            };
            std::vector<double> tg, tc;
            bool ok = true;
            for (int r = -2; r < reps && ok; r++) { /* two warm-up rounds */
                float ms;
                CHECK(cudaEventRecord(e0));
                gemm_status s = ours();
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (s != GEMM_OK) { printf("%s %s: gemm failed: %s\n", pi.name, tok, gemm_last_error_detail()); ok = false; }
                if (r >= 0) tg.push_back(ms);
                CHECK(cudaEventRecord(e0));
                cublasStatus_t cs = theirs();
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (cs != CUBLAS_STATUS_SUCCESS) { printf("%s %s: cuBLAS failed: %d\n", pi.name, tok, (int)cs); ok = false; }
                if (r >= 0) tc.push_back(ms);
            }
            if (ok) {
                double mg = median(tg), mc = median(tc), flops = 2.0 * n * (double)n * k * count;
                double sg = *std::max_element(tg.begin(), tg.end()) / *std::min_element(tg.begin(), tg.end());
                double sc = *std::max_element(tc.begin(), tc.end()) / *std::min_element(tc.begin(), tc.end());
                printf("%-5s %6d %6lld %10.4f %10.4f %9.2f %9.2f %7.3f %7.2f %7.2f\n", pi.name, n, count, mg, mc,
                       flops / mg / 1e9, flops / mc / 1e9, mc / mg, sg, sc);
                if (out)
                    fprintf(out, "%s,%s,%d,%lld,%.5f,%.5f,%.3f,%.3f,%.4f,%.3f,%.3f\n", prop.name, pi.name, n, count, mg, mc,
                            flops / mg / 1e9, flops / mc / 1e9, mc / mg, sg, sc);
            }
            cudaFree(A); cudaFree(B); cudaFree(C);
        }
    }
    if (out) fclose(out);
    cublasDestroy(h);
    return 0;
}
