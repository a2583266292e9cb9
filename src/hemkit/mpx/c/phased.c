/* Phased workload for hemkit's multiplexing traces.
 *
 * Usage: phased PHASES [REPEAT]
 *   PHASES is a comma list of KIND:MS items run in order, the list REPEAT times (default 1).
 *   KIND  a  alloc/free bursts: mmap+touch+munmap large blocks, malloc/free small ones
 *         i  file I/O bursts: open, write, read back, close a temporary file in small chunks
 *         c  compute: floating-point loop, no system calls
 *         s  sleep: 1 ms nanosleeps (context switches, little else)
 *         b  alternating 3 ms alloc / 7 ms compute bursts (fast phase changes)
 *         p  pipe ping-pong with a forked child (read/write syscalls, context switches)
 * Every phase runs for about MS milliseconds of wall time.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile double sink;

static void alloc_step(void) {
    size_t n = (size_t)(256 + rand() % 768) * 4096;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    for (size_t k = 0; k < n; k += 4096) p[k] = (char)k;
    munmap(p, n);
    for (int k = 0; k < 64; k++) {
        void *q = malloc(64 + rand() % 4000);
        memset(q, 1, 64);
        free(q);
    }
}

static void io_step(const char *path) {
    char buf[4096];
    memset(buf, 'x', sizeof buf);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    if (fd < 0) return;
    int chunks = 16 + rand() % 48;
    for (int k = 0; k < chunks; k++)
        if (write(fd, buf, 512 + rand() % 3584) < 0) break;
    lseek(fd, 0, SEEK_SET);
    while (read(fd, buf, 1024) > 0) {}
    close(fd);
}

static void compute_step(void) {
    double x = 1.0;
    for (int k = 0; k < 200000; k++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void sleep_step(void) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

static void pipe_phase(double ms) {
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return;
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        while (read(down[0], &c, 1) == 1 && c != 'q')
            if (write(up[1], &c, 1) != 1) break;
        _exit(0);
    }
    double end = now_ms() + ms;
    char c = 'x';
    while (now_ms() < end) {
        if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1) break;
    }
    c = 'q';
    if (write(down[1], &c, 1) != 1) {}
    waitpid(pid, NULL, 0);
    close(up[0]); close(up[1]); close(down[0]); close(down[1]);
}

static void run_phase(char kind, double ms, const char *path) {
    double end = now_ms() + ms;
    if (kind == 'p') { pipe_phase(ms); return; }
    while (now_ms() < end) {
        switch (kind) {
        case 'a': alloc_step(); break;
        case 'i': io_step(path); break;
        case 'c': compute_step(); break;
        case 's': sleep_step(); break;
        case 'b': {
            double t = now_ms(), a = t + 3, c = t + 10;
            while (now_ms() < a) alloc_step();
            while (now_ms() < c && now_ms() < end) compute_step();
            break;
        }
        default: fprintf(stderr, "phased: unknown phase kind '%c'\n", kind); exit(2);
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: phased KIND:MS[,KIND:MS...] [REPEAT]\n"); return 2; }
    int repeat = argc > 2 ? atoi(argv[2]) : 1;
    char path[64];
    snprintf(path, sizeof path, "/tmp/hemkit-phased-%d.tmp", (int)getpid());
    srand(12345);
    for (int r = 0; r < repeat; r++) {
        char *spec = strdup(argv[1]);
        for (char *item = strtok(spec, ","); item; item = strtok(NULL, ",")) {
            char kind = item[0];
            double ms = item[1] == ':' ? atof(item + 2) : 100;
            run_phase(kind, ms, path);
        }
        free(spec);
    }
    unlink(path);
    return 0;
}
