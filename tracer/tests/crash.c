/* A program that crashes after writing 100 000 ints: the capture must still give a readable trace. */
#include <stdio.h>
static int a[100000];
int main(void)
{
    for (int i = 0; i < 100000; i++)
        ((volatile int *)a)[i] = i;
    printf("array %p\n", (void *)a);
    fflush(stdout);
    *(volatile int *)8 = 1;
    return 0;
}
