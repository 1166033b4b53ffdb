/* latpoly from C for homomorphic encryption: samplers, RNS polynomials as exact integers and
 * bytes, BFV (keys, encrypt, add, multiply, relinearize, decrypt, noise budget, keys and
 * ciphertexts through bytes, slots and rotations, modulus switching) and LPR encryption, each
 * with its error contract.
 * Build (see scripts/c_examples.sh):
 *   cc examples/c/he_demo.c -Icrates/latpoly-capi/include target/release/liblatpoly.a -lpthread -ldl -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latpoly.h"

#include "check.h"

enum { N = 1024, L = 3, T = 65537 };

/* c = a * b in Z_T[x]/(x^N + 1), schoolbook: the reference the decryptions are checked
 * against. */
static void plain_mul(const uint64_t *a, const uint64_t *b, uint64_t *c) {
    for (int k = 0; k < N; k++) c[k] = 0;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            uint64_t p = a[i] * b[j] % T;
            int k = i + j;
            if (k < N) c[k] = (c[k] + p) % T;
            else c[k - N] = (c[k - N] + T - p) % T;
        }
    }
}

/* Samplers and RNS polynomials: small coefficients in, exact integers and bytes out. */
static int rns_part(latpoly_sampler *rng, latpoly_rns_context *ctx) {
    size_t n = 0, count = 0, width = 0;
    CHECK(latpoly_rns_context_info(ctx, &n, &count, &width));
    FAIL_IF(n != N || count != L || width != 19, "context info"); /* Q of 150 bits */
    static int64_t e[N];
    CHECK(latpoly_sampler_gaussian(rng, 3.19, e, N));
    e[0] = -1; /* Q - 1 in [0, Q), -1 centred */
    latpoly_rns_poly *p = NULL;
    CHECK(latpoly_rns_poly_from_i64(ctx, e, N, &p));
    /* centred integers give the samples back, sign-extended to 24 bytes */
    static uint8_t ints[N * 24];
    CHECK(latpoly_rns_poly_to_integers(p, 1, ints, 24, N * 24));
    for (int i = 0; i < N; i++) {
        int64_t v;
        memcpy(&v, ints + 24 * i, 8); /* little-endian host */
        for (int k = 8; k < 24; k++) FAIL_IF(ints[24 * i + k] != (v < 0 ? 0xff : 0), "sign extension");
        FAIL_IF(v != e[i], "centred integer");
    }
    /* unsigned: -1 is Q - 1, and reading the integers back gives the same polynomial */
    CHECK(latpoly_rns_poly_to_integers(p, 0, ints, 19, N * 19));
    latpoly_rns_poly *back = NULL, *diff = NULL;
    CHECK(latpoly_rns_poly_from_integers(ctx, ints, 19, N * 19, 0, &back));
    CHECK(latpoly_rns_poly_sub(p, back, &diff));
    static uint64_t res[L * N];
    CHECK(latpoly_rns_poly_residues(diff, res, L * N, NULL));
    for (int i = 0; i < L * N; i++) FAIL_IF(res[i] != 0, "integers round trip");
    /* bytes round trip */
    size_t len = 0;
    CHECK(latpoly_rns_poly_serialized_len(p, &len));
    uint8_t *bytes = malloc(len);
    FAIL_IF(bytes == NULL, "malloc");
    CHECK(latpoly_rns_poly_to_bytes(p, bytes, len));
    latpoly_rns_poly *read = NULL;
    CHECK(latpoly_rns_poly_from_bytes(ctx, bytes, len, &read));
    static uint64_t r2[L * N];
    CHECK(latpoly_rns_poly_residues(p, res, L * N, NULL));
    CHECK(latpoly_rns_poly_residues(read, r2, L * N, NULL));
    FAIL_IF(memcmp(res, r2, sizeof res) != 0, "bytes round trip");
    /* scalar product: 3 e - e - e - e = 0 */
    latpoly_rns_poly *three = NULL, *d1 = NULL, *d2 = NULL, *d3 = NULL;
    CHECK(latpoly_rns_poly_scalar_mul(p, 3, &three));
    CHECK(latpoly_rns_poly_sub(three, p, &d1));
    CHECK(latpoly_rns_poly_sub(d1, p, &d2));
    CHECK(latpoly_rns_poly_sub(d2, p, &d3));
    CHECK(latpoly_rns_poly_residues(d3, res, L * N, NULL));
    for (int i = 0; i < L * N; i++) FAIL_IF(res[i] != 0, "scalar_mul");
    /* in place: d1 = 2 e, d1 += d1 is 4 e; three -= e three times is zero */
    latpoly_rns_poly *four = NULL;
    CHECK(latpoly_rns_poly_scalar_mul(p, 4, &four));
    CHECK(latpoly_rns_poly_add_assign(d1, d1));
    CHECK(latpoly_rns_poly_residues(d1, res, L * N, NULL));
    CHECK(latpoly_rns_poly_residues(four, r2, L * N, NULL));
    FAIL_IF(memcmp(res, r2, sizeof res) != 0, "add_assign(a, a)");
    for (int k = 0; k < 3; k++) CHECK(latpoly_rns_poly_sub_assign(three, p));
    CHECK(latpoly_rns_poly_residues(three, res, L * N, NULL));
    for (int i = 0; i < L * N; i++) FAIL_IF(res[i] != 0, "sub_assign");
    /* negation: -(4 e) + 4 e = 0, in place and out of place */
    latpoly_rns_poly *minus = NULL;
    CHECK(latpoly_rns_poly_neg(four, &minus));
    CHECK(latpoly_rns_poly_neg_assign(four));
    CHECK(latpoly_rns_poly_residues(four, res, L * N, NULL));
    CHECK(latpoly_rns_poly_residues(minus, r2, L * N, NULL));
    FAIL_IF(memcmp(res, r2, sizeof res) != 0, "neg and neg_assign");
    CHECK(latpoly_rns_poly_add_assign(minus, d1));
    CHECK(latpoly_rns_poly_residues(minus, res, L * N, NULL));
    for (int i = 0; i < L * N; i++) FAIL_IF(res[i] != 0, "neg");
    latpoly_rns_poly_free(minus);
    /* sampled polynomials: a ternary one has coefficients in {-1, 0, 1} */
    latpoly_rns_poly *s = NULL;
    CHECK(latpoly_sampler_poly(rng, ctx, LATPOLY_DISTRIBUTION_TERNARY_FIXED, 64, &s));
    CHECK(latpoly_rns_poly_to_integers(s, 1, ints, 19, N * 19));
    int weight = 0;
    for (int i = 0; i < N; i++) {
        int64_t v;
        memcpy(&v, ints + 19 * i, 8);
        FAIL_IF(v < -1 || v > 1, "ternary coefficient");
        weight += v != 0;
    }
    FAIL_IF(weight != 64, "ternary weight");

    /* errors */
    EXPECT(latpoly_rns_poly_to_integers(p, 1, ints, 18, N * 18), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_rns_poly_to_integers(p, 1, ints, 19, N * 19 - 1), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_rns_poly_from_i64(ctx, e, N - 1, &back), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_rns_poly_from_i64(ctx, NULL, N, &back), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_rns_poly_to_bytes(p, bytes, len - 1), LATPOLY_STATUS_LENGTH_MISMATCH);
    bytes[0] ^= 0xff; /* a wrong magic */
    EXPECT(latpoly_rns_poly_from_bytes(ctx, bytes, len, &back), LATPOLY_STATUS_MALFORMED);
    EXPECT(latpoly_sampler_poly(rng, ctx, 99, 0, &back), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_sampler_poly(rng, ctx, LATPOLY_DISTRIBUTION_CBD, 2.5, &back),
           LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_sampler_uniform(rng, 0, res, N), LATPOLY_STATUS_INVALID_PARAMETER);
    /* a polynomial handle where a sampler is expected */
    EXPECT(latpoly_sampler_ternary((latpoly_sampler *)p, e, N), LATPOLY_STATUS_HANDLE_MISMATCH);

    free(bytes);
    latpoly_rns_poly_free(p);
    latpoly_rns_poly_free(back);
    latpoly_rns_poly_free(diff);
    latpoly_rns_poly_free(read);
    latpoly_rns_poly_free(three);
    latpoly_rns_poly_free(d1);
    latpoly_rns_poly_free(d2);
    latpoly_rns_poly_free(d3);
    latpoly_rns_poly_free(four);
    latpoly_rns_poly_free(s);
    return 0;
}

