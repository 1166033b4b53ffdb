// FasterNTT-style usage from C++: n = 8192 with 4 primes of 60 bits (workload W1): forward NTT
// of every limb, pointwise products, inverse NTT, checked against latpoly's RNS product.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>
#include "latpoly.h"

namespace {
struct PlanDeleter { void operator()(latpoly_ntt_plan *p) const { latpoly_ntt_plan_free(p); } };
struct CtxDeleter { void operator()(latpoly_rns_context *p) const { latpoly_rns_context_free(p); } };
struct PolyDeleter { void operator()(latpoly_rns_poly *p) const { latpoly_rns_poly_free(p); } };
using Plan = std::unique_ptr<latpoly_ntt_plan, PlanDeleter>;

bool ok(latpoly_status s, const char *what) {
    if (s != LATPOLY_STATUS_OK) std::fprintf(stderr, "%s: %s\n", what, latpoly_status_message(s));
    return s == LATPOLY_STATUS_OK;
}
}  // namespace

int main() {
    const size_t n = 8192, limbs = 4;
    std::vector<uint64_t> q(limbs);
    if (!ok(latpoly_ntt_primes(60, n, limbs, q.data()), "primes")) return 1;
    std::vector<Plan> plans;
    for (auto p : q) {
        latpoly_ntt_plan *raw = nullptr;
        if (!ok(latpoly_ntt_plan_new(n, p, &raw), "plan")) return 1;
        plans.emplace_back(raw);
    }
    std::mt19937_64 rng(2016);
    std::vector<uint64_t> a(n * limbs), b(n * limbs), c(n * limbs);
    for (size_t i = 0; i < limbs; i++)
        for (size_t j = 0; j < n; j++) {
            a[i * n + j] = rng() % q[i];
            b[i * n + j] = rng() % q[i];
        }
    auto fa = a, fb = b;
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < limbs; i++) {
        if (!ok(latpoly_ntt_forward(plans[i].get(), &fa[i * n], n), "forward")) return 1;
        if (!ok(latpoly_ntt_forward(plans[i].get(), &fb[i * n], n), "forward")) return 1;
        // Limb 0 in place (out == a: no copy), the others into c.
        uint64_t *dst = i == 0 ? &fa[i * n] : &c[i * n];
        if (!ok(latpoly_ntt_pointwise(plans[i].get(), &fa[i * n], &fb[i * n], dst, n), "pointwise")) return 1;
        if (i == 0) std::copy(fa.begin(), fa.begin() + n, c.begin());
        if (!ok(latpoly_ntt_inverse(plans[i].get(), &c[i * n], n), "inverse")) return 1;
    }
    auto t1 = std::chrono::steady_clock::now();
    // Same product through RNS handles.
    latpoly_rns_context *ctx_raw = nullptr;
    if (!ok(latpoly_rns_context_new(n, q.data(), limbs, &ctx_raw), "context")) return 1;
    std::unique_ptr<latpoly_rns_context, CtxDeleter> ctx(ctx_raw);
    latpoly_rns_poly *pa = nullptr, *pb = nullptr, *pc = nullptr;
    if (!ok(latpoly_rns_poly_from_residues(ctx.get(), a.data(), a.size(), 0, &pa), "poly a")) return 1;
    std::unique_ptr<latpoly_rns_poly, PolyDeleter> ua(pa);
    if (!ok(latpoly_rns_poly_from_residues(ctx.get(), b.data(), b.size(), 0, &pb), "poly b")) return 1;
    std::unique_ptr<latpoly_rns_poly, PolyDeleter> ub(pb);
    if (!ok(latpoly_rns_poly_multiply(pa, pb, &pc), "multiply")) return 1;
    std::unique_ptr<latpoly_rns_poly, PolyDeleter> uc(pc);
    std::vector<uint64_t> d(n * limbs);
    if (!ok(latpoly_rns_poly_residues(pc, d.data(), d.size(), nullptr), "residues")) return 1;
    if (d != c) {
        std::fprintf(stderr, "per-limb NTT product differs from the RNS product\n");
        return 1;
    }
    const char *isa = nullptr;
    if (!ok(latpoly_ntt_plan_isa(plans[0].get(), &isa), "plan isa")) return 1;
    std::printf("C++ example: n=%zu, %zu x 60-bit primes, backend %s: 2 forward + pointwise + inverse "
                "on all limbs in %.1f us; matches the RNS product\n",
                n, limbs, isa,
                std::chrono::duration<double, std::micro>(t1 - t0).count());
    return 0;
}
