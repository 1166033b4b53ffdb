/* Issue-rate probes for the vector instructions and instruction mixes of latpoly's kernels.
 *
 *   gcc -O2 -mavx512f -mavx512bw -mavx512ifma scripts/issue_rates.c -o /tmp/issue_rates
 *   /tmp/issue_rates
 *
 * Needs an x86-64 CPU with AVX-512F, AVX-512BW and AVX-512 IFMA. Each probe is a loop of
 * independent instructions on twelve registers (no chain is long enough to bound the loop: the
 * latencies are 1-4 cycles, twelve chains hide them), so the time per instruction is its issue
 * cost. Cycles come from the core clock measured with a chain of dependent register additions
 * (one a cycle), not from the TSC. The mixes are the operation counts of the transforms' hottest
 * code, in the proportions docs/TARGETS.md gives; their cost per group is the issue floor of
 * that code on this CPU: what the same operations cost with no memory traffic and no waits on
 * dependencies. The latency probes time chains of one instruction; the dependent probes at the
 * end (C intrinsics, hence -O2) time the memory passes' butterflies with their dependencies:
 * radix-4 quads with one, two or three in flight, and the radix-4 pass over a block in L1. Not
 * run by the tests: a measurement tool, used for docs/TARGETS.md and docs/BENCH.md.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define N 4000000L

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Core clock in GHz: four dependent `add`s per iteration. */
static double ghz(void) {
    long x = 0;
    double a = now();
    __asm__ volatile("mov %1, %%rcx\n1:\n add %%rcx, %0\n add %%rcx, %0\n add %%rcx, %0\n"
                     " add %%rcx, %0\n dec %%rcx\n jnz 1b\n"
                     : "+r"(x) : "r"(N * 50) : "rcx");
    return 4.0 * (double)(N * 50) / (now() - a) / 1e9;
}

/* A loop of `body`, N times: destinations zmm0-11 (the mixes: their operations spread evenly
 * through the group and over zmm0-10), sources zmm20, zmm21 and k1 (comparisons write k2). */
#define PROBE(name, body)                                                                      \
    static double name(void) {                                                                 \
        double a = now();                                                                      \
        __asm__ volatile("vpxorq %%zmm20, %%zmm20, %%zmm20\n"                                  \
                         "vpternlogq $0xff, %%zmm21, %%zmm21, %%zmm21\n"                       \
                         "mov $0x55, %%eax\n kmovw %%eax, %%k1\n"                              \
                         "mov %0, %%rcx\n 1:\n" body "dec %%rcx\n jnz 1b\n"                    \
                         :                                                                     \
                         : "r"(N)                                                              \
                         : "rcx", "rax", "k1", "k2", "memory", "xmm0", "xmm1", "xmm2",         \
                           "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",    \
                           "xmm11", "xmm20", "xmm21");                                         \
        return now() - a;                                                                      \
    }

/* Twelve copies of one instruction, destination register r = 0..11. */
#define X12(I) I(0) I(1) I(2) I(3) I(4) I(5) I(6) I(7) I(8) I(9) I(10) I(11)
#define R(r) "%%zmm" #r
#define Y(r) "%%ymm" #r

