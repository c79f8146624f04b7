/* The gate of a host call on several devices: each device's pipeline
   plans and allocates, then waits here until every device has; a device
   that could not stops them all before any of them writes C. */
#pragma once
#include <condition_variable>
#include <mutex>

struct gemm__cuda_gate {
    std::mutex mu;
    std::condition_variable all;
    int arrived = 0, total = 0;
    bool failed = false;
};

/* One device's pass through the gate. */
struct gemm__cuda_gate_ticket {
    gemm__cuda_gate *gate;
    bool entered; /* this device has reported to the gate */
    bool stopped; /* it planned, but another device did not: it wrote nothing */
};

static bool gemm__cuda_gate_report(gemm__cuda_gate_ticket *k, bool ok)
{
    gemm__cuda_gate *g = k->gate;
    std::unique_lock<std::mutex> lk(g->mu);
    k->entered = true;
    g->arrived++;
    if (!ok) g->failed = true;
    if (g->failed || g->arrived == g->total) g->all.notify_all();
    g->all.wait(lk, [g] { return g->failed || g->arrived == g->total; });
    return !g->failed;
}

/* This device planned: waits for the others; false when one of them failed
   (this device then must not start). */
static bool gemm__cuda_gate_enter(gemm__cuda_gate_ticket *k)
{
    k->stopped = !gemm__cuda_gate_report(k, true);
    return !k->stopped;
}

/* This device's call ends: if it never reached the gate it failed before
   planning, and the others must not wait for it. */
static void gemm__cuda_gate_leave(gemm__cuda_gate_ticket *k)
{
    if (!k->entered) gemm__cuda_gate_report(k, false);
}
