/* CAT-style microkernels for hemkit.derive (Barry, Danalis, Dongarra; PAPI's Counter Analysis Toolkit).
 *
 *   cat_kernels FAMILY KERNEL SIZE ITERATIONS [CTL_FIFO ACK_FIFO]
 *
 * FAMILY flops : KERNEL {sp,dp}_{scalar,128,256,512}[_fma], SIZE = FP instructions per iteration
 *                (24/48/96; 12/24/48 with _fma).  Inline asm: the loop is one asm statement, so the
 *                compiler adds nothing; non-FMA loops alternate mul and add.
 * FAMILY branch: KERNEL nt|tk|jmp|rnd|rnd2, SIZE = copies of the body per iteration (1, 2, 4).
 * FAMILY dcache: KERNEL l1|l2|l3|mem, SIZE = buffer bytes; ITERATIONS = pointer-chase loads.
 *
 * With CTL_FIFO/ACK_FIFO (perf stat -D -1 --control fifo:CTL,ACK) the events are enabled only
 * around the measured loop, as PAPI_start/PAPI_stop do in CAT.  Prints one line:
 *   family=F kernel=K size=S iterations=N check=X
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

static double ones[8] __attribute__((aligned(64))) = {1, 1, 1, 1, 1, 1, 1, 1};

#define R1(x) x
#define R2(x) x x
#define R4(x) R2(x) R2(x)
#define R8(x) R4(x) R4(x)
#define R12(x) R8(x) R4(x)
#define R16(x) R8(x) R8(x)
#define R24(x) R12(x) R12(x)
#define R48(x) R24(x) R24(x)

/* register set-up per width: reg0 = reg1 = 1.0, reg2 = 0.0 */
#define INIT_X "movupd %1, %%xmm0\n\tmovupd %1, %%xmm1\n\txorpd %%xmm2, %%xmm2\n\t"
#define INIT_Y "vmovupd %1, %%ymm0\n\tvmovupd %1, %%ymm1\n\tvxorpd %%ymm2, %%ymm2, %%ymm2\n\t"
#define INIT_Z "vmovupd %1, %%zmm0\n\tvmovupd %1, %%zmm1\n\tvpxorq %%zmm2, %%zmm2, %%zmm2\n\t"
#define END_X ""
#define END_Y "vzeroupper\n\t"