#define IFMA(r) "vpmadd52luq %%zmm20, %%zmm21, " R(r) "\n"
#define MULUDQ(r) "vpmuludq %%zmm20, " R(r) ", " R(r) "\n"
#define MULLD(r) "vpmulld %%zmm20, " R(r) ", " R(r) "\n"
#define MULLW(r) "vpmullw %%zmm20, " R(r) ", " R(r) "\n"
#define ADDQ(r) "vpaddq %%zmm20, " R(r) ", " R(r) "\n"
#define SUBQ(r) "vpsubq %%zmm20, " R(r) ", " R(r) "\n"
#define MINUQ(r) "vpminuq %%zmm20, " R(r) ", " R(r) "\n"
#define ANDQ(r) "vpandq %%zmm20, " R(r) ", " R(r) "\n"
#define PERMT2Q(r) "vpermt2q %%zmm20, %%zmm21, " R(r) "\n"
#define SHUFI64X2(r) "vshufi64x2 $0x44, %%zmm20, " R(r) ", " R(r) "\n"
#define UNPCKLQDQ(r) "vpunpcklqdq %%zmm20, " R(r) ", " R(r) "\n"
#define PSHUFD(r) "vpshufd $0xf5, " R(r) ", " R(r) "\n"
#define BLENDMQ(r) "vpblendmq %%zmm20, " R(r) ", " R(r) "%{%%k1%}\n"
#define PERMW(r) "vpermw %%zmm20, %%zmm21, " R(r) "\n"
#define PERMT2W(r) "vpermt2w %%zmm20, %%zmm21, " R(r) "\n"
#define MULHW(r) "vpmulhw %%zmm20, " R(r) ", " R(r) "\n"
#define MADDWD(r) "vpmaddwd %%zmm20, " R(r) ", " R(r) "\n"
#define PSHUFB(r) "vpshufb %%zmm20, " R(r) ", " R(r) "\n"
#define PERMQ(r) "vpermq $0x4e, " R(r) ", " R(r) "\n"
#define VALIGNQ(r) "valignq $4, %%zmm20, " R(r) ", " R(r) "\n"
#define SHUFPD(r) "vshufpd $0x55, %%zmm20, " R(r) ", " R(r) "\n"
#define PERMD(r) "vpermd %%zmm20, %%zmm21, " R(r) "\n"
#define PERMT2D(r) "vpermt2d %%zmm20, %%zmm21, " R(r) "\n"
#define CMPUQ(r) "vpcmpuq $5, %%zmm20, " R(r) ", %%k2\n"
#define SRAQ(r) "vpsraq $63, " R(r) ", " R(r) "\n"
#define SRLQ(r) "vpsrlq $3, " R(r) ", " R(r) "\n"
#define YPERMT2W(r) "vpermt2w %%ymm20, %%ymm21, " Y(r) "\n"
#define YIFMA(r) "vpmadd52luq %%ymm20, %%ymm21, " Y(r) "\n"
#define YMULLD(r) "vpmulld %%ymm20, " Y(r) ", " Y(r) "\n"

/* The single-instruction probes: name, instruction (a macro above), label. */
#define SINGLES(P)                                                                             \
    P(p_ifma, IFMA, "vpmadd52luq zmm")                                                         \
    P(p_yifma, YIFMA, "vpmadd52luq ymm")                                                       \
    P(p_muludq, MULUDQ, "vpmuludq zmm")                                                        \
    P(p_mulld, MULLD, "vpmulld zmm")                                                           \
    P(p_ymulld, YMULLD, "vpmulld ymm")                                                         \
    P(p_mullw, MULLW, "vpmullw zmm")                                                           \
    P(p_addq, ADDQ, "vpaddq zmm")                                                              \
    P(p_minuq, MINUQ, "vpminuq zmm")                                                           \
    P(p_blendmq, BLENDMQ, "vpblendmq zmm")                                                     \
    P(p_permt2q, PERMT2Q, "vpermt2q zmm")                                                      \
    P(p_shufi64x2, SHUFI64X2, "vshufi64x2 zmm")                                                \
    P(p_unpcklqdq, UNPCKLQDQ, "vpunpcklqdq zmm")                                               \
    P(p_pshufd, PSHUFD, "vpshufd zmm")                                                         \
    P(p_shufpd, SHUFPD, "vshufpd zmm")                                                         \
    P(p_permq, PERMQ, "vpermq zmm")                                                            \
    P(p_valignq, VALIGNQ, "valignq zmm")                                                       \
    P(p_permd, PERMD, "vpermd zmm")                                                            \
    P(p_permt2d, PERMT2D, "vpermt2d zmm")                                                      \
    P(p_cmpuq, CMPUQ, "vpcmpuq zmm to a mask")                                                 \
    P(p_sraq, SRAQ, "vpsraq zmm")                                                              \
    P(p_srlq, SRLQ, "vpsrlq zmm")                                                              \
    P(p_mulhw, MULHW, "vpmulhw zmm")                                                           \
    P(p_maddwd, MADDWD, "vpmaddwd zmm")                                                        \
    P(p_permw, PERMW, "vpermw zmm")                                                            \
    P(p_permt2w, PERMT2W, "vpermt2w zmm")                                                      \
    P(p_ypermt2w, YPERMT2W, "vpermt2w ymm")                                                    \
    P(p_pshufb, PSHUFB, "vpshufb zmm")
