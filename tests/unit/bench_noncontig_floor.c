/* Not a test: what moving a strided vector between two processes of this host can cost at
 * best, without MPI, so a non-contiguous result of bench/p2p/noncontig.c can be set against
 * the machine's floor of the same moment (issue 23, target 2).
 *
 * The data: `total` bytes in blocks of B bytes, every other block (the span is 2 * total), the
 * same vector on both sides, as in noncontig.c. The sender is a child process pinned to CPU 1
 * that fills its buffer once and never writes it again; the receiver is pinned to CPU 0.
 *
 *   pipeline  the sender packs fragments of F bytes into a shared ring of R bytes and the
 *             receiver unpacks them (two copies on two cores, overlapped: what the DATA path
 *             of the shm transport does, minus MPI). Bound by moving the ring's lines between
 *             the two cores: the sender's stores must take every line back from the receiver.
 *   cma-iov   process_vm_readv with one remote and one local iovec per block (one copy; the
 *             kernel pins the remote pages once per iovec).
 *   cma-span  the receiver reads each F-byte fragment's whole span (data and gaps) with one
 *             process_vm_readv into a private buffer and unpacks it (two copies, one core).
 *   contig    process_vm_readv of total contiguous bytes (one copy): the reference.
 *
 * Usage: bench_noncontig_floor [total [B [F [R [messages]]]]] (defaults 1 MiB, 256, 64 KiB,
 * 512 KiB, 400). Prints one line per method: "<method> <MB/s>" (MB = 10^6 B), each the best
 * of 3 passes. Only a comparison within one run means anything: on a virtual machine the
 * cost of moving a line between the two vCPUs changes with where the host runs them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { PASSES = 3, IOV_BATCH = 1024 };

typedef struct {
    _Alignas(64) _Atomic uint64_t produced; /* fragments the sender has packed */
    _Alignas(128) _Atomic uint64_t consumed; /* fragments the receiver has unpacked */
    _Alignas(128) _Atomic int go;            /* pipeline passes the receiver has started */
} ctl_t;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0)
        perror("sched_setaffinity (continuing unpinned)");
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static long arg(int argc, char **argv, int i, long dflt)
{
    return argc > i ? atol(argv[i]) : dflt;
}

/* The sender's side of `msgs` pipelined messages; fragment k goes to slot k % slots. */
static void sender_pipeline(ctl_t *ctl, char *ring, const char *src, long total, long B, long F,
                            long slots, long msgs)
{
    uint64_t k = atomic_load_explicit(&ctl->produced, memory_order_relaxed);
    for (long m = 0; m < msgs; m++)
        for (long off = 0; off < total; off += F, k++) {
            while (k - atomic_load_explicit(&ctl->consumed, memory_order_acquire) >=
                   (uint64_t)slots)
                ;
            char *fr = ring + (long)(k % (uint64_t)slots) * F;
            long n = F < total - off ? F : total - off;
            for (long j = 0; j < n; j += B)
                memcpy(fr + j, src + 2 * (off + j), (size_t)B);
            atomic_store_explicit(&ctl->produced, k + 1, memory_order_release);
        }
}

static double receiver_pipeline(ctl_t *ctl, const char *ring, char *dst, long total, long B,
                                long F, long slots, long msgs)
{
    uint64_t k = atomic_load_explicit(&ctl->consumed, memory_order_relaxed);
    atomic_fetch_add_explicit(&ctl->go, 1, memory_order_release);
    double t0 = now();
    for (long m = 0; m < msgs; m++)
        for (long off = 0; off < total; off += F, k++) {
            while (atomic_load_explicit(&ctl->produced, memory_order_acquire) == k)
                ;
            const char *fr = ring + (long)(k % (uint64_t)slots) * F;
            long n = F < total - off ? F : total - off;
            for (long j = 0; j < n; j += B)
                memcpy(dst + 2 * (off + j), fr + j, (size_t)B);
            atomic_store_explicit(&ctl->consumed, k + 1, memory_order_release);
        }
    return now() - t0;
}

static void readv_all(pid_t pid, struct iovec *l, int nl, struct iovec *r, int nr, size_t bytes)
{
    ssize_t got = process_vm_readv(pid, l, (unsigned long)nl, r, (unsigned long)nr, 0);
    if (got != (ssize_t)bytes) {
        if (got < 0 && (errno == EPERM || errno == ENOSYS))
            fprintf(stderr, "process_vm_readv is not allowed here\n");
        die("process_vm_readv");
    }
}