static int bfv_part(latpoly_sampler *rng, const uint64_t *moduli) {
    latpoly_bfv *bfv = NULL;
    CHECK(latpoly_bfv_new(N, moduli, L, T, 3.19, &bfv));
    latpoly_bfv_keys *keys = NULL;
    CHECK(latpoly_bfv_keygen(bfv, rng, &keys));
    static uint64_t m1[N], m2[N], want[N], got[N];
    CHECK(latpoly_sampler_uniform(rng, T, m1, N));
    CHECK(latpoly_sampler_uniform(rng, T, m2, N));
    latpoly_bfv_ciphertext *c1 = NULL, *c2 = NULL, *sum = NULL, *prod = NULL, *prod3 = NULL,
                           *relin = NULL, *rebuilt = NULL, *plus = NULL,
                           *minus = NULL, *neg = NULL, *scaled = NULL;
    CHECK(latpoly_bfv_encrypt(bfv, keys, rng, m1, N, &c1));
    CHECK(latpoly_bfv_encrypt(bfv, keys, rng, m2, N, &c2));
    CHECK(latpoly_bfv_decrypt(bfv, keys, c1, got, N));
    FAIL_IF(memcmp(got, m1, sizeof got) != 0, "decrypt(encrypt(m))");
    /* sum */
    CHECK(latpoly_bfv_add(bfv, c1, c2, &sum));
    CHECK(latpoly_bfv_decrypt(bfv, keys, sum, got, N));
    for (int i = 0; i < N; i++) FAIL_IF(got[i] != (m1[i] + m2[i]) % T, "add");
    /* product, relinearized in one call and in two */
    plain_mul(m1, m2, want);
    CHECK(latpoly_bfv_multiply_relin(bfv, keys, c1, c2, &prod));
    CHECK(latpoly_bfv_decrypt(bfv, keys, prod, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "multiply_relin");
    uint32_t budget = 0, fresh = 0;
    CHECK(latpoly_bfv_noise_budget(bfv, keys, c1, &fresh));
    CHECK(latpoly_bfv_noise_budget(bfv, keys, prod, &budget));
    FAIL_IF(budget == 0 || budget >= fresh, "noise budget");
    CHECK(latpoly_bfv_multiply(bfv, c1, c2, &prod3));
    size_t parts = 0;
    CHECK(latpoly_bfv_ciphertext_len(prod3, &parts));
    FAIL_IF(parts != 3, "an unrelinearized product has 3 parts");
    CHECK(latpoly_bfv_relinearize(bfv, keys, prod3, &relin));
    CHECK(latpoly_bfv_decrypt(bfv, keys, relin, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "relinearize");
    /* the 3-part ciphertext through bytes, rebuilt in the instance's context */
    latpoly_rns_context *ctx = NULL;
    CHECK(latpoly_bfv_context(bfv, &ctx));
    const latpoly_rns_poly *read[3];
    latpoly_rns_poly *owned[3] = {NULL, NULL, NULL};
    for (size_t i = 0; i < parts; i++) {
        latpoly_rns_poly *part = NULL;
        CHECK(latpoly_bfv_ciphertext_part(prod3, i, &part));
        size_t len = 0;
        CHECK(latpoly_rns_poly_serialized_len(part, &len));
        uint8_t *bytes = malloc(len);
        FAIL_IF(bytes == NULL, "malloc");
        CHECK(latpoly_rns_poly_to_bytes(part, bytes, len));
        CHECK(latpoly_rns_poly_from_bytes(ctx, bytes, len, &owned[i]));
        read[i] = owned[i];
        free(bytes);
        latpoly_rns_poly_free(part);
    }
    CHECK(latpoly_bfv_ciphertext_from_parts(bfv, read, parts, &rebuilt));
    CHECK(latpoly_bfv_decrypt(bfv, keys, rebuilt, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "ciphertext through bytes");
    /* plus a plaintext */
    CHECK(latpoly_bfv_add_plain(bfv, prod, m1, N, &plus));
    CHECK(latpoly_bfv_decrypt(bfv, keys, plus, got, N));
    for (int i = 0; i < N; i++) FAIL_IF(got[i] != (want[i] + m1[i]) % T, "add_plain");
    /* minus the same plaintext, back to the product; the negation */
    CHECK(latpoly_bfv_sub_plain(bfv, plus, m1, N, &minus));
    CHECK(latpoly_bfv_decrypt(bfv, keys, minus, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "sub_plain");
    CHECK(latpoly_bfv_negate(bfv, c1, &neg));
    CHECK(latpoly_bfv_decrypt(bfv, keys, neg, got, N));
    for (int i = 0; i < N; i++) FAIL_IF(got[i] != (T - m1[i]) % T, "negate");
    /* times a constant (T - 2 is -2) */
    CHECK(latpoly_bfv_multiply_scalar(bfv, c1, T - 2, &scaled));
    CHECK(latpoly_bfv_decrypt(bfv, keys, scaled, got, N));
    for (int i = 0; i < N; i++)
        FAIL_IF(got[i] != (uint64_t)m1[i] * (T - 2) % T, "multiply_scalar");

    /* errors */
    latpoly_bfv_ciphertext *x = NULL;
    m1[5] = T; /* not below t */
    EXPECT(latpoly_bfv_encrypt(bfv, keys, rng, m1, N, &x), LATPOLY_STATUS_OUT_OF_RANGE);
    EXPECT(latpoly_bfv_sub_plain(bfv, c1, m1, N, &x), LATPOLY_STATUS_OUT_OF_RANGE);
    m1[5] = 0;
    EXPECT(latpoly_bfv_sub_plain(bfv, c1, m1, N - 1, &x), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_bfv_negate(bfv, NULL, &x), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_negate(bfv, c1, NULL), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_multiply_scalar(bfv, c1, T, &x), LATPOLY_STATUS_OUT_OF_RANGE);
    EXPECT(latpoly_bfv_multiply_scalar(bfv, NULL, 1, &x), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_multiply_scalar(bfv, c1, 1, NULL), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_sub_plain(bfv, NULL, m1, N, &x), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_sub_plain(bfv, c1, NULL, N, &x), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_encrypt(bfv, keys, rng, m1, N - 1, &x), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_bfv_decrypt(bfv, keys, c1, got, N - 1), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_bfv_add(bfv, c1, NULL, &x), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_add(bfv, c1, c2, NULL), LATPOLY_STATUS_NULL_POINTER);
    latpoly_rns_poly *none = NULL; /* 2 parts after relinearization: no part 2 */
    EXPECT(latpoly_bfv_ciphertext_part(prod, 2, &none), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_ciphertext_from_parts(bfv, read, 1, &x), LATPOLY_STATUS_INVALID_PARAMETER);
    /* keys where a ciphertext is expected; a ciphertext of other parameters */
    EXPECT(latpoly_bfv_add(bfv, c1, (const latpoly_bfv_ciphertext *)keys, &x),
           LATPOLY_STATUS_HANDLE_MISMATCH);
    latpoly_bfv *small = NULL;
    CHECK(latpoly_bfv_new(N, moduli, 2, T, 3.19, &small));
    EXPECT(latpoly_bfv_add(small, c1, c2, &x), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_negate(small, c1, &x), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_sub_plain(small, c1, m1, N, &x), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_multiply_scalar(small, c1, 1, &x), LATPOLY_STATUS_HANDLE_MISMATCH);
    uint64_t composite[3] = {moduli[0], moduli[1], 15};
    EXPECT(latpoly_bfv_new(N, composite, 3, T, 3.19, &small), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_new(N, moduli, L, T, 0.0, &small), LATPOLY_STATUS_INVALID_PARAMETER);
    printf("BFV n=%d, %d primes, t=%d: add, negate, plaintexts, multiply, relinearize, bytes: ok (noise budget "
           "%u -> %u bits)\n", N, L, T, fresh, budget);

    for (size_t i = 0; i < parts; i++) latpoly_rns_poly_free(owned[i]);
    latpoly_rns_context_free(ctx);
    latpoly_bfv_ciphertext_free(c1);
    latpoly_bfv_ciphertext_free(c2);
    latpoly_bfv_ciphertext_free(sum);
    latpoly_bfv_ciphertext_free(prod);
    latpoly_bfv_ciphertext_free(prod3);
    latpoly_bfv_ciphertext_free(relin);
    latpoly_bfv_ciphertext_free(rebuilt);
    latpoly_bfv_ciphertext_free(plus);
    latpoly_bfv_ciphertext_free(minus);
    latpoly_bfv_ciphertext_free(neg);
    latpoly_bfv_ciphertext_free(scaled);
    latpoly_bfv_keys_free(keys);
    latpoly_bfv_free(small);
    latpoly_bfv_free(bfv);
    return 0;
}

/* Serialized bytes of key `which` of `keys` (malloc'd; its length to *len). */
static uint8_t *key_bytes(const latpoly_bfv_keys *keys, uint32_t which, size_t *len) {
    if (latpoly_bfv_keys_serialized_len(keys, which, len) != LATPOLY_STATUS_OK) return NULL;
    uint8_t *b = malloc(*len);
    if (b == NULL) return NULL;
    /* one byte short is refused and writes nothing */
    if (*len > 0 && latpoly_bfv_keys_to_bytes(keys, which, b, *len - 1) !=
                        LATPOLY_STATUS_LENGTH_MISMATCH) {
        free(b);
        return NULL;
    }
    if (latpoly_bfv_keys_to_bytes(keys, which, b, *len) != LATPOLY_STATUS_OK) {
        free(b);
        return NULL;
    }
    return b;
}

/* Keys and ciphertexts through bytes: a server holding only the public and relinearization
 * keys computes a product, a client holding only the secret key decrypts it. */
static int bfv_bytes_part(latpoly_sampler *rng, const uint64_t *moduli) {
    latpoly_bfv *bfv = NULL, *two = NULL;
    CHECK(latpoly_bfv_new(N, moduli, L, T, 3.19, &bfv));
    CHECK(latpoly_bfv_new(N, moduli, 2, T, 3.19, &two));
    latpoly_bfv_keys *keys = NULL, *server = NULL, *client = NULL, *x = NULL;
    CHECK(latpoly_bfv_keygen(bfv, rng, &keys));
    size_t sk_len = 0, pk_len = 0, rlk_len = 0;
    uint8_t *sk = key_bytes(keys, LATPOLY_BFV_KEY_SECRET, &sk_len);
    uint8_t *pk = key_bytes(keys, LATPOLY_BFV_KEY_PUBLIC, &pk_len);
    uint8_t *rlk = key_bytes(keys, LATPOLY_BFV_KEY_RELIN, &rlk_len);
    FAIL_IF(sk == NULL || pk == NULL || rlk == NULL, "key bytes");
    /* header, primes, two bits per coefficient; 50-bit residues for the other keys (the
       relinearization key's over the L primes and a 50-bit special prime) */
    FAIL_IF(sk_len != 10 + 8 * L + N / 4 || memcmp(sk, "LPLY\x01\x05", 6) != 0, "secret key bytes");
    /* compact keys: a 32-byte seed in place of the uniform polynomials */
    FAIL_IF(pk_len != 8 + 32 + 10 + 8 * L + N * L * 50 / 8, "public key length");
    FAIL_IF(rlk_len != 8 + 32 + L * (10 + 8 * (L + 1) + N * (L + 1) * 50 / 8),
            "relinearization key length");

    CHECK(latpoly_bfv_keys_from_bytes(bfv, NULL, 0, pk, pk_len, rlk, rlk_len, NULL, 0, &server));
    CHECK(latpoly_bfv_keys_from_bytes(bfv, sk, sk_len, NULL, 0, NULL, 0, NULL, 0, &client));
    int has[3];
    for (uint32_t w = 0; w < 3; w++) CHECK(latpoly_bfv_keys_has(server, w, &has[w]));
    FAIL_IF(has[LATPOLY_BFV_KEY_SECRET] != 0 || has[LATPOLY_BFV_KEY_PUBLIC] != 1 ||
                has[LATPOLY_BFV_KEY_RELIN] != 1, "server key set");

    static uint64_t m1[N], m2[N], want[N], got[N];
    CHECK(latpoly_sampler_uniform(rng, T, m1, N));
    CHECK(latpoly_sampler_uniform(rng, T, m2, N));
    latpoly_bfv_ciphertext *c1 = NULL, *c2 = NULL, *prod = NULL, *back = NULL, *y = NULL;
    CHECK(latpoly_bfv_encrypt(bfv, server, rng, m1, N, &c1));
    CHECK(latpoly_bfv_encrypt(bfv, server, rng, m2, N, &c2));
    CHECK(latpoly_bfv_multiply_relin(bfv, server, c1, c2, &prod));
    size_t ct_len = 0;
    CHECK(latpoly_bfv_ciphertext_serialized_len(prod, &ct_len));
    uint8_t *ct = malloc(ct_len);
    FAIL_IF(ct == NULL, "malloc");
    CHECK(latpoly_bfv_ciphertext_to_bytes(prod, ct, ct_len));
    CHECK(latpoly_bfv_ciphertext_from_bytes(bfv, ct, ct_len, &back));
    CHECK(latpoly_bfv_decrypt(bfv, client, back, got, N));
    plain_mul(m1, m2, want);
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "product through bytes");

    /* The client encrypts with its secret key in compact form (c_0 and the 32-byte seed of
       c_1, half the bytes); the server expands it and computes with it. */
    size_t sct_len = 0;
    CHECK(latpoly_bfv_seeded_ciphertext_len(bfv, &sct_len));
    FAIL_IF(sct_len != 8 + 32 + 10 + 8 * L + N * L * 50 / 8, "seeded ciphertext length");
    uint8_t *sct = malloc(sct_len);
    FAIL_IF(sct == NULL, "malloc");
    CHECK(latpoly_bfv_encrypt_symmetric_to_bytes(bfv, client, rng, m1, N, sct, sct_len));
    latpoly_bfv_ciphertext *s1 = NULL, *s2 = NULL, *sprod = NULL;
    CHECK(latpoly_bfv_ciphertext_from_seeded_bytes(bfv, sct, sct_len, &s1));
    CHECK(latpoly_bfv_multiply_relin(bfv, server, s1, c2, &sprod));
    CHECK(latpoly_bfv_decrypt(bfv, client, sprod, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "product of a symmetric ciphertext");
    CHECK(latpoly_bfv_encrypt_symmetric(bfv, client, rng, m2, N, &s2));
    CHECK(latpoly_bfv_decrypt(bfv, client, s2, got, N));
    FAIL_IF(memcmp(got, m2, sizeof got) != 0, "symmetric encryption");
    EXPECT(latpoly_bfv_encrypt_symmetric_to_bytes(bfv, client, rng, m1, N, sct, sct_len - 1),
           LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_bfv_encrypt_symmetric_to_bytes(bfv, server, rng, m1, N, sct, sct_len),
           LATPOLY_STATUS_INVALID_PARAMETER); /* no secret key in the server's set */
    EXPECT(latpoly_bfv_encrypt_symmetric(bfv, client, rng, m1, N - 1, &y),
           LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_bfv_ciphertext_from_seeded_bytes(bfv, ct, ct_len, &y), LATPOLY_STATUS_MALFORMED);
    EXPECT(latpoly_bfv_ciphertext_from_seeded_bytes(bfv, sct, sct_len - 1, &y),
           LATPOLY_STATUS_MALFORMED);
    EXPECT(latpoly_bfv_ciphertext_from_seeded_bytes(two, sct, sct_len, &y),
           LATPOLY_STATUS_HANDLE_MISMATCH);
    latpoly_bfv_ciphertext_free(s1);
    latpoly_bfv_ciphertext_free(s2);
    latpoly_bfv_ciphertext_free(sprod);
    free(sct);

    /* a key set without the key a call needs */
    EXPECT(latpoly_bfv_decrypt(bfv, server, back, got, N), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_encrypt(bfv, client, rng, m1, N, &y), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_relinearize(bfv, client, prod, &y), LATPOLY_STATUS_INVALID_PARAMETER);
    size_t len = 0;
    EXPECT(latpoly_bfv_keys_serialized_len(server, LATPOLY_BFV_KEY_SECRET, &len),
           LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_keys_serialized_len(keys, 7, &len), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_keys_to_bytes(client, LATPOLY_BFV_KEY_PUBLIC, pk, pk_len),
           LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_keys_has(keys, 4, &has[0]), LATPOLY_STATUS_INVALID_PARAMETER);
    /* bad bytes and bad calls */
    EXPECT(latpoly_bfv_keys_from_bytes(bfv, NULL, 0, NULL, 0, NULL, 0, NULL, 0, &x),
           LATPOLY_STATUS_INVALID_PARAMETER);
    sk[sk_len - 1] |= 0xc0; /* the invalid code 3 */
    EXPECT(latpoly_bfv_keys_from_bytes(bfv, sk, sk_len, NULL, 0, NULL, 0, NULL, 0, &x), LATPOLY_STATUS_MALFORMED);
    EXPECT(latpoly_bfv_keys_from_bytes(bfv, NULL, 0, pk, pk_len - 1, NULL, 0, NULL, 0, &x),
           LATPOLY_STATUS_MALFORMED);
    EXPECT(latpoly_bfv_keys_from_bytes(bfv, NULL, 0, rlk, rlk_len, NULL, 0, NULL, 0, &x),
           LATPOLY_STATUS_MALFORMED); /* a relinearization key is not a public key */
    EXPECT(latpoly_bfv_keys_from_bytes(two, NULL, 0, pk, pk_len, NULL, 0, NULL, 0, &x),
           LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_keys_from_bytes(bfv, NULL, 0, pk, pk_len, NULL, 0, NULL, 0, NULL),
           LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_ciphertext_from_bytes(bfv, ct, ct_len - 1, &y), LATPOLY_STATUS_MALFORMED);
    EXPECT(latpoly_bfv_ciphertext_from_bytes(bfv, pk, pk_len, &y), LATPOLY_STATUS_MALFORMED);
    EXPECT(latpoly_bfv_ciphertext_from_bytes(two, ct, ct_len, &y), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_ciphertext_from_bytes(bfv, NULL, ct_len, &y), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_ciphertext_to_bytes(prod, ct, ct_len - 1), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_bfv_keys_has((const latpoly_bfv_keys *)prod, 0, &has[0]),
           LATPOLY_STATUS_HANDLE_MISMATCH);
    FAIL_IF(x != NULL || y != NULL, "no handle on failure");
    printf("BFV keys and ciphertexts through bytes: secret %zu, public %zu, relinearization %zu, "
           "ciphertext %zu bytes: ok\n", sk_len, pk_len, rlk_len, ct_len);

    /* secret-key bytes: wipe before release */
    wipe_bytes(sk, sk_len);
    free(sk);
    free(pk);
    free(rlk);
    free(ct);
    latpoly_bfv_ciphertext_free(c1);
    latpoly_bfv_ciphertext_free(c2);
    latpoly_bfv_ciphertext_free(prod);
    latpoly_bfv_ciphertext_free(back);
    latpoly_bfv_keys_free(keys);
    latpoly_bfv_keys_free(server);
    latpoly_bfv_keys_free(client);
    latpoly_bfv_free(two);
    latpoly_bfv_free(bfv);
    return 0;
}

/* Batching: N slots mod T = 65537 (prime, 1 mod 2N) as 2 rows of N/2; rotations by Galois
 * keys, which also travel as bytes. */
static int bfv_slots_part(latpoly_sampler *rng, const uint64_t *moduli) {
    latpoly_bfv *bfv = NULL;
    CHECK(latpoly_bfv_new(N, moduli, L, T, 3.19, &bfv));
    int yes = 0;
    CHECK(latpoly_bfv_batching(bfv, &yes));
    FAIL_IF(yes != 1, "batching");
    latpoly_bfv_keys *keys = NULL, *rot = NULL, *server = NULL, *x = NULL;
    CHECK(latpoly_bfv_keygen(bfv, rng, &keys));
    size_t g[3];
    CHECK(latpoly_bfv_rotation_element(bfv, 1, &g[0]));
    CHECK(latpoly_bfv_rotation_element(bfv, -3, &g[1]));
    CHECK(latpoly_bfv_row_swap_element(bfv, &g[2]));
    FAIL_IF(g[0] != 3 || g[2] != 2 * N - 1, "Galois elements");
    CHECK(latpoly_bfv_keys_with_galois(bfv, keys, rng, g, 3, &rot));
    static uint64_t v[N], plain[N], got[N], want[N];
    for (int i = 0; i < N; i++) v[i] = (uint64_t)i * i % T;
    CHECK(latpoly_bfv_encode_slots(bfv, v, plain, N));
    CHECK(latpoly_bfv_decode_slots(bfv, plain, got, N));
    FAIL_IF(memcmp(got, v, sizeof got) != 0, "slots round trip");
    latpoly_bfv_ciphertext *c = NULL, *r = NULL, *y = NULL;
    CHECK(latpoly_bfv_encrypt(bfv, rot, rng, plain, N, &c));
    /* the Galois keys to bytes and into a server's set without the secret key */
    size_t gk_len = 0;
    CHECK(latpoly_bfv_keys_serialized_len(rot, LATPOLY_BFV_KEY_GALOIS, &gk_len));
    uint8_t *gk = malloc(gk_len);
    FAIL_IF(gk == NULL, "malloc");
    CHECK(latpoly_bfv_keys_to_bytes(rot, LATPOLY_BFV_KEY_GALOIS, gk, gk_len));
    CHECK(latpoly_bfv_keys_from_bytes(bfv, NULL, 0, NULL, 0, NULL, 0, gk, gk_len, &server));
    const int half = N / 2;
    for (int k = 0; k < 3; k++) {
        CHECK(latpoly_bfv_apply_galois(bfv, server, c, g[k], &r));
        CHECK(latpoly_bfv_decrypt(bfv, keys, r, plain, N));
        CHECK(latpoly_bfv_decode_slots(bfv, plain, got, N));
        int steps = k == 0 ? 1 : -3;
        for (int i = 0; i < N; i++) {
            int row = i / half, col = i % half;
            want[i] = k == 2 ? v[(1 - row) * half + col]
                             : v[row * half + ((col + steps) % half + half) % half];
        }
        FAIL_IF(memcmp(got, want, sizeof got) != 0, "rotated slots");
        latpoly_bfv_ciphertext_free(r);
        r = NULL;
    }
    /* a plaintext product, slot-wise: v * (3, 3, ...) */
    static uint64_t threes[N], w3[N];
    for (int i = 0; i < N; i++) threes[i] = 3;
    CHECK(latpoly_bfv_encode_slots(bfv, threes, w3, N));
    CHECK(latpoly_bfv_multiply_plain(bfv, c, w3, N, &r));
    CHECK(latpoly_bfv_decrypt(bfv, keys, r, plain, N));
    CHECK(latpoly_bfv_decode_slots(bfv, plain, got, N));
    for (int i = 0; i < N; i++) FAIL_IF(got[i] != v[i] * 3 % T, "multiply_plain");
    latpoly_bfv_ciphertext_free(r);
    r = NULL;
    EXPECT(latpoly_bfv_multiply_plain(bfv, c, w3, N - 1, &y), LATPOLY_STATUS_LENGTH_MISMATCH);
    /* the identity needs no Galois keys; slots convert in place */
    CHECK(latpoly_bfv_apply_galois(bfv, keys, c, 1, &r));
    CHECK(latpoly_bfv_decrypt(bfv, keys, r, plain, N));
    CHECK(latpoly_bfv_decode_slots(bfv, plain, plain, N));
    FAIL_IF(memcmp(plain, v, sizeof v) != 0, "identity and in-place decoding");
    latpoly_bfv_ciphertext_free(r);
    r = NULL;
    /* errors: no key for the element, an even element, no Galois keys, wrong lengths */
    size_t g2 = 0;
    CHECK(latpoly_bfv_rotation_element(bfv, 2, &g2));
    EXPECT(latpoly_bfv_apply_galois(bfv, rot, c, g2, &y), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_apply_galois(bfv, rot, c, 4, &y), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_apply_galois(bfv, keys, c, g[0], &y), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_keys_with_galois(bfv, server, rng, g, 3, &x), LATPOLY_STATUS_INVALID_PARAMETER);
    size_t even = 6;
    EXPECT(latpoly_bfv_keys_with_galois(bfv, keys, rng, &even, 1, &x), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_encode_slots(bfv, v, plain, N - 1), LATPOLY_STATUS_LENGTH_MISMATCH);
    v[5] = T;
    EXPECT(latpoly_bfv_encode_slots(bfv, v, plain, N), LATPOLY_STATUS_OUT_OF_RANGE);
    EXPECT(latpoly_bfv_keys_from_bytes(bfv, NULL, 0, NULL, 0, NULL, 0, gk, gk_len - 1, &x),
           LATPOLY_STATUS_MALFORMED);
    latpoly_bfv *plain_t = NULL;
    CHECK(latpoly_bfv_new(N, moduli, L, 256, 3.19, &plain_t));
    CHECK(latpoly_bfv_batching(plain_t, &yes));
    FAIL_IF(yes != 0, "no batching for t = 256");
    EXPECT(latpoly_bfv_encode_slots(plain_t, got, plain, N), LATPOLY_STATUS_INVALID_PARAMETER);
    FAIL_IF(x != NULL || y != NULL, "no handle on failure");
    printf("BFV slots: %d values mod %d, rotations by 1 and -3 and the row swap (Galois keys "
           "through %zu bytes): ok\n", N, T, gk_len);

    free(gk);
    latpoly_bfv_ciphertext_free(c);
    latpoly_bfv_keys_free(keys);
    latpoly_bfv_keys_free(rot);
    latpoly_bfv_keys_free(server);
    latpoly_bfv_free(plain_t);
    latpoly_bfv_free(bfv);
    return 0;
}

static int lpr_part(latpoly_sampler *rng) {
    latpoly_lpr *lpr = NULL;
    CHECK(latpoly_lpr_new(256, &lpr));
    size_t n = 0, mlen = 0;
    uint64_t q = 0;
    CHECK(latpoly_lpr_sizes(lpr, &n, &q, &mlen));
    FAIL_IF(n != 256 || q != 12289 || mlen != 32, "LPR sizes");
    latpoly_lpr_public_key *pk = NULL, *pk2 = NULL;
    latpoly_lpr_secret_key *sk = NULL;
    CHECK(latpoly_lpr_keygen(lpr, rng, &pk, &sk));
    /* the public key through its values */
    static uint16_t pkv[512], ct[512];
    CHECK(latpoly_lpr_public_key_export(pk, pkv, 512));
    CHECK(latpoly_lpr_public_key_import(lpr, pkv, 512, &pk2));
    uint8_t msg[32], out[32];
    for (int i = 0; i < 32; i++) msg[i] = (uint8_t)(37 * i + 11);
    CHECK(latpoly_lpr_encrypt(lpr, pk2, rng, msg, 32, ct, 512));
    CHECK(latpoly_lpr_decrypt(lpr, sk, ct, 512, out, 32));
    FAIL_IF(memcmp(msg, out, 32) != 0, "LPR round trip");

    /* a batch of 5 ciphertexts, on the calling thread and on 2 threads */
    enum { B = 5 };
    static uint16_t cts[B * 512];
    uint8_t msgs[B * 32], outs[B * 32];
    for (int i = 0; i < B * 32; i++) msgs[i] = (uint8_t)(i * 7 + 3);
    for (int b = 0; b < B; b++)
        CHECK(latpoly_lpr_encrypt(lpr, pk, rng, msgs + 32 * b, 32, cts + 512 * b, 512));
    for (size_t threads = 0; threads <= 2; threads += 2) {
        memset(outs, 0, sizeof outs);
        CHECK(latpoly_lpr_decrypt_batch(lpr, sk, cts, B * 512, B, threads, outs, B * 32));
        FAIL_IF(memcmp(msgs, outs, sizeof msgs) != 0, "LPR batch");
    }
    EXPECT(latpoly_lpr_decrypt_batch(lpr, sk, cts, B * 512, B - 1, 0, outs, (B - 1) * 32),
           LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_lpr_decrypt_batch(lpr, sk, cts, B * 512, B, 0, outs, B * 32 - 1),
           LATPOLY_STATUS_LENGTH_MISMATCH);
    cts[512 * 3 + 9] = 12289; /* not below q, in the fourth ciphertext */
    EXPECT(latpoly_lpr_decrypt_batch(lpr, sk, cts, B * 512, B, 2, outs, B * 32),
           LATPOLY_STATUS_OUT_OF_RANGE);

    /* errors */
    EXPECT(latpoly_lpr_new(300, &lpr), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_lpr_encrypt(lpr, pk, rng, msg, 31, ct, 512), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_lpr_encrypt(lpr, pk, rng, msg, 32, ct, 511), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_lpr_decrypt(lpr, sk, ct, 512, out, 16), LATPOLY_STATUS_LENGTH_MISMATCH);
    EXPECT(latpoly_lpr_decrypt(lpr, (const latpoly_lpr_secret_key *)pk, ct, 512, out, 32),
           LATPOLY_STATUS_HANDLE_MISMATCH);
    ct[7] = 12289; /* not below q */
    EXPECT(latpoly_lpr_decrypt(lpr, sk, ct, 512, out, 32), LATPOLY_STATUS_OUT_OF_RANGE);
    pkv[0] = 20000;
    EXPECT(latpoly_lpr_public_key_import(lpr, pkv, 512, &pk2), LATPOLY_STATUS_OUT_OF_RANGE);
    EXPECT(latpoly_lpr_keygen(lpr, rng, NULL, &sk), LATPOLY_STATUS_NULL_POINTER);
    printf("LPR n=256, q=12289: 32-byte message round trip, a batch of %d on 0 and 2 threads: "
           "ok\n", B);

    latpoly_lpr_public_key_free(pk);
    latpoly_lpr_public_key_free(pk2);
    latpoly_lpr_secret_key_free(sk);
    latpoly_lpr_free(lpr);
    return 0;
}

/* Modulus switching: the server shortens a product to one prime before sending it; the client
 * decrypts it with its secret key in one limb. */
static int bfv_mod_switch_part(latpoly_sampler *rng, const uint64_t *moduli) {
    latpoly_bfv *bfv = NULL, *low = NULL, *x = NULL, *other = NULL, *fresh = NULL;
    CHECK(latpoly_bfv_new(N, moduli, L, T, 3.19, &bfv));
    CHECK(latpoly_bfv_lower(bfv, 1, &low));
    latpoly_bfv_keys *keys = NULL, *low_sk = NULL, *low_keys = NULL, *k = NULL;
    CHECK(latpoly_bfv_keygen(bfv, rng, &keys));
    CHECK(latpoly_bfv_secret_key_for(bfv, keys, low, &low_sk));
    static uint64_t m1[N], m2[N], want[N], got[N];
    CHECK(latpoly_sampler_uniform(rng, T, m1, N));
    CHECK(latpoly_sampler_uniform(rng, T, m2, N));
    plain_mul(m1, m2, want);
    latpoly_bfv_ciphertext *c1 = NULL, *c2 = NULL, *prod = NULL, *tensor = NULL, *y = NULL;
    latpoly_bfv_ciphertext *short_prod = NULL, *short_tensor = NULL, *relin = NULL;
    latpoly_bfv_ciphertext *relin_full = NULL, *fresh_tensor = NULL;
    CHECK(latpoly_bfv_encrypt(bfv, keys, rng, m1, N, &c1));
    CHECK(latpoly_bfv_encrypt(bfv, keys, rng, m2, N, &c2));
    CHECK(latpoly_bfv_multiply_relin(bfv, keys, c1, c2, &prod));
    CHECK(latpoly_bfv_mod_switch(bfv, prod, low, &short_prod));
    CHECK(latpoly_bfv_decrypt(low, low_sk, short_prod, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "switched product");
    size_t full_len = 0, short_len = 0;
    CHECK(latpoly_bfv_ciphertext_serialized_len(prod, &full_len));
    CHECK(latpoly_bfv_ciphertext_serialized_len(short_prod, &short_len));
    FAIL_IF(short_len * 2 >= full_len, "a switched ciphertext is shorter");
    /* a product switched before relinearization, relinearized below with keys for the same
       secret */
    CHECK(latpoly_bfv_multiply(bfv, c1, c2, &tensor));
    CHECK(latpoly_bfv_mod_switch(bfv, tensor, low, &short_tensor));
    CHECK(latpoly_bfv_keygen_with_secret(low, low_sk, rng, &low_keys));
    CHECK(latpoly_bfv_relinearize(low, low_keys, short_tensor, &relin));
    CHECK(latpoly_bfv_decrypt(low, low_sk, relin, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "relinearized after the switch");
    /* ... and with the full instance's keys, which serve every lower instance (no secret) */
    CHECK(latpoly_bfv_relinearize(low, keys, short_tensor, &relin_full));
    CHECK(latpoly_bfv_decrypt(low, low_sk, relin_full, got, N));
    FAIL_IF(memcmp(got, want, sizeof got) != 0, "relinearized below with the full keys");
    /* an instance made by latpoly_bfv_new over the same prime was not lowered: it refuses
       them; keys serve downwards only */
    CHECK(latpoly_bfv_new(N, moduli, 1, T, 3.19, &fresh));
    CHECK(latpoly_bfv_mod_switch(bfv, tensor, fresh, &fresh_tensor));
    EXPECT(latpoly_bfv_relinearize(fresh, keys, fresh_tensor, &y),
           LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_relinearize(bfv, low_keys, tensor, &y), LATPOLY_STATUS_INVALID_PARAMETER);
    /* errors: not a lower instance, not upwards, another instance's ciphertext or key */
    uint64_t not_prefix[1] = {moduli[1]};
    CHECK(latpoly_bfv_new(N, not_prefix, 1, T, 3.19, &other));
    EXPECT(latpoly_bfv_mod_switch(bfv, prod, other, &y), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_mod_switch(low, short_prod, bfv, &y), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_mod_switch(bfv, short_prod, low, &y), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_decrypt(bfv, keys, short_prod, got, N), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_secret_key_for(bfv, keys, other, &k), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_secret_key_for(bfv, low_sk, low, &k), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_keygen_with_secret(bfv, low_sk, rng, &k), LATPOLY_STATUS_HANDLE_MISMATCH);
    EXPECT(latpoly_bfv_lower(bfv, 0, &x), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_lower(bfv, L + 1, &x), LATPOLY_STATUS_INVALID_PARAMETER);
    EXPECT(latpoly_bfv_lower(bfv, 1, NULL), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_mod_switch(bfv, prod, NULL, &y), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_bfv_mod_switch(bfv, prod, (const latpoly_bfv *)keys, &y),
           LATPOLY_STATUS_HANDLE_MISMATCH);
    FAIL_IF(x != NULL || y != NULL || k != NULL, "no handle on failure");
    printf("BFV modulus switching: a product of %zu bytes sent as %zu: ok\n", full_len, short_len);

    latpoly_bfv_ciphertext_free(c1);
    latpoly_bfv_ciphertext_free(c2);
    latpoly_bfv_ciphertext_free(prod);
    latpoly_bfv_ciphertext_free(tensor);
    latpoly_bfv_ciphertext_free(short_prod);
    latpoly_bfv_ciphertext_free(short_tensor);
    latpoly_bfv_ciphertext_free(relin);
    latpoly_bfv_ciphertext_free(relin_full);
    latpoly_bfv_ciphertext_free(fresh_tensor);
    latpoly_bfv_keys_free(keys);
    latpoly_bfv_keys_free(low_sk);
    latpoly_bfv_keys_free(low_keys);
    latpoly_bfv_free(fresh);
    latpoly_bfv_free(other);
    latpoly_bfv_free(low);
    latpoly_bfv_free(bfv);
    return 0;
}

int main(void) {
    /* seeded samplers repeat themselves; a NULL seed draws from the operating system */
    uint8_t seed[32] = {7};
    latpoly_sampler *rng = NULL, *again = NULL, *os = NULL;
    CHECK(latpoly_sampler_new(seed, &rng));
    CHECK(latpoly_sampler_new(seed, &again));
    CHECK(latpoly_sampler_new(NULL, &os));
    int64_t x[16], y[16];
    CHECK(latpoly_sampler_cbd(rng, 2, x, 16));
    CHECK(latpoly_sampler_cbd(again, 2, y, 16));
    FAIL_IF(memcmp(x, y, sizeof x) != 0, "seeded samplers differ");
    for (int i = 0; i < 16; i++) FAIL_IF(x[i] < -2 || x[i] > 2, "CBD_2 range");
    CHECK(latpoly_sampler_bounded(os, 5, x, 16));
    for (int i = 0; i < 16; i++) FAIL_IF(x[i] < -5 || x[i] > 5, "bounded range");
    EXPECT(latpoly_sampler_new(seed, NULL), LATPOLY_STATUS_NULL_POINTER);
    EXPECT(latpoly_sampler_cbd(rng, 2, NULL, 16), LATPOLY_STATUS_NULL_POINTER);

    uint64_t moduli[L];
    CHECK(latpoly_ntt_primes(50, N, L, moduli));
    latpoly_rns_context *ctx = NULL;
    CHECK(latpoly_rns_context_new(N, moduli, L, &ctx));
    uint64_t got[L];
    CHECK(latpoly_rns_context_moduli(ctx, got, L));
    FAIL_IF(memcmp(got, moduli, sizeof got) != 0, "context moduli");
    EXPECT(latpoly_rns_context_moduli(ctx, got, L - 1), LATPOLY_STATUS_LENGTH_MISMATCH);

    if (rns_part(rng, ctx) != 0) return 1;
    if (bfv_part(rng, moduli) != 0) return 1;
    if (bfv_bytes_part(rng, moduli) != 0) return 1;
    if (bfv_slots_part(rng, moduli) != 0) return 1;
    if (bfv_mod_switch_part(rng, moduli) != 0) return 1;
    if (lpr_part(rng) != 0) return 1;

    latpoly_rns_context_free(ctx);
    latpoly_sampler_free(rng);
    latpoly_sampler_free(again);
    latpoly_sampler_free(os);
    latpoly_sampler_free(NULL);
    printf("C HE example: all checks passed\n");
    return 0;
}