#define DEFINE_SINGLE(name, op, label) PROBE(name, X12(op))
SINGLES(DEFINE_SINGLE)

/* The IFMA transforms' butterflies per 7 vector butterflies (8 lanes each). A butterfly: three
 * IFMA and a 52-bit mask for the twiddle product, `u + v` and `u - v + 2q` (two additions, one
 * subtraction), and on the layers that reduce a conditional subtraction of `u` (`vpsubq` +
 * `vpminuq`). Register blocks (the last seven layers, 16 vectors) add 8 `vpermt2q` per 7 for
 * their three in-register layers and, in their last layer, the strict reduction of both
 * outputs to [0, q).
 * STD (primes of 50 bits, W3): every layer reduces; the last layer reduces both outputs twice
 * (the counts of a 16-vector block, 55th session: 168 IFMA, 144 vpsubq, 112 vpaddq,
 * 88 vpminuq, 56 vpandq, 64 vpermt2q for 56 vector butterflies). */
#define STD_BLOCK_OF(MIN)                                                                      \
    IFMA(0) SUBQ(1) ADDQ(2) MIN(3) PERMT2Q(4) IFMA(5) ANDQ(6) SUBQ(7) ADDQ(8) IFMA(9)          \
    MIN(10) SUBQ(0) IFMA(1) ADDQ(2) PERMT2Q(3) SUBQ(4) IFMA(5) ANDQ(6) MIN(7) SUBQ(8)          \
    ADDQ(9) IFMA(10) SUBQ(0) IFMA(1) PERMT2Q(2) MIN(3) ADDQ(4) IFMA(5) ANDQ(6) SUBQ(7)         \
    ADDQ(8) IFMA(9) MIN(10) SUBQ(0) PERMT2Q(1) IFMA(2) ADDQ(3) SUBQ(4) IFMA(5) MIN(6)          \
    ANDQ(7) SUBQ(8) ADDQ(9) IFMA(10) PERMT2Q(0) SUBQ(1) MIN(2) IFMA(3) ADDQ(4) SUBQ(5)         \
    IFMA(6) ANDQ(7) ADDQ(8) MIN(9) PERMT2Q(10) IFMA(0) SUBQ(1) IFMA(2) SUBQ(3) ADDQ(4)         \
    MIN(5) IFMA(6) ANDQ(7) SUBQ(8) PERMT2Q(9) ADDQ(10) IFMA(0) SUBQ(1) MIN(2) IFMA(3)          \
    ADDQ(4) SUBQ(5) IFMA(6) ANDQ(7) PERMT2Q(8) MIN(9) ADDQ(10) SUBQ(0) IFMA(1)
#define STD_BLOCK STD_BLOCK_OF(MINUQ)
/* STD memory passes: one conditional subtraction per butterfly, no permutation. */
#define STD_MEM                                                                                \
    IFMA(0) SUBQ(1) ADDQ(2) IFMA(3) MINUQ(4) ANDQ(5) SUBQ(6) ADDQ(7) IFMA(8) IFMA(9)           \
    SUBQ(10) ADDQ(0) IFMA(1) MINUQ(2) ANDQ(3) SUBQ(4) ADDQ(5) IFMA(6) IFMA(7) SUBQ(8)          \
    ADDQ(9) IFMA(10) MINUQ(0) ANDQ(1) SUBQ(2) ADDQ(3) IFMA(4) IFMA(5) SUBQ(6) ADDQ(7)          \
    IFMA(8) MINUQ(9) ANDQ(10) SUBQ(0) ADDQ(1) IFMA(2) IFMA(3) SUBQ(4) ADDQ(5) IFMA(6)          \
    MINUQ(7) ANDQ(8) SUBQ(9) ADDQ(10) IFMA(0) IFMA(1) SUBQ(2) ADDQ(3) IFMA(4) MINUQ(5)         \
    ANDQ(6) SUBQ(7) ADDQ(8) IFMA(9) IFMA(10) SUBQ(0) ADDQ(1) IFMA(2) MINUQ(3) ANDQ(4)          \
    SUBQ(5) ADDQ(6) IFMA(7)
/* lazy::SLOTH (primes below 2^49, W1-eq forward): three of the block's seven layers reduce,
 * and its last layer brings both outputs from [0, 8q) to [0, q) (three subtractions each). */
