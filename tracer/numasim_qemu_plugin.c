/*
 * numasim's QEMU TCG plugin: records every data access of every guest thread of a Linux
 * user-mode program and streams them to `numasim trace capture` through a pipe.
 *
 * Why a plugin and a pipe: QEMU user mode runs each guest thread on its own host thread, so the
 * plugin keeps one buffer per guest thread (no lock per access) and hands whole buffers to the
 * pipe under one lock. numasim reads the pipe, compresses and writes the native trace; the
 * plugin never holds more than one buffer per live thread, and a full pipe simply slows the
 * guest down, so memory stays bounded however long the program runs.
 *
 * Instruction counts: a callback at the start of each translated block adds the block's
 * instruction count to the thread's counter; an access made by the block's k-th instruction
 * (1-based) gets the count at block start plus k. Without roi=on counts cover the whole run.
 * With roi=on only blocks executed while recording is on are counted, so a thread's count
 * starts at its first block inside the ROI (the block holding the begin marker, for the thread
 * that executes it) and excludes everything between an end and the next begin. Why: the
 * simulator interleaves threads by instruction count, so a main thread that ran millions of
 * set-up instructions before the ROI would otherwise appear to start the ROI that much later
 * than workers that were idle until then.
 *
 * String instructions with a REP prefix (x86 `rep movs`, `rep stos`, ...): QEMU runs each
 * iteration as its own pass through the instruction, so a 4 KiB `rep movsb` would become 8192
 * one-byte records and 4096 instructions. The hardware executes one instruction and, with fast
 * strings, moves whole cache lines. So a REP string instruction counts as one instruction, and
 * of its accesses one record is kept per 64-byte line and direction (load, store) it touches.
 * glibc's memcpy and memset use `rep movsb` / `rep stosb` for mid-sized blocks; without this a
 * program's copies would dominate its trace (8 records per 8-byte word copied).
 *
 * Arguments (-plugin libnumasim_qemu.so,fd=N[,roi=on]):
 *   fd=N    the pipe's write end, inherited from numasim (made close-on-exec here, so programs
 *           the guest execs do not hold it open)
 *   roi=on  record only between the ROI markers (tracer/numasim_roi.h); default: the whole run
 *
 * Stream (little-endian): header "NSQT" u32 magic, u32 version = 1, u64 zero; then blocks of
 *   u32 kind | u32 thread | u32 count | u32 zero, and for kind RECORDS `count` records of
 *   u64 vaddr | u64 (instr << 8 | size_log2 << 1 | is_store).
 * A thread's number is the order in which it was first seen (0 = the main thread).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numasim_qemu_api.h"

NUMASIM_EXPORT int qemu_plugin_version = 1;

enum { BLOCK_RECORDS = 1, BLOCK_THREAD_START = 2, BLOCK_THREAD_EXIT = 3, BLOCK_ROI_BEGIN = 4, BLOCK_ROI_END = 5,
       BLOCK_END = 6 };

/* Callback data: an instruction's index in its block (1-based, below 4096), whether it is a
 * REP string instruction, and its address (above bit 16). */
#define INSN_INDEX_MASK 0xfffu
#define INSN_REP 0x1000u
#define LINE_SHIFT 6

/* Records per thread buffer (16 bytes each: 128 KiB per live thread). */
#define BUFFER_RECORDS 8192
/* vCPU indices QEMU may hand out (the native format holds at most 4096 threads). */
#define MAX_VCPUS 4096

/* x86-64 ROI markers: `nopl 0x4e4d5342(%rax)` / `nopl 0x4e4d5345(%rax)` ("BSMN"/"ESMN"), real
 * NOPs when the program runs natively. */
static const unsigned char ROI_BEGIN_X86[7] = {0x0f, 0x1f, 0x80, 0x42, 0x53, 0x4d, 0x4e};
static const unsigned char ROI_END_X86[7] = {0x0f, 0x1f, 0x80, 0x45, 0x53, 0x4d, 0x4e};

struct record {
    uint64_t vaddr;
    uint64_t info;
};

struct thread_state {
    uint64_t icount;  /* instructions counted for this thread (see the file comment) */
    uint64_t tb_base; /* icount at the start of the block being executed */
    uint64_t tb_len;  /* instructions of the block being executed */
    uint64_t rep_pc;  /* address of the REP string instruction in progress (0: none) */
    uint64_t rep_line[2]; /* its last line recorded, by direction (0 load, 1 store) */
    uint32_t tid;
    _Atomic uint32_t n; /* records in buf (atomic: the exit handler may read it) */
    struct record buf[BUFFER_RECORDS];
};

static struct thread_state *_Atomic slots[MAX_VCPUS];
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -1;
static pid_t owner_pid;
static _Atomic int recording;
static int closed;          /* under out_lock: the end block is written, nothing more goes out */
static uint32_t next_tid;   /* under out_lock */
static int x86_target;

