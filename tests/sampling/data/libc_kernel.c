/* A program whose time goes to its own code, to libc, to the kernel and to code perf cannot name.
 *
 *   libc_kernel ROUNDS
 *
 * Each round runs four phases, each about a third of the time (the last a tenth):
 *   binary  spin()             arithmetic in this program
 *   libc    memset + memcpy    on 256 KiB buffers (in cache: user time in libc)
 *   kernel  read(/dev/zero)    256 KiB per call: the kernel clears the user buffer
 *   jit     code in an anonymous executable mapping (x86-64 only): perf names it [unknown]
 * Buffers are touched before the first round so that page faults stay out of the phases.
 * (Thread CPU time per phase is no truth for the profile on a VM: under host contention
 * cpu-clock misses time the thread is charged for, phase by phase differently.)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BUF (256 * 1024)
static volatile unsigned long sink;

__attribute__((noinline)) static void spin(long n)
{
    unsigned long x = 0;
    for (long i = 0; i < n; i++)
        x = x * 2654435761u + (unsigned long)i;
    sink = x;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 20;
    char *a = malloc(BUF), *b = malloc(BUF);
    int fd = open("/dev/zero", O_RDONLY);
    if (!a || !b || fd < 0) {
        perror("libc_kernel");
        return 1;
    }
    memset(a, 1, BUF);
    memset(b, 2, BUF);
    void (*jit)(void) = 0;
#if defined(__x86_64__)
    /* mov rcx, 0x40000 ; 1: dec rcx ; jnz 1b ; ret */
    static const unsigned char code[] = {0x48, 0xb9, 0, 0, 4, 0, 0, 0, 0, 0, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};
    void *m = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
        memcpy(m, code, sizeof code);
        jit = (void (*)(void))m;
    }
#endif
    for (long r = 0; r < rounds; r++) {
        spin(1000000);
        for (int k = 0; k < 120; k++) {
            memset(a, (int)(r + k), BUF);
            memcpy(b, a, BUF);
        }
        for (int k = 0; k < 180; k++)
            if (read(fd, b, BUF) != BUF)
                return 2;
        if (jit)
            for (int k = 0; k < 2; k++)
                jit();
    }
    printf("%ld rounds\n", rounds);
    return 0;
}