#define SLOTH_BLOCK                                                                            \
    IFMA(0) SUBQ(1) ADDQ(2) MINUQ(3) PERMT2Q(4) IFMA(5) ANDQ(6) SUBQ(7) ADDQ(8) IFMA(9)        \
    SUBQ(10) IFMA(0) MINUQ(1) ADDQ(2) PERMT2Q(3) IFMA(4) ANDQ(5) SUBQ(6) ADDQ(7) IFMA(8)       \
    MINUQ(9) SUBQ(10) IFMA(0) PERMT2Q(1) ADDQ(2) SUBQ(3) IFMA(4) ANDQ(5) MINUQ(6) ADDQ(7)      \
    IFMA(8) SUBQ(9) PERMT2Q(10) IFMA(0) ADDQ(1) SUBQ(2) IFMA(3) MINUQ(4) ANDQ(5) SUBQ(6)       \
    ADDQ(7) IFMA(8) PERMT2Q(9) SUBQ(10) IFMA(0) ADDQ(1) MINUQ(2) IFMA(3) ANDQ(4) SUBQ(5)       \
    ADDQ(6) PERMT2Q(7) IFMA(8) SUBQ(9) MINUQ(10) IFMA(0) ADDQ(1) SUBQ(2) IFMA(3) ANDQ(4)       \
    PERMT2Q(5) ADDQ(6) IFMA(7) MINUQ(8) SUBQ(9) IFMA(10) ADDQ(0) SUBQ(1) IFMA(2) ANDQ(3)       \
    PERMT2Q(4) MINUQ(5) ADDQ(6) SUBQ(7) IFMA(8)
/* lazy::SLOTH memory passes: every other layer reduces. */
#define SLOTH_MEM                                                                              \
    IFMA(0) ADDQ(1) SUBQ(2) IFMA(3) ANDQ(4) ADDQ(5) IFMA(6) MINUQ(7) SUBQ(8) IFMA(9)           \
    ADDQ(10) IFMA(0) ANDQ(1) SUBQ(2) ADDQ(3) IFMA(4) IFMA(5) SUBQ(6) ADDQ(7) IFMA(8) ANDQ(9)   \
    MINUQ(10) ADDQ(0) IFMA(1) SUBQ(2) IFMA(3) ADDQ(4) IFMA(5) SUBQ(6) ANDQ(7) ADDQ(8)          \
    IFMA(9) SUBQ(10) IFMA(0) ADDQ(1) MINUQ(2) IFMA(3) ANDQ(4) ADDQ(5) SUBQ(6) IFMA(7)          \
    IFMA(8) ADDQ(9) SUBQ(10) IFMA(0) ANDQ(1) ADDQ(2) IFMA(3) SUBQ(4) MINUQ(5) IFMA(6)          \
    ADDQ(7) IFMA(8) ANDQ(9) SUBQ(10) ADDQ(0) IFMA(1)
/* STD_BLOCK with the 64-bit minimum taken as `vminpd` (values below 2^52 order as doubles; a
 * wrapped difference has its top twelve bits set, a NaN `vminpd` passes over). */
#define MINPD(r) "vminpd %%zmm20, " R(r) ", " R(r) "\n"
#define STD_BLOCK_MINPD STD_BLOCK_OF(MINPD)
/* The 32-bit Shoup butterfly of 16 lanes: 2 vpmuludq + 2 vpmulld + 2 vpshufd + 3 subtractions
 * + 2 additions + 1 vpminud. */
#define SUBD(r) "vpsubd %%zmm20, " R(r) ", " R(r) "\n"
#define ADDD(r) "vpaddd %%zmm20, " R(r) ", " R(r) "\n"
#define MINUD(r) "vpminud %%zmm20, " R(r) ", " R(r) "\n"
#define U32_BFLY(a, b, c, d, e, f)                                                             \
    MULUDQ(a) MULLD(b) PSHUFD(c) SUBD(d) ADDD(e) MINUD(f) MULUDQ(b) MULLD(c) PSHUFD(d) SUBD(e) \
    ADDD(f) SUBD(a)
#define U32_GROUP U32_BFLY(0, 1, 2, 3, 4, 5) U32_BFLY(6, 7, 8, 9, 10, 11)

