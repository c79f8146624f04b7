/* Research: how fast can copy threads move pageable memory into page-locked
   staging chunks (and back), with glibc's memcpy and with non-temporal
   stores, alone and while the copy engines move the chunks to 1..N GPUs?
   Build: nvcc -O2 -std=c++17 -o staging_copy bench/research/staging_copy.cu
   Run:   staging_copy GPUS THREADS_PER_GPU GB_PER_GPU */
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
static const size_t CHUNK = (size_t)8 << 20;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

static void copy_nt(char *dst, const char *src, size_t n)
{
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15, i;
    if (head > n) head = n;
    memcpy(dst, src, head); dst += head; src += head; n -= head;
    for (i = 0; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i)), b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32)), d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a); _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c); _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    memcpy(dst + i, src + i, n - i);
    _mm_sfence();
}
static void copy_any(int nt, char *d, const char *s, size_t n) { if (nt) copy_nt(d, s, n); else memcpy(d, s, n); }

/* mode 0: CPU only (fill chunks, no DMA); 1: fill + H2D; 2: D2H + drain (pinned -> pageable) */
static double run(int gpus, int tpg, size_t bytes_per_gpu, int nt, int mode, std::vector<char *> &host, std::vector<char *> &dev)
{
    int T = gpus * tpg;
    std::vector<std::thread> th;
    std::atomic<int> ready{0};
    std::atomic<int> go{0};
    double t0 = 0;
    for (int t = 0; t < T; t++) th.emplace_back([&, t] {
        int g = t / tpg, i = t % tpg;
        CK(cudaSetDevice(g));
        cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        char *ch[2]; cudaEvent_t ev[2];
        for (int b = 0; b < 2; b++) { CK(cudaHostAlloc((void **)&ch[b], CHUNK, cudaHostAllocDefault)); CK(cudaEventCreateWithFlags(&ev[b], cudaEventDisableTiming)); memset(ch[b], 1, CHUNK); }
        size_t per = bytes_per_gpu / tpg / CHUNK;
        char *src = host[g] + (size_t)i * per * CHUNK;
        char *dst = dev[g] + (size_t)i * 2 * CHUNK; /* a ring of 2 on the device */
        ready++;
        while (!go.load()) ;
        for (size_t c = 0; c < per; c++) {
            int b = (int)(c & 1);
            if (c >= 2 && mode) CK(cudaEventSynchronize(ev[b]));
            if (mode == 2) {
                CK(cudaMemcpyAsync(ch[b], dst + b * CHUNK, CHUNK, cudaMemcpyDeviceToHost, st));
                CK(cudaEventRecord(ev[b], st));
                CK(cudaEventSynchronize(ev[b]));
                copy_any(nt, src + c * CHUNK, ch[b], CHUNK);
            } else {
                copy_any(nt, ch[b], src + c * CHUNK, CHUNK);
                if (mode == 1) { CK(cudaMemcpyAsync(dst + b * CHUNK, ch[b], CHUNK, cudaMemcpyHostToDevice, st)); CK(cudaEventRecord(ev[b], st)); }
            }
        }
        CK(cudaStreamSynchronize(st));
        for (int b = 0; b < 2; b++) { cudaFreeHost(ch[b]); cudaEventDestroy(ev[b]); }
        cudaStreamDestroy(st);
    });
    while (ready.load() < T) ;
    t0 = now();
    go = 1;
    for (auto &x : th) x.join();
    double s = now() - t0;
    return (double)bytes_per_gpu * gpus / s / 1e9;
}

int main(int argc, char **argv)
{
    int maxg = 0; CK(cudaGetDeviceCount(&maxg));
    int gpus = argc > 1 ? atoi(argv[1]) : maxg, tpg = argc > 2 ? atoi(argv[2]) : 12;
    double gb = argc > 3 ? atof(argv[3]) : 8;
    if (gpus > maxg) gpus = maxg;
    size_t bytes = (size_t)(gb * 1e9) / (tpg * CHUNK) * (tpg * CHUNK);
    std::vector<char *> host(gpus), dev(gpus);
    for (int g = 0; g < gpus; g++) {
        host[g] = (char *)malloc(bytes);
        std::vector<std::thread> f; /* first touch in parallel */
        for (int t = 0; t < 16; t++) f.emplace_back([&, t] { size_t a = bytes / 16 * t, b = t == 15 ? bytes : bytes / 16 * (t + 1); memset(host[g] + a, t + 1, b - a); });
        for (auto &x : f) x.join();
        CK(cudaSetDevice(g)); CK(cudaMalloc(&dev[g], (size_t)tpg * 2 * CHUNK));
    }
    printf("gpus %d, copy threads per gpu %d, %.2f GB per gpu; rates are GB/s over all GPUs\n", gpus, tpg, bytes / 1e9);
    const char *mn[3] = {"cpu fill only", "fill + H2D", "D2H + drain"};
    for (int rep = 0; rep < 2; rep++)
        for (int mode = 0; mode < 3; mode++)
            for (int nt = 0; nt < 2; nt++)
                printf("rep %d  %-14s %-8s %7.1f GB/s\n", rep, mn[mode], nt ? "nt" : "memcpy", run(gpus, tpg, bytes, nt, mode, host, dev));
    return 0;
}