/* Writes all of `len` bytes; on failure stops recording (numasim went away). Under out_lock. */
static void put(const void *data, size_t len)
{
    const char *p = data;
    while (len > 0 && !closed) {
        ssize_t w = write(out_fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "numasim tracer: writing the trace pipe failed (%s); recording stops\n",
                    strerror(errno));
            closed = 1;
            atomic_store(&recording, 0);
            return;
        }
        p += w;
        len -= (size_t)w;
    }
}

/* Under out_lock. A forked child of the guest shares the pipe but is not traced. */
static void put_block(uint32_t kind, uint32_t tid, uint32_t count, const struct record *recs)
{
    if (closed || getpid() != owner_pid)
        return;
    uint32_t head[4] = {kind, tid, count, 0};
    put(head, sizeof head);
    if (count)
        put(recs, (size_t)count * sizeof(struct record));
}

static void flush_locked(struct thread_state *t)
{
    uint32_t n = atomic_load_explicit(&t->n, memory_order_acquire);
    if (n)
        put_block(BLOCK_RECORDS, t->tid, n, t->buf);
    atomic_store_explicit(&t->n, 0, memory_order_relaxed);
}

static struct thread_state *new_thread(unsigned int vcpu)
{
    struct thread_state *t = calloc(1, sizeof *t);
    if (!t) {
        fprintf(stderr, "numasim tracer: out of memory for thread state; vCPU %u is not traced\n", vcpu);
        return NULL;
    }
    pthread_mutex_lock(&out_lock);
    t->tid = next_tid++;
    put_block(BLOCK_THREAD_START, t->tid, 0, NULL);
    pthread_mutex_unlock(&out_lock);
    atomic_store(&slots[vcpu], t);
    return t;
}

static void end_thread(unsigned int vcpu)
{
    if (vcpu >= MAX_VCPUS)
        return;
    struct thread_state *t = atomic_exchange(&slots[vcpu], NULL);
    if (!t)
        return;
    pthread_mutex_lock(&out_lock);
    flush_locked(t);
    put_block(BLOCK_THREAD_EXIT, t->tid, 0, NULL);
    pthread_mutex_unlock(&out_lock);
    free(t);
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
    (void)id;
    /* A reused vCPU index whose previous thread left no exit callback: close that stream. */
    end_thread(vcpu);
}

static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
    (void)id;
    end_thread(vcpu);
}

static void on_tb_exec(unsigned int vcpu, void *block)
{
    if (vcpu >= MAX_VCPUS)
        return;
    struct thread_state *t = atomic_load_explicit(&slots[vcpu], memory_order_relaxed);
    if (__builtin_expect(t == NULL, 0)) {
        t = new_thread(vcpu);
        if (!t)
            return;
    }
    uint64_t d = (uintptr_t)block;
    /* QEMU ends a block after a REP string instruction and re-enters it at the same address for
     * each further iteration: such a block continues the instruction, whose one count the first
     * iteration made (it was its block's last instruction, so icount is its number). */
    if ((d & INSN_REP) && t->rep_pc == d >> 16) {
        t->tb_base = t->icount - 1;
        t->tb_len = 1;
        return;
    }
    t->rep_pc = 0;
    t->tb_base = t->icount;
    t->tb_len = d & INSN_INDEX_MASK;
    if (atomic_load_explicit(&recording, memory_order_relaxed))
        t->icount += t->tb_len;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *insn)
{
    if (!atomic_load_explicit(&recording, memory_order_relaxed) || vcpu >= MAX_VCPUS)
        return;
    struct thread_state *t = atomic_load_explicit(&slots[vcpu], memory_order_relaxed);
    if (!t)
        return;
    uint64_t d = (uintptr_t)insn;
    bool store = qemu_plugin_mem_is_store(info);
    if (d & INSN_REP) {
        uint64_t line = vaddr >> LINE_SHIFT;
        if (t->rep_pc != d >> 16) {
            t->rep_pc = d >> 16;
            t->rep_line[0] = t->rep_line[1] = UINT64_MAX;
        } else if (t->rep_line[store] == line) {
            return;
        }
        t->rep_line[store] = line;
    } else {
        t->rep_pc = 0;
    }
    uint32_t n = atomic_load_explicit(&t->n, memory_order_relaxed);
    struct record *r = &t->buf[n];
    uint64_t instr = t->tb_base + (d & INSN_INDEX_MASK);
    /* A block that began before another thread's ROI begin was not counted; its accesses after
     * the begin raise the count, so the thread's next block does not start below them. */
    if (instr > t->icount)
        t->icount = instr;
    r->vaddr = vaddr;
    r->info = (instr << 8) | (uint64_t)(qemu_plugin_mem_size_shift(info) & 0x7f) << 1 |
              (uint64_t)store;
    atomic_store_explicit(&t->n, n + 1, memory_order_release);
    if (n + 1 == BUFFER_RECORDS) {
        pthread_mutex_lock(&out_lock);
        flush_locked(t);
        pthread_mutex_unlock(&out_lock);
    }
}