PROBE(p_std_block, STD_BLOCK)
PROBE(p_std_mem, STD_MEM)
PROBE(p_sloth_block, SLOTH_BLOCK)
PROBE(p_sloth_mem, SLOTH_MEM)
PROBE(p_std_block_minpd, STD_BLOCK_MINPD)
PROBE(p_u32_group, U32_GROUP)

/* Latencies: a chain of one instruction (its destination is its next input), four a loop
 * iteration. */
#define CHAIN(name, ins)                                                                       \
    static double name(void) {                                                                 \
        double a = now();                                                                      \
        __asm__ volatile("vpxorq %%zmm20, %%zmm20, %%zmm20\n"                                  \
                         "vpxorq %%zmm21, %%zmm21, %%zmm21\n"                                  \
                         "mov %0, %%rcx\n 1:\n" ins ins ins ins "dec %%rcx\n jnz 1b\n"          \
                         :                                                                     \
                         : "r"(N)                                                              \
                         : "rcx", "memory", "xmm0", "xmm20", "xmm21");                         \
        return (now() - a) / 4;                                                                \
    }
CHAIN(l_ifma, "vpmadd52luq %%zmm20, %%zmm21, %%zmm0\n")
CHAIN(l_minuq, "vpminuq %%zmm20, %%zmm0, %%zmm0\n")
CHAIN(l_addq, "vpaddq %%zmm20, %%zmm0, %%zmm0\n")
CHAIN(l_permt2q, "vpermt2q %%zmm20, %%zmm21, %%zmm0\n")
CHAIN(l_shufi64x2, "vshufi64x2 $0x4e, %%zmm20, %%zmm0, %%zmm0\n")
CHAIN(l_valignq, "valignq $2, %%zmm20, %%zmm0, %%zmm0\n")
CHAIN(l_unpcklqdq, "vpunpcklqdq %%zmm20, %%zmm0, %%zmm0\n")
CHAIN(l_shufpd, "vshufpd $0x55, %%zmm20, %%zmm0, %%zmm0\n")

/* Dependent butterflies (C intrinsics, not a fixed instruction stream): the STD butterfly of the
 * IFMA memory passes (three IFMA, the 52-bit mask, the conditional subtraction of `u`, `u + v`,
 * `u - v + 2q`) in radix-4 quads (two layers: the second layer's two butterflies take the
 * first's outputs), with a 50-bit modulus and Shoup quotients, so the values stay in [0, 4q)
 * as in the transforms. `quads_k`: k independent quads per iteration in registers, each quad
 * carried over to the next iteration (k = 1: one chain, its latency sets the pace).
 * `mem_pass`: the radix-4 memory pass over a 16 KB block (L1), one or two quads per iteration
 * (`pair`: the second set of four vectors 64 bytes on, its butterflies interleaved with the
 * first's). Cycles per vector butterfly. */
typedef __m512i V;
#define QMOD 1125899906826241ULL /* below 2^50 */
#define BF(x, y, w, wp)                                                                        \
    do {                                                                                       \
        V qh_ = _mm512_madd52hi_epu64(_mm512_setzero_si512(), y, wp);                          \
        V r_ = _mm512_madd52lo_epu64(_mm512_setzero_si512(), y, w);                            \
        V v_ = _mm512_and_si512(_mm512_madd52lo_epu64(r_, qh_, negq), mask);                   \
        V u_ = _mm512_min_epu64(x, _mm512_sub_epi64(x, q2));                                   \
        x = _mm512_add_epi64(u_, v_);                                                          \
        y = _mm512_sub_epi64(_mm512_add_epi64(u_, q2), v_);                                    \
    } while (0)
#define BF_CONSTS                                                                              \
    V q2 = _mm512_set1_epi64(2 * QMOD), negq = _mm512_set1_epi64((1LL << 52) - QMOD),          \
      mask = _mm512_set1_epi64((1LL << 52) - 1)
static V tw[3], twp[3];
static uint64_t block[2048] __attribute__((aligned(64)));
static volatile uint64_t sink;

