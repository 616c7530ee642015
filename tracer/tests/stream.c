/* Throughput program for `numasim trace capture` (docs/guide/workloads.md, "Tracing your own program"): OpenMP
 * STREAM-style triad over three 8 MiB arrays, PASSES times. */
#include <stdio.h>
#include <stdlib.h>

#define N (1L << 20)
#define PASSES 8
static double a[N], b[N], c[N];

int main(void)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) {
        b[i] = (double)i;
        c[i] = 2.0;
    }
    for (int p = 0; p < PASSES; p++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < N; i++)
            a[i] = b[i] + 3.0 * c[i];
    }
    printf("%f\n", a[N - 1]);
    return 0;
}
