/* CAT-style microkernels for hemkit.derive (Barry, Danalis, Dongarra; PAPI's Counter Analysis Toolkit).
 *
 *   cat_kernels FAMILY KERNEL SIZE ITERATIONS SEED [CTL_FIFO ACK_FIFO]
 *
 * FAMILY flops : KERNEL {sp,dp}_{scalar,128,256,512}[_fma], SIZE = FP instructions per iteration
 *                (24/48/96; 12/24/48 with _fma).  Inline asm: the loop is one asm statement, so the
 *                compiler adds nothing; non-FMA loops alternate mul and add.  Registers hold 1.0 (x1)
 *                and 0.0 (x2) of the kernel's own precision, so x0 = x0 * 1 + 0 stays 1.0: no
 *                overflow, no denormals (check = lane 0 of x0 after the loop, always 1).
 * FAMILY branch: KERNEL nt|tk|jmp|rnd|rndx|rnd2|busy, SIZE = copies of the body per iteration (1, 2, 4).
 *                Random branches read one byte of a balanced array (exactly half the bytes are 1,
 *                shuffled with SEED) of ITERATIONS x SIZE bytes rounded up to a power of two; when
 *                ITERATIONS x SIZE is a power of two every byte is read exactly once, so the number
 *                of taken random branches is exactly half (check = fraction of ones read).
 * FAMILY dcache: KERNEL l1|l2|l3|ll|mem, SIZE = buffer bytes; ITERATIONS = pointer-chase loads (a
 *                multiple of 16).  The chase visits the lines of a 4 KiB page in random order, and
 *                the pages in random order (CAT's chase: TLB misses stay one per page), as one cycle
 *                through the whole buffer.  Except for "mem", two passes over the buffer warm the
 *                caches first (hk_warm); only hk_chase is the measured loop.  KERNEL "order" prints
 *                the byte offsets (from the buffer's start) of the first ITERATIONS lines of the chase (tests).
 *
 * The measured loop of each kernel is one function (hk_*): perf counts only between the control
 * FIFO messages (perf stat -D -1 --control fifo:CTL,ACK, as PAPI_start/PAPI_stop do in CAT), and
 * hemkit's valgrind backend keeps only cachegrind's counts of that function.  Prints one line:
 *   family=F kernel=K size=S iterations=N seed=S check=X
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

static double ones_d[8] __attribute__((aligned(64))) = {1, 1, 1, 1, 1, 1, 1, 1};
static float ones_s[16] __attribute__((aligned(64))) = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static unsigned char fp_out[64] __attribute__((aligned(64)));

#define R1(x) x
#define R2(x) x x
#define R4(x) R2(x) R2(x)
#define R8(x) R4(x) R4(x)
#define R12(x) R8(x) R4(x)
#define R16(x) R8(x) R8(x)
#define R24(x) R12(x) R12(x)
#define R48(x) R24(x) R24(x)
#define R64(x) R16(x) R16(x) R16(x) R16(x)

/* register set-up per width: reg0 = reg1 = 1.0, reg2 = 0.0 */
#define INIT_X "movups %1, %%xmm0\n\tmovups %1, %%xmm1\n\txorps %%xmm2, %%xmm2\n\t"
#define INIT_Y "vmovups %1, %%ymm0\n\tvmovups %1, %%ymm1\n\tvxorps %%ymm2, %%ymm2, %%ymm2\n\t"
#define INIT_Z "vmovups %1, %%zmm0\n\tvmovups %1, %%zmm1\n\tvpxorq %%zmm2, %%zmm2, %%zmm2\n\t"
#define END_X "movups %%xmm0, %2\n\t"
#define END_Y "vmovups %%xmm0, %2\n\tvzeroupper\n\t"

#define FPK(name, ONES, INIT, END, REP, UNIT)                                                             \
    __attribute__((noinline)) void name(long n)                                                                                     \
    {                                                                                                     \
        __asm__ volatile(INIT "1:\n\t" REP(UNIT) "dec %0\n\tjnz 1b\n\t" END                               \
                         : "+r"(n)                                                                        \
                         : "m"(*(const unsigned char(*)[64])ONES), "m"(*(unsigned char(*)[64])fp_out)     \
                         : "xmm0", "xmm1", "xmm2", "cc", "memory");                                       \
    }