static double quads_1(void) {
    BF_CONSTS;
    V a0 = tw[0], a1 = tw[1], a2 = tw[2], a3 = twp[0];
    double t = now();
    for (long i = 0; i < N; i++) {
        BF(a0, a2, tw[0], twp[0]); BF(a1, a3, tw[0], twp[0]);
        BF(a0, a1, tw[1], twp[1]); BF(a2, a3, tw[2], twp[2]);
    }
    t = now() - t;
    sink = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)));
    return t / 4;
}
static double quads_2(void) {
    BF_CONSTS;
    V a0 = tw[0], a1 = tw[1], a2 = tw[2], a3 = twp[0], b0 = twp[1], b1 = twp[2], b2 = tw[0], b3 = tw[1];
    double t = now();
    for (long i = 0; i < N; i++) {
        BF(a0, a2, tw[0], twp[0]); BF(b0, b2, tw[0], twp[0]);
        BF(a1, a3, tw[0], twp[0]); BF(b1, b3, tw[0], twp[0]);
        BF(a0, a1, tw[1], twp[1]); BF(b0, b1, tw[1], twp[1]);
        BF(a2, a3, tw[2], twp[2]); BF(b2, b3, tw[2], twp[2]);
    }
    t = now() - t;
    sink = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3))) +
           (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(b0, b1), _mm512_add_epi64(b2, b3)));
    return t / 8;
}
static double quads_3(void) {
    BF_CONSTS;
    V a0 = tw[0], a1 = tw[1], a2 = tw[2], a3 = twp[0], b0 = twp[1], b1 = twp[2], b2 = tw[0], b3 = tw[1];
    V c0 = tw[2], c1 = twp[0], c2 = twp[1], c3 = twp[2];
    double t = now();
    for (long i = 0; i < N; i++) {
        BF(a0, a2, tw[0], twp[0]); BF(b0, b2, tw[0], twp[0]); BF(c0, c2, tw[0], twp[0]);
        BF(a1, a3, tw[0], twp[0]); BF(b1, b3, tw[0], twp[0]); BF(c1, c3, tw[0], twp[0]);
        BF(a0, a1, tw[1], twp[1]); BF(b0, b1, tw[1], twp[1]); BF(c0, c1, tw[1], twp[1]);
        BF(a2, a3, tw[2], twp[2]); BF(b2, b3, tw[2], twp[2]); BF(c2, c3, tw[2], twp[2]);
    }
    t = now() - t;
    V s = _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3));
    s = _mm512_add_epi64(s, _mm512_add_epi64(_mm512_add_epi64(b0, b1), _mm512_add_epi64(b2, b3)));
    s = _mm512_add_epi64(s, _mm512_add_epi64(_mm512_add_epi64(c0, c1), _mm512_add_epi64(c2, c3)));
    sink = (uint64_t)_mm512_reduce_add_epi64(s);
    return t / 12;
}
/* One pass of distance t = 1024 over `block`, one or two quads per iteration. */
static void mem_pass(int pair) {
    BF_CONSTS;
    uint64_t *a = block;
    const long t = 1024, h = 512;
    if (!pair) {
        for (long j = 0; j < h; j += 8) {
            V x0 = _mm512_load_si512(a + j), x1 = _mm512_load_si512(a + j + h);
            V x2 = _mm512_load_si512(a + j + t), x3 = _mm512_load_si512(a + j + t + h);
            BF(x0, x2, tw[0], twp[0]); BF(x1, x3, tw[0], twp[0]);
            BF(x0, x1, tw[1], twp[1]); BF(x2, x3, tw[2], twp[2]);
            _mm512_store_si512(a + j, x0); _mm512_store_si512(a + j + h, x1);
            _mm512_store_si512(a + j + t, x2); _mm512_store_si512(a + j + t + h, x3);
        }
        return;
    }
    for (long j = 0; j < h; j += 16) {
        V x0 = _mm512_load_si512(a + j), x1 = _mm512_load_si512(a + j + h);
        V x2 = _mm512_load_si512(a + j + t), x3 = _mm512_load_si512(a + j + t + h);
        V y0 = _mm512_load_si512(a + j + 8), y1 = _mm512_load_si512(a + j + 8 + h);
        V y2 = _mm512_load_si512(a + j + 8 + t), y3 = _mm512_load_si512(a + j + 8 + t + h);
        BF(x0, x2, tw[0], twp[0]); BF(y0, y2, tw[0], twp[0]);
        BF(x1, x3, tw[0], twp[0]); BF(y1, y3, tw[0], twp[0]);
        BF(x0, x1, tw[1], twp[1]); BF(y0, y1, tw[1], twp[1]);
        BF(x2, x3, tw[2], twp[2]); BF(y2, y3, tw[2], twp[2]);
        _mm512_store_si512(a + j, x0); _mm512_store_si512(a + j + h, x1);
        _mm512_store_si512(a + j + t, x2); _mm512_store_si512(a + j + t + h, x3);
        _mm512_store_si512(a + j + 8, y0); _mm512_store_si512(a + j + 8 + h, y1);
        _mm512_store_si512(a + j + 8 + t, y2); _mm512_store_si512(a + j + 8 + t + h, y3);
    }
}
/* 256 vector butterflies per pass (64 quads); N / 256 passes. */
static double mem_single(void) {
    double t = now();
    for (long i = 0; i < N / 256; i++)
        mem_pass(0);
    return now() - t;
}
static double mem_pair(void) {
    double t = now();
    for (long i = 0; i < N / 256; i++)
        mem_pass(1);
    return now() - t;
}
static void dep_init(void) {
    const uint64_t w[3] = {123456789012345ULL % QMOD, 987654321098765ULL % QMOD,
                           555555555555555ULL % QMOD};
    for (int k = 0; k < 3; k++) {
        tw[k] = _mm512_set1_epi64((long long)w[k]);
        twp[k] = _mm512_set1_epi64((long long)(((unsigned __int128)w[k] << 52) / QMOD));
    }
    for (int i = 0; i < 2048; i++)
        block[i] = (uint64_t)i * 0x9e3779b97f4a7c15ULL % QMOD;
}

