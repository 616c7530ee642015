/*
 * Region-of-interest markers for `numasim trace capture --roi`.
 *
 * Include this header and call numasim_roi_begin() / numasim_roi_end() around the code to
 * trace. Each is one 7-byte x86-64 NOP (`nopl 0x4e4d5342(%rax)` to begin, `nopl 0x4e4d5345(%rax)`
 * to end) that the tracer recognises when QEMU translates it; run natively, the program is
 * unchanged. The markers act on all threads: recording is on from any thread's begin to any
 * thread's end. On other architectures the calls compile to nothing (the whole run is traced
 * unless --roi is given, in which case nothing is).
 */
#ifndef NUMASIM_ROI_H
#define NUMASIM_ROI_H

#if defined(__x86_64__)
static inline void numasim_roi_begin(void)
{
    __asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x42, 0x53, 0x4d, 0x4e" ::: "memory");
}
static inline void numasim_roi_end(void)
{
    __asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x45, 0x53, 0x4d, 0x4e" ::: "memory");
}
#else
static inline void numasim_roi_begin(void) {}
static inline void numasim_roi_end(void) {}
#endif

#endif