static void on_roi(unsigned int vcpu, void *begin)
{
    struct thread_state *t = vcpu < MAX_VCPUS ? atomic_load(&slots[vcpu]) : NULL;
    /* The begin marker's block started while recording was off, so it was not counted: count
     * it now, so the accesses after the marker in this block (tb_base + k) stay within it and
     * the thread's counts never go backwards. (With recording already on it was counted.) */
    if (t && begin && !atomic_load(&recording))
        t->icount = t->tb_base + t->tb_len;
    pthread_mutex_lock(&out_lock);
    put_block(begin ? BLOCK_ROI_BEGIN : BLOCK_ROI_END, t ? t->tid : 0, 0, NULL);
    pthread_mutex_unlock(&out_lock);
    atomic_store(&recording, begin != NULL);
}

/* Whether an x86-64 instruction is a string instruction (movs, cmps, stos, lods, scas) with a
 * REP/REPE/REPNE prefix. */
static int is_rep_string(const unsigned char *b, size_t len)
{
    int rep = 0;
    size_t i = 0;
    for (; i < len; i++) {
        unsigned char c = b[i];
        if (c == 0xf2 || c == 0xf3)
            rep = 1;
        else if (!(c == 0x66 || c == 0x67 || c == 0x2e || c == 0x36 || c == 0x3e || c == 0x26 || c == 0x64 ||
                   c == 0x65 || (c & 0xf0) == 0x40))
            break;
    }
    return rep && i < len && b[i] >= 0xa4 && b[i] <= 0xaf && b[i] != 0xa8 && b[i] != 0xa9;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (n == 0)
        return;
    uint64_t block = n & INSN_INDEX_MASK;
    struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn(tb, 0);
    if (x86_target && is_rep_string(qemu_plugin_insn_data(first), qemu_plugin_insn_size(first)))
        block |= INSN_REP | qemu_plugin_insn_vaddr(first) << 16;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)block);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t data = (i + 1) & INSN_INDEX_MASK;
        if (x86_target && is_rep_string(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn)))
            data |= INSN_REP | qemu_plugin_insn_vaddr(insn) << 16;
        if (x86_target && qemu_plugin_insn_size(insn) == sizeof ROI_BEGIN_X86) {
            const void *bytes = qemu_plugin_insn_data(insn);
            if (memcmp(bytes, ROI_BEGIN_X86, sizeof ROI_BEGIN_X86) == 0)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_roi, QEMU_PLUGIN_CB_NO_REGS, (void *)1);
            else if (memcmp(bytes, ROI_END_X86, sizeof ROI_END_X86) == 0)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_roi, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                         (void *)(uintptr_t)data);
    }
}

/* Runs when the guest exits (exit_group, or a fatal signal): flushes every thread and ends
 * the stream. Threads still running get no further records out. */
static void on_guest_exit(qemu_plugin_id_t id, void *p)
{
    (void)id;
    (void)p;
    atomic_store(&recording, 0);
    pthread_mutex_lock(&out_lock);
    for (unsigned int v = 0; v < MAX_VCPUS; v++) {
        struct thread_state *t = atomic_load(&slots[v]);
        if (t) {
            flush_locked(t);
            put_block(BLOCK_THREAD_EXIT, t->tid, 0, NULL);
        }
    }
    put_block(BLOCK_END, 0, 0, NULL);
    closed = 1;
    pthread_mutex_unlock(&out_lock);
}

NUMASIM_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    int roi = 0;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "fd=", 3) == 0) {
            out_fd = atoi(argv[i] + 3);
        } else if (strcmp(argv[i], "roi=on") == 0) {
            roi = 1;
        } else if (strcmp(argv[i], "roi=off") != 0) {
            fprintf(stderr, "numasim tracer: unknown argument `%s` (fd=N, roi=on|off)\n", argv[i]);
            return -1;
        }
    }
    if (out_fd < 0 || fcntl(out_fd, F_GETFD) < 0) {
        fprintf(stderr, "numasim tracer: no trace pipe (give fd=N of an open pipe; run through `numasim trace capture`)\n");
        return -1;
    }
    if (info->system_emulation) {
        fprintf(stderr, "numasim tracer: only user-mode emulation (qemu-x86_64, qemu-aarch64) is supported\n");
        return -1;
    }
    fcntl(out_fd, F_SETFD, FD_CLOEXEC);
    x86_target = info->target_name && strcmp(info->target_name, "x86_64") == 0;
    owner_pid = getpid();
    atomic_store(&recording, !roi);
    pthread_mutex_lock(&out_lock);
    uint32_t head[4] = {0x5451534e /* "NSQT" */, 1, 0, 0};
    put(head, sizeof head);
    pthread_mutex_unlock(&out_lock);
    qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
    return 0;
}
