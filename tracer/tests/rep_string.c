/* Test program for REP string instructions under `numasim trace capture`: inside the ROI, one
 * `rep stosb` fills 4 KiB, one `rep movsb` copies it, one `rep stosq` fills another 4 KiB,
 * then a plain loop stores 512 longs one by one. The hardware runs each REP instruction once,
 * touching each 64-byte line once per direction; the loop makes 512 stores. Prints the buffers'
 * addresses. */
#include <stdio.h>
#include "numasim_roi.h"

static unsigned char src[4096] __attribute__((aligned(4096)));
static unsigned char dst[4096] __attribute__((aligned(4096)));
static unsigned long words[512] __attribute__((aligned(4096)));
static volatile unsigned long loop[512] __attribute__((aligned(4096)));

int main(void)
{
    numasim_roi_begin();
    void *d = src;
    unsigned long n = sizeof src;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(7) : "memory");
    const void *s = src;
    d = dst;
    n = sizeof dst;
    __asm__ volatile("rep movsb" : "+S"(s), "+D"(d), "+c"(n) : : "memory");
    d = words;
    n = sizeof words / 8;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(9UL) : "memory");
    for (int i = 0; i < 512; i++)
        loop[i] = (unsigned long)i;
    numasim_roi_end();
    printf("src %p\ndst %p\nwords %p\nloop %p\nchecks %d %lu\n", (void *)src, (void *)dst, (void *)words,
           (void *)loop, dst[4095], words[511]);
    return 0;
}