#define UNIT_S_SS "mulss %%xmm1, %%xmm0\n\taddss %%xmm2, %%xmm0\n\t"
#define UNIT_S_PS "mulps %%xmm1, %%xmm0\n\taddps %%xmm2, %%xmm0\n\t"
#define UNIT_Y_PS "vmulps %%ymm1, %%ymm0, %%ymm0\n\tvaddps %%ymm2, %%ymm0, %%ymm0\n\t"
#define UNIT_Z_PS "vmulps %%zmm1, %%zmm0, %%zmm0\n\tvaddps %%zmm2, %%zmm0, %%zmm0\n\t"
#define UNIT_S_SD "mulsd %%xmm1, %%xmm0\n\taddsd %%xmm2, %%xmm0\n\t"
#define UNIT_S_PD "mulpd %%xmm1, %%xmm0\n\taddpd %%xmm2, %%xmm0\n\t"
#define UNIT_Y_PD "vmulpd %%ymm1, %%ymm0, %%ymm0\n\tvaddpd %%ymm2, %%ymm0, %%ymm0\n\t"
#define UNIT_Z_PD "vmulpd %%zmm1, %%zmm0, %%zmm0\n\tvaddpd %%zmm2, %%zmm0, %%zmm0\n\t"
#define FMA_SS "vfmadd231ss %%xmm1, %%xmm2, %%xmm0\n\t"
#define FMA_X_PS "vfmadd231ps %%xmm1, %%xmm2, %%xmm0\n\t"
#define FMA_Y_PS "vfmadd231ps %%ymm1, %%ymm2, %%ymm0\n\t"
#define FMA_Z_PS "vfmadd231ps %%zmm1, %%zmm2, %%zmm0\n\t"
#define FMA_SD "vfmadd231sd %%xmm1, %%xmm2, %%xmm0\n\t"
#define FMA_X_PD "vfmadd231pd %%xmm1, %%xmm2, %%xmm0\n\t"
#define FMA_Y_PD "vfmadd231pd %%ymm1, %%ymm2, %%ymm0\n\t"
#define FMA_Z_PD "vfmadd231pd %%zmm1, %%zmm2, %%zmm0\n\t"

/* three loop sizes of one kernel: non-FMA units are (mul, add) pairs -> 24/48/96 instructions;
 * FMA units are one instruction -> 12/24/48 */
