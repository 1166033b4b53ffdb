/* latpoly from C: NTT products, RNS polynomials, and the error contract.
 * Build (see scripts/c_examples.sh):
 *   cc examples/c/ntt_demo.c -Icrates/latpoly-capi/include target/release/liblatpoly.a -lpthread -ldl -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latpoly.h"

#include "check.h"

int main(void) {
    enum { N = 1024 };
    uint64_t q;
    CHECK(latpoly_ntt_primes(50, N, 1, &q));
    latpoly_ntt_plan *plan = NULL;
    CHECK(latpoly_ntt_plan_new(N, q, &plan));
    const char *isa = NULL;
    CHECK(latpoly_ntt_plan_isa(plan, &isa));
    printf("latpoly %s: n=%d q=%llu backend=%s\n", latpoly_version(), N, (unsigned long long)q, isa);

    /* (1 + x) * (1 - x) = 1 - x^2 */
    static uint64_t a[N], b[N], c[N];
    a[0] = 1; a[1] = 1;
    b[0] = 1; b[1] = q - 1;
    CHECK(latpoly_ntt_multiply(plan, a, b, c, N));
    if (c[0] != 1 || c[1] != 0 || c[2] != q - 1) {
        fprintf(stderr, "wrong product: %llu %llu %llu\n", (unsigned long long)c[0],
                (unsigned long long)c[1], (unsigned long long)c[2]);
        return 1;
    }
    /* the same product into caller memory, no allocation; overlapping buffers are refused */
    static uint64_t d[N], scratch[N];
    CHECK(latpoly_ntt_multiply_into(plan, a, b, d, scratch, N));
    if (memcmp(c, d, sizeof c) != 0) { fprintf(stderr, "multiply_into differs\n"); return 1; }
    EXPECT(latpoly_ntt_multiply_into(plan, a, b, d, d, N), LATPOLY_STATUS_INVALID_PARAMETER);
    /* forward then inverse is the identity */
    memcpy(c, a, sizeof a);
    CHECK(latpoly_ntt_forward(plan, c, N));
    CHECK(latpoly_ntt_inverse(plan, c, N));
    if (memcmp(a, c, sizeof a) != 0) { fprintf(stderr, "round trip failed\n"); return 1; }

    /* The error contract: codes, never aborts. */
    EXPECT(latpoly_ntt_forward(NULL, c, N), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_ntt_forward(plan, NULL, N), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_ntt_forward(plan, c, N - 1), LATPOLY_STATUS_LENGTH_MISMATCH);
    c[7] = q; /* coefficient >= q */
    EXPECT(latpoly_ntt_forward(plan, c, N), LATPOLY_STATUS_OUT_OF_RANGE);
    latpoly_ntt_plan *bad = NULL;
    EXPECT(latpoly_ntt_plan_new(1000, q, &bad), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_ntt_plan_new(N, 17, &bad), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_ntt_plan_new(N, q, NULL), LATPOLY_STATUS_NULL_POINTER);

    /* RNS: 3 primes, product of two polynomials, and a mismatched handle. */
    uint64_t primes[3];
    CHECK(latpoly_ntt_primes(40, 16, 3, primes));
    /* more primes than a basis holds (4096): refused before a search of hours */
    static uint64_t many[4097];
    EXPECT(latpoly_ntt_primes(62, 2, 4097, many), LATPOLY_STATUS_INVALID_PARAMETER);
    latpoly_rns_context *ctx = NULL;
    CHECK(latpoly_rns_context_new(16, primes, 3, &ctx));
    static uint64_t res[3 * 16];
    for (int i = 0; i < 3; i++) res[16 * i + 1] = 1; /* x */
    latpoly_rns_poly *x = NULL, *x2 = NULL;
    CHECK(latpoly_rns_poly_from_residues(ctx, res, 48, 0, &x));
    CHECK(latpoly_rns_poly_multiply(x, x, &x2));
    static uint64_t out[48];
    int is_ntt = -1;
    CHECK(latpoly_rns_poly_residues(x2, out, 48, &is_ntt));
    for (int i = 0; i < 3; i++) {
        if (out[16 * i + 2] != 1 || is_ntt != 0) { fprintf(stderr, "x*x != x^2\n"); return 1; }
    }
    /* A context handle where a polynomial is expected, and a plan where a context is. */
    EXPECT(latpoly_rns_poly_multiply((const latpoly_rns_poly *)ctx, x, &x2), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_rns_poly_from_residues((const latpoly_rns_context *)plan, res, 48, 0, &x2),
           LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_rns_poly_from_residues(ctx, res, 47, 0, &x2), LATPOLY_STATUS_LENGTH_MISMATCH);
    res[5] = primes[0];
    EXPECT(latpoly_rns_poly_from_residues(ctx, res, 48, 0, &x2), LATPOLY_STATUS_OUT_OF_RANGE);

    /* KEM: NTRU+KEM576 through the generic (length-checked) and PQClean-style calls. */
    size_t pk_len, sk_len, ct_len, ss_len;
    CHECK(latpoly_kem_sizes("NTRU+KEM576", &pk_len, &sk_len, &ct_len, &ss_len));
    uint8_t *pk = malloc(pk_len), *sk = malloc(sk_len), *ct = malloc(ct_len);
    uint8_t ss1[32], ss2[32];
    if (!pk || !sk || !ct || ss_len != 32) { fprintf(stderr, "sizes\n"); return 1; }
    CHECK(latpoly_kem_keypair("NTRU+KEM576", pk, pk_len, sk, sk_len));
    CHECK(latpoly_kem_encapsulate("NTRU+KEM576", ct, ct_len, ss1, 32, pk, pk_len));
    CHECK(latpoly_ntruplus576_dec(ss2, ct, sk));
    if (memcmp(ss1, ss2, 32) != 0) { fprintf(stderr, "KEM shared secrets differ\n"); return 1; }
    CHECK(latpoly_ntruplus576_enc(ct, ss1, pk));
    ct[0] ^= 1; /* tampered: explicit rejection, an all-zero secret */
    CHECK(latpoly_kem_decapsulate("NTRU+KEM576", ss2, 32, ct, ct_len, sk, sk_len));
    for (int i = 0; i < 32; i++) if (ss2[i] != 0) { fprintf(stderr, "no rejection\n"); return 1; }
    EXPECT(latpoly_kem_keypair("NTRU+KEM576", pk, pk_len - 1, sk, sk_len), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_kem_keypair("no-such-kem", pk, pk_len, sk, sk_len), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_kem_keypair(NULL, pk, pk_len, sk, sk_len), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_ntruplus576_keypair(NULL, sk), LATPOLY_STATUS_NULL_POINTER);
    /* the secret key and the shared secrets: wiped before release */
    wipe_bytes(sk, sk_len);
    wipe_bytes(ss1, sizeof ss1);
    wipe_bytes(ss2, sizeof ss2);
    free(pk); free(sk); free(ct);

    /* NTRU-HPS and Streamlined NTRU Prime through the PQClean-style calls (fixed sizes),
       with implicit rejection: a tampered ciphertext gives a different, non-zero secret. */
    {
        static uint8_t npk[1158], nsk[1763], nct[1039];
        CHECK(latpoly_ntruhps2048509_keypair(npk, nsk));
        CHECK(latpoly_ntruhps2048509_enc(nct, ss1, npk));
        CHECK(latpoly_ntruhps2048509_dec(ss2, nct, nsk));
        if (memcmp(ss1, ss2, 32) != 0) { fprintf(stderr, "ntruhps2048509 secrets differ\n"); return 1; }
        nct[10] ^= 4;
        CHECK(latpoly_ntruhps2048509_dec(ss2, nct, nsk));
        if (memcmp(ss1, ss2, 32) == 0) { fprintf(stderr, "ntruhps2048509: no rejection\n"); return 1; }
        CHECK(latpoly_sntrup761_keypair(npk, nsk));
        CHECK(latpoly_sntrup761_enc(nct, ss1, npk));
        CHECK(latpoly_sntrup761_dec(ss2, nct, nsk));
        if (memcmp(ss1, ss2, 32) != 0) { fprintf(stderr, "sntrup761 secrets differ\n"); return 1; }
        EXPECT(latpoly_ntrulpr761_enc(NULL, ss1, npk), LATPOLY_STATUS_NULL_POINTER);
    }

    /* PQC ring products: x^(n-1) * x = 1 in NTRU's x^n - 1; x^760 * x = x + 1 in NTRU Prime;
       x^575 * x = x^288 - 1 in NTRU+576 (x^576 = x^288 - 1). */
    {
        static uint16_t ra[509], rb[509], rc[509];
        ra[508] = 1; rb[1] = 1;
        CHECK(latpoly_ntru_rq_mul(rc, ra, rb, 509));
        if (rc[0] != 1 || rc[1] != 0) { fprintf(stderr, "ntru_rq_mul\n"); return 1; }
        EXPECT(latpoly_ntru_rq_mul(rc, ra, rb, 512), LATPOLY_STATUS_INVALID_PARAMETER);
        /* mod q (2048 for n = 509): (-1) x^508 * x = 2047 */
        ra[508] = 0xffff;
        CHECK(latpoly_ntru_rq_mul_modq(rc, ra, rb, 509));
        if (rc[0] != 2047 || rc[1] != 0) { fprintf(stderr, "ntru_rq_mul_modq\n"); return 1; }
        EXPECT(latpoly_ntru_rq_mul_modq(rc, ra, rb, 700), LATPOLY_STATUS_INVALID_PARAMETER);
        EXPECT(latpoly_ntru_rq_mul_modq(rc, NULL, rb, 509), LATPOLY_STATUS_NULL_POINTER);
        ra[508] = 1;
        static int16_t pa[761], pb[761], pc[761];
        pa[760] = 1; pb[1] = 1;
        CHECK(latpoly_ntruprime_mul(pc, pa, pb, 761));
        if (pc[0] != 1 || pc[1] != 1 || pc[2] != 0) { fprintf(stderr, "ntruprime_mul\n"); return 1; }
        EXPECT(latpoly_ntruprime_mul(pc, pa, pb, 760), LATPOLY_STATUS_LENGTH_MISMATCH);
        static uint16_t qa[576], qb[576], qc[576];
        qa[575] = 1; qb[1] = 1;
        CHECK(latpoly_ntruplus_mul(qc, qa, qb, 576));
        if (qc[0] != 3456 || qc[288] != 1) { fprintf(stderr, "ntruplus_mul\n"); return 1; }
        qa[0] = 3457;
        EXPECT(latpoly_ntruplus_mul(qc, qa, qb, 576), LATPOLY_STATUS_OUT_OF_RANGE);
        qa[0] = 0;
        EXPECT(latpoly_ntruplus_mul(NULL, qa, qb, 576), LATPOLY_STATUS_NULL_POINTER);
    }

    latpoly_rns_poly_free(x);
    latpoly_rns_poly_free(x2);
    latpoly_rns_context_free(ctx);
    latpoly_ntt_plan_free(plan);
    latpoly_ntt_plan_free(NULL);
    printf("C example: all checks passed\n");
    return 0;
}
