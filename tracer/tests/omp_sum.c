/* Acceptance program for `numasim trace capture`: a parallel array fill and sum under OpenMP
 * (static schedule, so each thread owns a contiguous quarter of the array) and a counter every
 * thread increments. It prints the addresses the test needs. Built with -O1
 * -fno-tree-vectorize so every element is one 8-byte load or store. */
#include <stdio.h>
#include <omp.h>
#include "numasim_roi.h"

#define N (1L << 18)
static double a[N] __attribute__((aligned(4096)));
static struct { long value; char pad[4096 - sizeof(long)]; } counter __attribute__((aligned(4096)));

int main(void)
{
    double sum = 0;
    numasim_roi_begin();
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp for schedule(static)
        for (long i = 0; i < N; i++)
            a[i] = (double)i;
#pragma omp for schedule(static)
        for (long i = 0; i < N; i++)
            sum += a[i];
        for (int k = 0; k < 100; k++) {
#pragma omp atomic
            counter.value += 1;
        }
    }
    numasim_roi_end();
    printf("array %p %ld\ncounter %p\nsum %.0f counter %ld threads %d\n", (void *)a, N, (void *)&counter.value, sum,
           counter.value, omp_get_max_threads());
    return 0;
}