#define FP3(base, ONES, INIT, END, UNIT, s1, s2, s3)        \
    FPK(hk_##base##_##s1, ONES, INIT, END, R12, UNIT)     \
    FPK(hk_##base##_##s2, ONES, INIT, END, R24, UNIT)     \
    FPK(hk_##base##_##s3, ONES, INIT, END, R48, UNIT)

FP3(sp_scalar, ones_s, INIT_X, END_X, UNIT_S_SS, 24, 48, 96)
FP3(sp_128, ones_s, INIT_X, END_X, UNIT_S_PS, 24, 48, 96)
FP3(sp_256, ones_s, INIT_Y, END_Y, UNIT_Y_PS, 24, 48, 96)
FP3(sp_512, ones_s, INIT_Z, END_Y, UNIT_Z_PS, 24, 48, 96)
FP3(dp_scalar, ones_d, INIT_X, END_X, UNIT_S_SD, 24, 48, 96)
FP3(dp_128, ones_d, INIT_X, END_X, UNIT_S_PD, 24, 48, 96)
FP3(dp_256, ones_d, INIT_Y, END_Y, UNIT_Y_PD, 24, 48, 96)
FP3(dp_512, ones_d, INIT_Z, END_Y, UNIT_Z_PD, 24, 48, 96)
FP3(sp_scalar_fma, ones_s, INIT_X, END_X, FMA_SS, 12, 24, 48)
FP3(sp_128_fma, ones_s, INIT_X, END_X, FMA_X_PS, 12, 24, 48)
FP3(sp_256_fma, ones_s, INIT_Y, END_Y, FMA_Y_PS, 12, 24, 48)
FP3(sp_512_fma, ones_s, INIT_Z, END_Y, FMA_Z_PS, 12, 24, 48)
FP3(dp_scalar_fma, ones_d, INIT_X, END_X, FMA_SD, 12, 24, 48)
FP3(dp_128_fma, ones_d, INIT_X, END_X, FMA_X_PD, 12, 24, 48)
FP3(dp_256_fma, ones_d, INIT_Y, END_Y, FMA_Y_PD, 12, 24, 48)
FP3(dp_512_fma, ones_d, INIT_Z, END_Y, FMA_Z_PD, 12, 24, 48)

/* ---------------------------------------------------------------- branches
 * Per copy of each body (CE, CR, T, D, M) in CAT's model (hemkit.derive.families.BRANCH_BODIES):
 *   nt   conditional never taken                                   (1,   1, 0,   0,   0)
 *   tk   conditional always taken                                  (1,   1, 1,   0,   0)
 *   jmp  direct unconditional jump                                 (0,   0, 0,   1,   0)
 *   rnd  random conditional, then busy work (CAT b4)               (1,   1, .5,  0,  .5)
 *   rndx random conditional, then a never-taken conditional that
 *        the wrong path also executes, then busy work (CAT b5)     (2.5, 2, .5,  0,  .5)
 *   rnd2 random conditional choosing between two paths, each with
 *        a never-taken conditional, one ending in a jump (CAT b6)  (2.5, 2, .5, .5,  .5)
 *   busy busy work only: instructions, no branch                   (0,   0, 0,   0,   0)
 * Busy work is 64 independent instructions (nop), enough for a mispredicted random branch to
 * resolve before the wrong path reaches another conditional.  The loop's own branches are
 * "dec; jz out; jmp top": a conditional not taken (taken once, at the end) and a direct jump,
 * so no taken conditional outside the bodies trains the predictor.  */
#define B_RAND "movzbl (%[p],%[i]), %%eax\n\tinc %[i]\n\tand %[m], %[i]\n\ttest %%eax, %%eax\n\tjz 2f\n\tnop\n2:\n\t"
#define B_NT "cmp $1, %[z]\n\tje 3f\n3:\n\t"
#define B_TK "cmp $0, %[z]\n\tje 3f\n\tnop\n3:\n\t"
#define B_JMP "jmp 3f\n\tnop\n3:\n\t"
#define BUSY R64("nop\n\t")
#define B_RND B_RAND BUSY
#define B_RNDX B_RAND B_NT BUSY
#define B_RND2                                                                                     \
    "movzbl (%[p],%[i]), %%eax\n\tinc %[i]\n\tand %[m], %[i]\n\ttest %%eax, %%eax\n\tjz 4f\n\t" \
    "cmp $1, %[z]\n\tje 5f\n\tjmp 5f\n4:\n\tcmp $1, %[z]\n\tje 5f\n5:\n\t" BUSY
#define B_BUSY BUSY

static unsigned char *rnd;
static long rnd_mask;

#define BRK(name, REP, BODY)                                                                   \
    __attribute__((noinline)) void name(long n)                                                                          \
    {                                                                                          \
        long i = 0, z = 0, m = rnd_mask;                                                       \
        const unsigned char *p = rnd;                                                          \
        __asm__ volatile("1:\n\t" REP(BODY) "dec %[n]\n\tjz 9f\n\tjmp 1b\n9:\n\t"              \
                         : [n] "+r"(n), [i] "+r"(i), [z] "+r"(z), [m] "+r"(m), [p] "+r"(p)     \
                         :                                                                     \
                         : "rax", "cc", "memory");                                             \
    }
#define BR3(base, BODY) BRK(hk_##base##_1, R1, BODY) BRK(hk_##base##_2, R2, BODY) BRK(hk_##base##_4, R4, BODY)
BR3(nt, B_NT)
BR3(tk, B_TK)
BR3(jmp, B_JMP)
BR3(rnd, B_RND)
BR3(rndx, B_RNDX)
BR3(rnd2, B_RND2)
BR3(busy, B_BUSY)

/* ---------------------------------------------------------------- data cache: pointer chase */
#define CHASE_ASM                                                                     \
    __asm__ volatile("1:\n\t" R16("mov (%[p]), %[p]\n\t") "dec %[k]\n\tjnz 1b\n\t" \
                     : [p] "+r"(p), [k] "+r"(k)                                       \
                     :                                                                \
                     : "cc", "memory")

__attribute__((noinline)) void **hk_chase(void **p, long n) /* the measured loop; n a multiple of 16 */
{
    long k = n / 16;
    CHASE_ASM;
    return p;
}

__attribute__((noinline)) void **hk_warm(void **p, long n) /* the same loop, not measured */
{
    long k = n / 16;
    CHASE_ASM;
    return p;
}

/* xorshift64*, seeded through splitmix64 */
static uint64_t rng_state;
static void seed_rng(uint64_t seed)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    rng_state = (z ^ (z >> 31)) | 1;
}
static uint64_t next_rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static long below(long n) { return (long)(next_rng() % (uint64_t)n); }
static void shuffle(long *a, long n)
{
    for (long i = n - 1; i > 0; i--) { long j = below(i + 1), t = a[i]; a[i] = a[j]; a[j] = t; }
}

static char *chase_base;

/* one cycle through every line of the buffer: pages in random order, lines within a page in
 * random order; returns the first line, or 0 */
static void **setup_chase(long bytes)
{
    const long line = 64, per_page = 4096 / 64;
    long lines = bytes / line;
    if (lines < 2) return 0;
    long pages = (lines + per_page - 1) / per_page;
    char *buf = aligned_alloc(4096, (size_t)(pages * 4096));
    long *page_order = malloc(sizeof(long) * (size_t)pages);
    long *order = malloc(sizeof(long) * (size_t)lines);
    long in_page[64];
    if (!buf || !page_order || !order) return 0;
    for (long q = 0; q < pages; q++) page_order[q] = q;
    shuffle(page_order, pages);
    long k = 0;
    for (long q = 0; q < pages; q++) {
        long first = page_order[q] * per_page, count = 0;
        for (long l = first; l < first + per_page && l < lines; l++) in_page[count++] = l;
        shuffle(in_page, count);
        for (long c = 0; c < count; c++) order[k++] = in_page[c];
    }
    for (long i = 0; i < lines; i++) *(void **)(buf + order[i] * line) = buf + order[(i + 1) % lines] * line;
    void **start = (void **)(buf + order[0] * line);
    chase_base = buf;
    free(order);
    free(page_order);
    return start;
}

/* a balanced random byte array of a power-of-two length >= want: exactly half the bytes are 1 */
static void setup_rnd(long want)
{
    long len = 1;
    while (len < want) len <<= 1;
    rnd = malloc((size_t)len);
    if (!rnd) { fprintf(stderr, "cannot allocate %ld random bytes\n", len); exit(2); }
    for (long i = 0; i < len; i++) rnd[i] = (unsigned char)(i & 1);
    for (long i = len - 1; i > 0; i--) { long j = below(i + 1); unsigned char t = rnd[i]; rnd[i] = rnd[j]; rnd[j] = t; }
    rnd_mask = len - 1;
}

/* ---------------------------------------------------------------- dispatch */
typedef void (*kfn)(long);
struct entry { const char *family, *kernel; long size; kfn fn; };
#define E3(f, k, a, b, c) {f, #k, a, hk_##k##_##a}, {f, #k, b, hk_##k##_##b}, {f, #k, c, hk_##k##_##c},
static const struct entry table[] = {
    E3("flops", sp_scalar, 24, 48, 96) E3("flops", sp_128, 24, 48, 96) E3("flops", sp_256, 24, 48, 96)
    E3("flops", sp_512, 24, 48, 96) E3("flops", dp_scalar, 24, 48, 96) E3("flops", dp_128, 24, 48, 96)
    E3("flops", dp_256, 24, 48, 96) E3("flops", dp_512, 24, 48, 96)
    E3("flops", sp_scalar_fma, 12, 24, 48) E3("flops", sp_128_fma, 12, 24, 48) E3("flops", sp_256_fma, 12, 24, 48)
    E3("flops", sp_512_fma, 12, 24, 48) E3("flops", dp_scalar_fma, 12, 24, 48) E3("flops", dp_128_fma, 12, 24, 48)
    E3("flops", dp_256_fma, 12, 24, 48) E3("flops", dp_512_fma, 12, 24, 48)
    E3("branch", nt, 1, 2, 4) E3("branch", tk, 1, 2, 4) E3("branch", jmp, 1, 2, 4)
    E3("branch", rnd, 1, 2, 4) E3("branch", rndx, 1, 2, 4) E3("branch", rnd2, 1, 2, 4)
    E3("branch", busy, 1, 2, 4)
};

static int ctl_fd = -1, ack_fd = -1;
static void control(const char *cmd)
{
    char buf[16];
    if (ctl_fd < 0) return;
    if (write(ctl_fd, cmd, strlen(cmd)) < 0) { perror("control fifo"); exit(3); }
    if (ack_fd >= 0 && read(ack_fd, buf, sizeof buf) < 0) { perror("ack fifo"); exit(3); }
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 8) {
        fprintf(stderr, "usage: %s FAMILY KERNEL SIZE ITERATIONS SEED [CTL_FIFO ACK_FIFO]\n", argv[0]);
        return 2;
    }
    const char *family = argv[1], *kernel = argv[2];
    long size = atol(argv[3]), iters = atol(argv[4]);
    uint64_t seed = strtoull(argv[5], 0, 10);
    if (iters <= 0) { fprintf(stderr, "iterations must be positive\n"); return 2; }
    seed_rng(seed);
    kfn fn = 0;
    void **start = 0;
    double check = 0;
    int dcache = strcmp(family, "dcache") == 0;
    if (dcache && !strcmp(kernel, "order")) { /* the chase's first ITERATIONS lines, for the tests */
        void **first = setup_chase(size), **p = first;
        if (!first) { fprintf(stderr, "cannot allocate a %ld-byte buffer\n", size); return 2; }
        for (long i = 0; i < iters; i++, p = (void **)*p) printf("%ld\n", (long)((char *)p - chase_base));
        return 0;
    }
    if (dcache) {
        if (strcmp(kernel, "l1") && strcmp(kernel, "l2") && strcmp(kernel, "l3") && strcmp(kernel, "ll") &&
            strcmp(kernel, "mem")) {
            fprintf(stderr, "unknown dcache kernel %s\n", kernel);
            return 2;
        }
        start = setup_chase(size);
        if (!start) { fprintf(stderr, "cannot allocate a %ld-byte buffer\n", size); return 2; }
        iters = (iters + 15) / 16 * 16;
        long lines = size / 64;
        if (strcmp(kernel, "mem")) start = hk_warm(start, (lines + 15) / 16 * 16 * 2); /* two passes */
        check = (double)lines;
    } else {
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
            if (!strcmp(table[i].family, family) && !strcmp(table[i].kernel, kernel) && table[i].size == size) fn = table[i].fn;
        if (!fn) { fprintf(stderr, "unknown kernel %s %s %ld\n", family, kernel, size); return 2; }
        if (!strcmp(family, "branch")) setup_rnd(iters * size);
    }
    if (argc == 8) {
        ctl_fd = open(argv[6], O_WRONLY);
        ack_fd = open(argv[7], O_RDONLY);
        if (ctl_fd < 0 || ack_fd < 0) { perror("opening perf control fifos"); return 3; }
    }
    control("enable\n");
    if (dcache) start = hk_chase(start, iters);
    else fn(iters);
    control("disable\n");
    if (!strcmp(family, "flops")) {
        check = strncmp(kernel, "sp", 2) ? ((double *)fp_out)[0] : (double)((float *)fp_out)[0];
    } else if (!strcmp(family, "branch")) {
        long reads = iters * size, ones_ = 0;
        for (long i = 0; i < reads; i++) ones_ += rnd[i & rnd_mask];
        check = (double)ones_ / (double)reads;
    } else if (start == 0) {
        return 4;
    }
    printf("family=%s kernel=%s size=%ld iterations=%ld seed=%llu check=%.17g\n", family, kernel, size, iters,
           (unsigned long long)seed, check);
    return 0;
}
