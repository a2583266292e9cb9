/* hemkit bundled microbenchmark: operation type x memory level (like the MUCH paper's
 * IMUL_UL2, FADD_MEM, ... workloads).
 *
 * usage: ubench OP LEVEL ITERS [JITTER]
 *   OP     iadd | imul | fadd | fmul | branchy
 *   LEVEL  L1 (16 KiB) | L2 (256 KiB) | L3 (4 MiB) | DRAM (64 MiB) | a footprint in KiB
 *   ITERS  loop iterations (one load + one operation each)
 *   JITTER 0 (default) .. 0.9: each run draws its own work size: iterations x U(1-J, 1+J),
 *          footprint x U(1-J, 1+J) and one write(2) to /dev/null per 2^16 iterations, so that
 *          software events (task-clock, page faults, syscalls, page allocations) vary from run
 *          to run with a known correlation structure.
 * Prints nothing but the checksum to stdout (so the work is not optimised away).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng_state;
static double urand(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s iadd|imul|fadd|fmul|branchy L1|L2|L3|DRAM|KIB ITERS [JITTER]\n", argv[0]);
        return 2;
    }
    const char *op = argv[1], *level = argv[2];
    long iters = atol(argv[3]);
    double jitter = argc > 4 ? atof(argv[4]) : 0.0;
    size_t kib;
    if (!strcmp(level, "L1")) kib = 16;
    else if (!strcmp(level, "L2")) kib = 256;
    else if (!strcmp(level, "L3")) kib = 4096;
    else if (!strcmp(level, "DRAM")) kib = 65536;
    else kib = (size_t)atol(level);
    if (kib < 1 || iters < 1) { fprintf(stderr, "bad LEVEL or ITERS\n"); return 2; }
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    rng_state = (uint64_t)ts.tv_nsec * 2654435761u ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ull;
    if (jitter > 0) {
        if (jitter > 0.9) jitter = 0.9;
        iters = (long)(iters * (1.0 - jitter + 2.0 * jitter * urand()));
        kib = (size_t)(kib * (1.0 - jitter + 2.0 * jitter * urand()));
        if (kib < 1) kib = 1;
    }
    size_t n = 1; /* power-of-two element count covering the footprint */
    while (n * sizeof(uint64_t) < kib * 1024) n <<= 1;
    uint64_t *a = malloc(n * sizeof(uint64_t));
    double *b = malloc(n * sizeof(double));
    if (!a || !b) { fprintf(stderr, "out of memory\n"); return 1; }
    size_t touch = kib * 1024 / sizeof(uint64_t);
    if (touch > n) touch = n;
    for (size_t i = 0; i < touch; i++) { /* only the drawn footprint is touched (page faults follow it) */
        a[i] = (rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull) >> 20;
        b[i] = 1.0 + 1e-9 * (double)(a[i] & 1023);
    }
    int devnull = jitter > 0 ? open("/dev/null", O_WRONLY) : -1;
    uint64_t mask = (touch > 1 ? touch : 1), idx = 0, acc = 1;
    { uint64_t m = 1; while (m < mask) m <<= 1; mask = m >> (m > mask ? 1 : 0); }
    mask -= 1;
    double facc = 1.0;
    int kind = !strcmp(op, "iadd") ? 0 : !strcmp(op, "imul") ? 1 : !strcmp(op, "fadd") ? 2
             : !strcmp(op, "fmul") ? 3 : !strcmp(op, "branchy") ? 4 : -1;
    if (kind < 0) { fprintf(stderr, "unknown OP %s\n", op); return 2; }
    for (long it = 0; it < iters; it++) {
        idx = (idx * 1103515245u + 12345u) & mask; /* LCG over the footprint: defeats the prefetcher */
        switch (kind) {
        case 0: acc += a[idx]; break;
        case 1: acc *= (a[idx] | 1); break;
        case 2: facc += b[idx]; break;
        case 3: facc *= b[idx]; break;
        default: if (a[idx] & 1) acc += 3; else acc ^= 5; break;
        }
        if (devnull >= 0 && (it & 0xffff) == 0) {
            if (write(devnull, &acc, sizeof acc) < 0) return 1;
        }
    }
    if (devnull >= 0) close(devnull);
    printf("%llu %g\n", (unsigned long long)acc, facc);
    free(a); free(b);
    return 0;
}