int main(int argc, char **argv)
{
    long total = arg(argc, argv, 1, 1 << 20), B = arg(argc, argv, 2, 256);
    long F = arg(argc, argv, 3, 65536), R = arg(argc, argv, 4, 512 * 1024);
    long msgs = arg(argc, argv, 5, 400);
    if (B < 1 || total < B || total % B || F < B || F % B || R < F || msgs < 1) {
        fprintf(stderr, "usage: %s [total [B [F [R [messages]]]]]: total and F multiples of "
                        "B, R >= F\n", argv[0]);
        return 2;
    }
    long slots = R / F, span = 2 * total;
    ctl_t *ctl = mmap(NULL, sizeof *ctl, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                      -1, 0);
    char *ring = mmap(NULL, (size_t)R, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* the sender's buffer: private to it after the fork (copy on write, written once there) */
    char *src = mmap(NULL, (size_t)span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (ctl == MAP_FAILED || ring == MAP_FAILED || src == MAP_FAILED)
        die("mmap");
    memset(ring, 0, (size_t)R);
    int ready[2];
    if (pipe(ready) != 0)
        die("pipe");
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        pin(1);
        for (long i = 0; i < span; i++)
            src[i] = (char)(i * 131 + 1);
        char c = 1;
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        for (int p = 0; p < PASSES; p++) {
            while (atomic_load_explicit(&ctl->go, memory_order_acquire) <= p)
                ;
            sender_pipeline(ctl, ring, src, total, B, F, slots, msgs);
        }
        pause(); /* the readers below read src from here */
        _exit(0);
    }
    pin(0);
    char c;
    if (read(ready[0], &c, 1) != 1)
        die("read");
    char *dst = malloc((size_t)span), *bounce = malloc((size_t)(2 * F));
    struct iovec *l = malloc(sizeof *l * IOV_BATCH), *r = malloc(sizeof *r * IOV_BATCH);
    if (!dst || !bounce || !l || !r)
        die("malloc");
    memset(dst, 0, (size_t)span);
    double best[4] = { 1e30, 1e30, 1e30, 1e30 };
    /* fewer messages for the per-block iovecs, which are slow */
    long iov_msgs = msgs / 20 > 0 ? msgs / 20 : 1;
    for (int p = 0; p < PASSES; p++) {
        double t = receiver_pipeline(ctl, ring, dst, total, B, F, slots, msgs);
        if (t < best[0])
            best[0] = t;
        for (long i = 0; p == 0 && i < span; i++)
            if ((i / B) % 2 == 0 && dst[i] != (char)(i * 131 + 1)) {
                fprintf(stderr, "pipeline: wrong data at byte %ld\n", i);
                kill(pid, SIGKILL);
                return 1;
            }

        double t0 = now();
        for (long m = 0; m < iov_msgs; m++)
            for (long off = 0; off < total;) {
                int n = 0;
                for (; n < IOV_BATCH && off < total; n++, off += B) {
                    r[n] = (struct iovec){ src + 2 * off, (size_t)B };
                    l[n] = (struct iovec){ dst + 2 * off, (size_t)B };
                }
                readv_all(pid, l, n, r, n, (size_t)(n * B));
            }
        t = (now() - t0) * (double)msgs / (double)iov_msgs;
        if (t < best[1])
            best[1] = t;

        t0 = now();
        for (long m = 0; m < msgs; m++)
            for (long off = 0; off < total; off += F) {
                long n = F < total - off ? F : total - off;
                struct iovec li = { bounce, (size_t)(2 * n - B) };
                struct iovec ri = { src + 2 * off, (size_t)(2 * n - B) };
                readv_all(pid, &li, 1, &ri, 1, (size_t)(2 * n - B));
                for (long j = 0; j < n; j += B)
                    memcpy(dst + 2 * (off + j), bounce + 2 * j, (size_t)B);
            }
        t = now() - t0;
        if (t < best[2])
            best[2] = t;

        t0 = now();
        for (long m = 0; m < msgs; m++) {
            struct iovec li = { dst, (size_t)total }, ri = { src, (size_t)total };
            readv_all(pid, &li, 1, &ri, 1, (size_t)total);
        }
        t = now() - t0;
        if (t < best[3])
            best[3] = t;
    }
    /* the data arrived: the last method left the first total bytes of the sender's span */
    for (long i = 0; i < total; i++)
        if (dst[i] != (char)(i * 131 + 1)) {
            fprintf(stderr, "wrong data at byte %ld\n", i);
            kill(pid, SIGKILL);
            return 1;
        }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    static const char *names[4] = { "pipeline", "cma-iov", "cma-span", "contig" };
    printf("# total %ld B %ld F %ld R %ld messages %ld\n", total, B, F, R, msgs);
    for (int i = 0; i < 4; i++)
        printf("%s %.1f\n", names[i], (double)total * (double)msgs / best[i] / 1e6);
    return 0;
}
