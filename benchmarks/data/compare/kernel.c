/* touch PAGES pages and loop LOOPS times over them: page faults ~ PAGES, time ~ LOOPS */
#include <stdlib.h>
#include <stdio.h>
int main(int argc, char **argv) {
    long pages = atol(argv[1]), loops = atol(argv[2]);
    volatile char *p = malloc(pages * 4096);
    unsigned long s = 0;
    for (long i = 0; i < pages; i++) p[i * 4096] = (char)i;
    for (long l = 0; l < loops; l++)
        for (long i = 0; i < pages; i += 7) s += p[i * 4096];
    printf("%lu\n", s);
    return 0;
}
