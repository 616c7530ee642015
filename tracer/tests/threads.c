/* Thread creation and exit under `numasim trace capture`: two waves of 6 threads (the second
 * reuses the first's QEMU vCPU slots), more threads than this machine's cores. Thread i writes
 * its own 4 KiB page 512 times. */
#include <pthread.h>
#include <stdio.h>

#define WAVE 6
static long pages[2 * WAVE][512] __attribute__((aligned(4096)));

static void *work(void *p)
{
    long *mine = p;
    for (int k = 0; k < 512; k++)
        ((volatile long *)mine)[k] = k;
    return NULL;
}

int main(void)
{
    pthread_t t[WAVE];
    for (int wave = 0; wave < 2; wave++) {
        for (int i = 0; i < WAVE; i++)
            pthread_create(&t[i], NULL, work, pages[wave * WAVE + i]);
        for (int i = 0; i < WAVE; i++)
            pthread_join(t[i], NULL);
    }
    printf("pages %p\n", (void *)pages);
    return 0;
}