struct probe {
    const char *name;
    double (*f)(void);
    int per_loop; /* instructions (single probes) or groups (mixes) per iteration */
    const char *unit;
};

int main(void) {
    const struct probe probes[] = {
#define SINGLE_ROW(name, op, label) {label, name, 12, "instruction"},
        SINGLES(SINGLE_ROW)
        {"IFMA STD register block (79)", p_std_block, 1, "7 vector butterflies"},
        {"IFMA STD memory pass (63)", p_std_mem, 1, "7 vector butterflies"},
        {"IFMA SLOTH register block (75)", p_sloth_block, 1, "7 vector butterflies"},
        {"IFMA SLOTH memory pass (57)", p_sloth_mem, 1, "7 vector butterflies"},
        {"IFMA STD block, vminpd (79)", p_std_block_minpd, 1, "7 vector butterflies"},
        {"u32 Shoup butterfly (12 ops)", p_u32_group, 2, "vector butterfly"},
        {"latency vpmadd52luq zmm", l_ifma, 1, "instruction"},
        {"latency vpminuq zmm", l_minuq, 1, "instruction"},
        {"latency vpaddq zmm", l_addq, 1, "instruction"},
        {"latency vpermt2q zmm", l_permt2q, 1, "instruction"},
        {"latency vshufi64x2 zmm", l_shufi64x2, 1, "instruction"},
        {"latency valignq zmm", l_valignq, 1, "instruction"},
        {"latency vpunpcklqdq zmm", l_unpcklqdq, 1, "instruction"},
        {"latency vshufpd zmm", l_shufpd, 1, "instruction"},
        {"STD radix-4 quads, 1 in flight", quads_1, 1, "vector butterfly"},
        {"STD radix-4 quads, 2 in flight", quads_2, 1, "vector butterfly"},
        {"STD radix-4 quads, 3 in flight", quads_3, 1, "vector butterfly"},
        {"STD radix-4 pass in L1, 1 quad", mem_single, 1, "vector butterfly"},
        {"STD radix-4 pass in L1, 2 quads", mem_pair, 1, "vector butterfly"},
    };
    dep_init();
    double g = ghz();
    printf("core clock %.2f GHz\n", g);
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        double best = 1e30;
        for (int r = 0; r < 7; r++) {
            double s = probes[i].f();
            if (s < best)
                best = s;
        }
        double cycles = best * g * 1e9 / ((double)N * probes[i].per_loop);
        printf("%-32s %6.2f cycles per %s\n", probes[i].name, cycles, probes[i].unit);
    }
    return 0;
}
