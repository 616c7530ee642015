/* Test program for `numasim trace capture --roi` instruction counts: the main thread runs a
 * long set-up (tens of millions of instructions) after starting its workers and before the
 * ROI, while the workers wait. Inside the ROI each of the 4 threads first writes its own 8
 * pages of a shared array, then spins for a while, then reads the whole array. Counted from
 * the ROI, each page's first toucher is the thread that owns it; counted from each thread's
 * start, the main thread would appear to enter the ROI tens of millions of instructions after
 * the workers, and the workers' reads would first-touch the main thread's pages.
 * Built with -O1 -pthread. Prints the array's address. */
#include <pthread.h>
#include <stdio.h>
#include "numasim_roi.h"

#define THREADS 4
#define PAGES_PER_THREAD 8
#define LONGS_PER_PAGE 512
#define SETUP_ITERATIONS 10000000L
#define SPIN_ITERATIONS 200000L

static long a[THREADS * PAGES_PER_THREAD * LONGS_PER_PAGE] __attribute__((aligned(4096)));
static pthread_barrier_t start;
static long sums[THREADS * 8];

static void work(long t)
{
    long *mine = a + t * PAGES_PER_THREAD * LONGS_PER_PAGE;
    for (long i = 0; i < PAGES_PER_THREAD * LONGS_PER_PAGE; i++)
        mine[i] = t + i;
    for (long i = 0; i < SPIN_ITERATIONS; i++)
        __asm__ volatile("" ::: "memory");
    long s = 0;
    for (long i = 0; i < THREADS * PAGES_PER_THREAD * LONGS_PER_PAGE; i++)
        s += a[i];
    sums[t * 8] = s;
}

static void *worker(void *arg)
{
    pthread_barrier_wait(&start);
    work((long)arg);
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (long t = 1; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    /* Set-up the workers do not share: register-only arithmetic, no memory accesses. */
    unsigned long x = 1;
    for (long i = 0; i < SETUP_ITERATIONS; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        __asm__ volatile("" : "+r"(x));
    }
    numasim_roi_begin();
    pthread_barrier_wait(&start);
    work(0);
    for (long t = 1; t < THREADS; t++)
        pthread_join(th[t], NULL);
    numasim_roi_end();
    printf("array %p %d\nsetup %lu\n", (void *)a, THREADS * PAGES_PER_THREAD, x & 1);
    return 0;
}