#define FPK(name, INIT, END, REP, UNIT)                                                                   \
    void name(long n)                                                                                     \
    {                                                                                                     \
        __asm__ volatile(INIT "1:\n\t" REP(UNIT) "dec %0\n\tjnz 1b\n\t" END                               \
                         : "+r"(n)                                                                        \
                         : "m"(*(const double(*)[8])ones)                                                 \
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
#define FP3(base, INIT, END, UNIT, s1, s2, s3)        \
    FPK(hk_##base##_##s1, INIT, END, R12, UNIT)     \
    FPK(hk_##base##_##s2, INIT, END, R24, UNIT)     \
    FPK(hk_##base##_##s3, INIT, END, R48, UNIT)

FP3(sp_scalar, INIT_X, END_X, UNIT_S_SS, 24, 48, 96)
FP3(sp_128, INIT_X, END_X, UNIT_S_PS, 24, 48, 96)
FP3(sp_256, INIT_Y, END_Y, UNIT_Y_PS, 24, 48, 96)
FP3(sp_512, INIT_Z, END_Y, UNIT_Z_PS, 24, 48, 96)
FP3(dp_scalar, INIT_X, END_X, UNIT_S_SD, 24, 48, 96)
FP3(dp_128, INIT_X, END_X, UNIT_S_PD, 24, 48, 96)
FP3(dp_256, INIT_Y, END_Y, UNIT_Y_PD, 24, 48, 96)
FP3(dp_512, INIT_Z, END_Y, UNIT_Z_PD, 24, 48, 96)
FP3(sp_scalar_fma, INIT_X, END_X, FMA_SS, 12, 24, 48)
FP3(sp_128_fma, INIT_X, END_X, FMA_X_PS, 12, 24, 48)
FP3(sp_256_fma, INIT_Y, END_Y, FMA_Y_PS, 12, 24, 48)
FP3(sp_512_fma, INIT_Z, END_Y, FMA_Z_PS, 12, 24, 48)
FP3(dp_scalar_fma, INIT_X, END_X, FMA_SD, 12, 24, 48)
FP3(dp_128_fma, INIT_X, END_X, FMA_X_PD, 12, 24, 48)
FP3(dp_256_fma, INIT_Y, END_Y, FMA_Y_PD, 12, 24, 48)
FP3(dp_512_fma, INIT_Z, END_Y, FMA_Z_PD, 12, 24, 48)

/* ---------------------------------------------------------------- branches */
#define RND_BITS (1L << 20)
static unsigned char *rnd;

#define B_NT "cmp $1, %[z]\n\tje 2f\n\tnop\n2:\n\t"
#define B_TK "cmp $0, %[z]\n\tje 2f\n\tnop\n2:\n\t"
#define B_JMP "jmp 2f\n\tnop\n2:\n\t"
#define B_RND "movzbl (%[p],%[i]), %%eax\n\tinc %[i]\n\tand %[m], %[i]\n\ttest %%eax, %%eax\n\tjz 2f\n\tnop\n2:\n\t"
#define B_RND2                                                                                    \
    "movzbl (%[p],%[i]), %%eax\n\tinc %[i]\n\tand %[m], %[i]\n\ttest %%eax, %%eax\n\tjz 3f\n\t" \
    "cmp $1, %[z]\n\tje 4f\n\tjmp 4f\n3:\n\tcmp $1, %[z]\n\tje 4f\n4:\n\t"

#define BRK(name, REP, BODY)                                                                  \
    void name(long n)                                                                         \
    {                                                                                         \
        long i = 0, z = 0, m = RND_BITS - 1;                                                  \
        const unsigned char *p = rnd;                                                         \
        __asm__ volatile("1:\n\t" REP(BODY) "dec %[n]\n\tjnz 1b\n\t"                          \
                         : [n] "+r"(n), [i] "+r"(i), [z] "+r"(z), [m] "+r"(m), [p] "+r"(p)    \
                         :                                                                    \
                         : "rax", "cc", "memory");                                            \
    }
#define BR3(base, BODY) BRK(hk_##base##_1, R1, BODY) BRK(hk_##base##_2, R2, BODY) BRK(hk_##base##_4, R4, BODY)
BR3(nt, B_NT)
BR3(tk, B_TK)
BR3(jmp, B_JMP)
BR3(rnd, B_RND)
BR3(rnd2, B_RND2)

/* ---------------------------------------------------------------- data cache: pointer chase */
static void **chase;

void hk_chase(long n)  /* n a multiple of 16 */
{
    void **p = chase;
    long k = n / 16;
    __asm__ volatile("1:\n\t" R16("mov (%[p]), %[p]\n\t") "dec %[k]\n\tjnz 1b\n\t"
                     : [p] "+r"(p), [k] "+r"(k)
                     :
                     : "cc", "memory");
    chase = p;
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t xorshift(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static long setup_chase(long bytes)
{
    long lines = bytes / 64;
    if (lines < 2) return -1;
    char *buf = aligned_alloc(4096, (size_t)((lines * 64 + 4095) / 4096 * 4096));
    long *order = malloc(sizeof(long) * (size_t)lines);
    if (!buf || !order) return -1;
    for (long i = 0; i < lines; i++) order[i] = i;
    for (long i = lines - 1; i > 0; i--) { long j = (long)(xorshift() % (uint64_t)(i + 1)), t = order[i]; order[i] = order[j]; order[j] = t; }
    for (long i = 0; i < lines; i++) *(void **)(buf + order[i] * 64) = buf + order[(i + 1) % lines] * 64;
    chase = (void **)(buf + order[0] * 64);
    free(order);
    return lines;
}

static void setup_rnd(void)
{
    rnd = malloc(RND_BITS);
    for (long i = 0; i < RND_BITS; i++) rnd[i] = (unsigned char)(i & 1);
    for (long i = RND_BITS - 1; i > 0; i--) { long j = (long)(xorshift() % (uint64_t)(i + 1)); unsigned char t = rnd[i]; rnd[i] = rnd[j]; rnd[j] = t; }
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
    E3("branch", rnd, 1, 2, 4) E3("branch", rnd2, 1, 2, 4)
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
    if (argc != 5 && argc != 7) {
        fprintf(stderr, "usage: %s FAMILY KERNEL SIZE ITERATIONS [CTL_FIFO ACK_FIFO]\n", argv[0]);
        return 2;
    }
    const char *family = argv[1], *kernel = argv[2];
    long size = atol(argv[3]), iters = atol(argv[4]);
    if (iters <= 0) { fprintf(stderr, "iterations must be positive\n"); return 2; }
    kfn fn = 0;
    double check = 0;
    if (strcmp(family, "dcache") == 0) {
        if (strcmp(kernel, "l1") && strcmp(kernel, "l2") && strcmp(kernel, "l3") && strcmp(kernel, "mem")) {
            fprintf(stderr, "unknown dcache kernel %s\n", kernel);
            return 2;
        }
        long lines = setup_chase(size);
        if (lines < 0) { fprintf(stderr, "cannot allocate a %ld-byte buffer\n", size); return 2; }
        iters = (iters + 15) / 16 * 16;
        hk_chase((lines + 15) / 16 * 16 * 2);  /* warm up: two passes over the buffer */
        fn = hk_chase;
        check = (double)lines;
    } else {
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
            if (!strcmp(table[i].family, family) && !strcmp(table[i].kernel, kernel) && table[i].size == size) fn = table[i].fn;
        if (!fn) { fprintf(stderr, "unknown kernel %s %s %ld\n", family, kernel, size); return 2; }
        if (!strcmp(family, "branch")) {
            setup_rnd();
            long ones_ = 0;
            for (long i = 0; i < RND_BITS; i++) ones_ += rnd[i];
            check = (double)ones_ / RND_BITS;
        }
    }
    if (argc == 7) {
        ctl_fd = open(argv[5], O_WRONLY);
        ack_fd = open(argv[6], O_RDONLY);
        if (ctl_fd < 0 || ack_fd < 0) { perror("opening perf control fifos"); return 3; }
    }
    control("enable\n");
    fn(iters);
    control("disable\n");
    printf("family=%s kernel=%s size=%ld iterations=%ld check=%g\n", family, kernel, size, iters, check);
    return 0;
}
