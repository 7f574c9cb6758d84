/*
 * Micro-benchmark of transport_shm (not a test): two processes pinned to CPUs 0 and 1.
 *   latency    8-byte ping-pong, one-way time = round trip / 2 (best and median of rounds)
 *   stream     rank 0 streams frames of one size; rank 1's deliver() copies each out (as the
 *              layer above does with an eager payload); bandwidth until rank 1 has them all
 *   rma_readv   rank 0 reads a buffer of rank 1 repeatedly
 *   memcpy     the same sizes copied inside one process, for reference
 * Geometry from the usual METAMPI_SHM_* variables. Usage: bench_shm [seconds-per-item]
 */
#include "transport/shm/layout.h"
#include "transport/transport.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T transport_shm

typedef struct {
    pthread_barrier_t bar;
    uint64_t addr;
    double result[64];
} shared_t;

static shared_t *sh;
static int me;
static char err[512];
static double secs = 0.5;
static volatile uint64_t got, got_bytes;
static unsigned char sink[SHM_MAX_FRAME];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "rank %d: %s: %s\n", me, what, err);
    _exit(1);
}

static void deliver(int src, const void *f, size_t len)
{
    (void)src;
    memcpy(sink, f, len);
    got++;
    got_bytes += len;
}

static void poll_until(uint64_t n)
{
    while (got < n)
        if (T.progress(err, sizeof err) < 0)
            die("progress");
}

static void send_retry(int d, const void *buf, size_t len)
{
    struct iovec iov = {(void *)buf, len};
    for (;;) {
        int r = T.send(d, &iov, 1, NULL, err, sizeof err);
        if (r < 0)
            die("send");
        if (r)
            return;
        if (T.progress(err, sizeof err) < 0)
            die("progress");
    }
}

static void bar(void) { pthread_barrier_wait(&sh->bar); }

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void latency(void)
{
    /* many short rounds: on a shared host the best round is the one nobody preempted */
    enum { rounds = 201 };
    double r[rounds];
    uint64_t msg = 0;
    int iters = 2000;
    for (int k = 0; k < rounds; k++) {
        bar();
        double t0 = now();
        for (int i = 0; i < iters; i++) {
            if (me == 0) {
                send_retry(1, &msg, 8);
                poll_until(got + 1);
            } else {
                poll_until(got + 1);
                send_retry(0, &msg, 8);
            }
        }
        r[k] = (now() - t0) / iters / 2;
    }
    if (me == 0) {
        qsort(r, rounds, sizeof r[0], cmp);
        printf("latency   8 B one-way: best %.1f ns, median %.1f ns\n", r[0] * 1e9,
               r[rounds / 2] * 1e9);
    }
}

static void stream(size_t len)
{
    static unsigned char buf[SHM_MAX_FRAME];
    memset(buf, 1, sizeof buf);
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        /* frames per round sized to take about secs/3 */
        uint64_t n = (uint64_t)(2e9 * secs / 3 / (double)(len + 200));
        if (n < 1000)
            n = 1000;
        bar();
        uint64_t base = got;
        double t0 = now();
        if (me == 0) {
            for (uint64_t i = 0; i < n; i++)
                send_retry(1, buf, len);
            poll_until(base + 1); /* rank 1's "got them all" */
        } else {
            poll_until(base + n);
            send_retry(0, buf, 1);
        }
        double t = now() - t0;
        double bw = (double)n * (double)len / t;
        if (bw > best)
            best = bw;
    }
    if (me == 0)
        printf("stream    %6zu B frames: %7.2f GB/s  (%.0f ns/frame)\n", len, best / 1e9,
               len / best * 1e9);
}

static void rma(size_t len)
{
    unsigned char *b = malloc(len);
    memset(b, me + 1, len);
    if (me == 1)
        sh->addr = (uint64_t)(uintptr_t)b;
    bar();
    if (me == 0) {
        double best = 0;
        for (int rep = 0; rep < 5; rep++) {
            int n = 0;
            double t0 = now(), t;
            do {
                struct iovec l = {b, len}, r1 = {(void *)(uintptr_t)sh->addr, len};
                int r = T.rma_readv(1, &l, 1, &r1, 1, err, sizeof err);
                if (r != TR_RMA_OK)
                    die(r == TR_RMA_UNSUPPORTED ? "rma_readv unsupported" : "rma_readv");
                n++;
            } while ((t = now() - t0) < secs / 5);
            double bw = (double)n * (double)len / t;
            if (bw > best)
                best = bw;
        }
        printf("rma_readv  %8zu B: %6.2f GB/s\n", len, best / 1e9);
    }
    bar();
    free(b);
}

static void memcpy_ref(size_t len)
{
    unsigned char *a = malloc(len), *b = malloc(len);
    memset(a, 1, len);
    memset(b, 2, len);
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        int n = 0;
        double t0 = now(), t;
        do {
            memcpy(b, a, len);
            __asm__ volatile("" ::"r"(b) : "memory");
            n++;
        } while ((t = now() - t0) < secs / 10);
        if ((double)n * (double)len / t > best)
            best = (double)n * (double)len / t;
    }
    printf("memcpy    %8zu B: %6.2f GB/s\n", len, best / 1e9);
    free(a);
    free(b);
}

static void child(const char *job)
{
    cpu_set_t cs;
    CPU_ZERO(&cs);
    CPU_SET(me, &cs);
    if (sched_setaffinity(0, sizeof cs, &cs) < 0)
        perror("sched_setaffinity");
    int hosts[2] = {0, 0};
    tr_boot_t boot = { .rank = me, .size = 2, .job_id = job, .host_of = hosts };
    if (T.open(&boot, deliver, err, sizeof err) < 0)
        die("open");
    bar();
    if (T.connect(err, sizeof err) < 0)
        die("connect");
    bar();
    if (T.ready(err, sizeof err) < 0)
        die("ready");
    latency();
    static const size_t sizes[] = {8, 52, 64, 256, 1024, 4096, 16384, 32768, 65536};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        stream(sizes[i]);
    static const size_t rs[] = {65536, 1 << 20, 4 << 20, 64 << 20};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        rma(rs[i]);
    if (me == 0)
        for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
            memcpy_ref(rs[i]);
    bar();
    T.close();
    _exit(0);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1)
        secs = atof(argv[1]);
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pthread_barrierattr_t a;
    pthread_barrierattr_init(&a);
    pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->bar, &a, 2);
    char job[64];
    snprintf(job, sizeof job, "bench%d", (int)getpid());
    const char *c = getenv("METAMPI_SHM_CELLS"), *r = getenv("METAMPI_SHM_RING_BYTES");
    printf("transport_shm: cells %s, ring bytes %s\n", c ? c : "default", r ? r : "default");
    pid_t p[2];
    for (me = 0; me < 2; me++)
        if ((p[me] = fork()) == 0)
            child(job);
    int st, bad = 0;
    for (int i = 0; i < 2; i++) {
        waitpid(p[i], &st, 0);
        bad |= !WIFEXITED(st) || WEXITSTATUS(st);
    }
    return bad;
}
