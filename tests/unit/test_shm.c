/*
 * transport_shm between K forked processes (K from argv: 2, 3, 8), each with its own tr_boot_t
 * and a unique job id, through the three bootstrap phases with a process-shared barrier between
 * them. Runs every scenario twice: with the default geometry and with a tiny one
 * (METAMPI_SHM_CELLS=4, METAMPI_SHM_RING_BYTES=128K, METAMPI_SHM_CMA=0) that fills and wraps
 * the rings constantly. Links only the shm sources: the rest of the library is not involved.
 *
 * Every child has an alarm: a hang fails in seconds; the parent kills the rest when one fails.
 */
#include "transport/shm/layout.h"
#include "transport/transport.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXK 8
#define T transport_shm

typedef struct {
    pthread_barrier_t bar;
    uint64_t addr[MAXK];
    atomic_int flag[MAXK];
} shared_t;

static shared_t *sh;
static int K, me;
static char job[64];
static char err[512];
static int tiny; /* the tiny-geometry configuration */

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[rank %d of %d, job %s] FAIL: ", me, K, job);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    _exit(1);
}

#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        if (!(c))                                                                              \
            fail(__VA_ARGS__);                                                                 \
    } while (0)

static void barrier(void)
{
    int r = pthread_barrier_wait(&sh->bar);
    CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, "barrier: %s", strerror(r));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Files this job has in /dev/shm. */
static int shm_files(void)
{
    char prefix[96];
    snprintf(prefix, sizeof prefix, "metampi.%s.", job);
    DIR *d = opendir("/dev/shm");
    CHECK(d, "opendir /dev/shm: %s", strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static int progress(void)
{
    int n = T.progress(err, sizeof err);
    CHECK(n >= 0, "progress: %s", err);
    return n;
}

/* ---- frame contents: frame k from s to d of a phase, checked byte by byte -------------- */

static const size_t sizes[] = {0,    1,    2,     7,     8,     51,    52,    53,    63,
                               64,   65,   100,   103,   104,   105,   127,   128,   129,
                               255,  256,  1000,  4095,  4096,  4097,  10000, 32767, 32768,
                               65535, 65536, 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static unsigned char byte_of(int s, int d, uint64_t k, size_t i)
{
    return (unsigned char)(s * 37 + d * 11 + k * 7 + i * 3 + (i >> 8) + (k >> 8));
}

static void make_frame(unsigned char *buf, int s, int d, uint64_t k, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = byte_of(s, d, k, i);
}

static void check_frame(const unsigned char *f, size_t len, int s, int d, uint64_t k,
                        size_t want)
{
    CHECK(len == want, "frame %llu from rank %d: length %zu, expected %zu (lost or reordered)",
          (unsigned long long)k, s, len, want);
    static unsigned char want_bytes[SHM_MAX_FRAME];
    make_frame(want_bytes, s, d, k, len);
    if (len && memcmp(f, want_bytes, len) != 0)
        for (size_t i = 0; i < len; i++)
            CHECK(f[i] == want_bytes[i], "frame %llu (%zu bytes) from rank %d: byte %zu wrong",
                  (unsigned long long)k, len, s, i);
}

/* The packer of send_split: copies the next n bytes of the frame's tail. */
static size_t pack_tail(void *ctx, void *dst, size_t n)
{
    const unsigned char **src = ctx;
    memcpy(dst, *src, n);
    *src += n;
    return n;
}

/* Sends len bytes of buf to d, split into 1-3 pieces (one may be empty), or an iovec and a
 * packer for the rest, depending on k. */
static int send_split(int d, const unsigned char *buf, size_t len, uint64_t k)
{
    struct iovec iov[3];
    int n = 1;
    iov[0] = (struct iovec){(void *)buf, len};
    if (k % 4 == 3) {
        const unsigned char *tail = buf + len / 4;
        tr_packer_t pk = {pack_tail, &tail, len - len / 4};
        iov[0].iov_len = len / 4;
        int r = T.send(d, iov, 1, &pk, err, sizeof err);
        CHECK(r >= 0, "send %zu bytes (packed) to rank %d: %s", len, d, err);
        CHECK(r == 0 ? tail == buf + len / 4 : tail == buf + len,
              "packer called %s", r ? "for a part of the frame" : "for a frame not taken");
        return r;
    }
    if (k % 3 == 1) {
        size_t a = len / 3, b = 2 * len / 3;
        iov[0].iov_len = a;
        iov[1] = (struct iovec){(void *)(buf + a), b - a};
        iov[2] = (struct iovec){(void *)(buf + b), len - b};
        n = 3;
    } else if (k % 3 == 2) {
        iov[0].iov_len = 0;
        iov[1] = (struct iovec){(void *)buf, len};
        n = 2;
    }
    int r = T.send(d, iov, n, NULL, err, sizeof err);
    CHECK(r >= 0, "send %zu bytes to rank %d: %s", len, d, err);
    return r;
}

/* ---- deliver: dispatch on the phase -------------------------------------------------- */

enum { PH_NONE, PH_EXCHANGE, PH_ECHO, PH_FULL, PH_WAKE };
static int phase;
static uint64_t rcvd[MAXK];           /* frames received per source in this phase */
static uint64_t rcvd2[MAXK];          /* echo: replies received */

/* echo: a per-peer queue of frames waiting for room, so that order is kept after a 0 */
typedef struct { char type; uint32_t k; } qent_t;
#define QCAP 4096
static qent_t q[MAXK][QCAP];
static int qhead[MAXK], qtail[MAXK];
static int deliver_sent, deliver_full;

static size_t echo_len(uint32_t k) { return 5 + (k * 131) % 2000; }

static int q_flush(int d)
{
    unsigned char buf[2048];
    int sent = 0;
    while (qhead[d] != qtail[d]) {
        qent_t e = q[d][qhead[d] % QCAP];
        size_t len = echo_len(e.k);
        /* a reply carries the ping's bytes (made by d for us) */
        if (e.type == 'P')
            make_frame(buf, me, d, e.k, len);
        else
            make_frame(buf, d, me, e.k, len);
        buf[0] = (unsigned char)e.type;
        memcpy(buf + 1, &e.k, 4);
        if (!send_split(d, buf, len, e.k))
            break;
        qhead[d]++;
        sent++;
    }
    return sent;
}

static void q_push(int d, char type, uint32_t k)
{
    CHECK(qtail[d] - qhead[d] < QCAP, "echo queue overflow");
    q[d][qtail[d]++ % QCAP] = (qent_t){type, k};
}

static void deliver(int src, const void *frame, size_t len)
{
    const unsigned char *f = frame;
    CHECK(src >= 0 && src < K && src != me, "frame from impossible rank %d", src);
    switch (phase) {
    case PH_EXCHANGE:
    case PH_FULL: {
        uint64_t k = rcvd[src]++;
        check_frame(f, len, src, me, k, sizes[k % NSIZES]);
        break;
    }
    case PH_ECHO: {
        CHECK(len >= 5, "echo frame of %zu bytes", len);
        uint32_t k;
        memcpy(&k, f + 1, 4);
        uint64_t *cnt = f[0] == 'P' ? &rcvd[src] : &rcvd2[src];
        CHECK(k == *cnt, "echo %c %u from rank %d, expected %llu", f[0], k, src,
              (unsigned long long)*cnt);
        (*cnt)++;
        CHECK(len == echo_len(k), "echo frame length");
        for (size_t i = 5; i < len; i++)
            CHECK(f[i] == (f[0] == 'P' ? byte_of(src, me, k, i) : byte_of(me, src, k, i)),
                  "echo %c %u from rank %d: byte %zu wrong", f[0], k, src, i);
        if (f[0] == 'P') { /* reply from inside deliver() */
            int was_empty = qhead[src] == qtail[src];
            q_push(src, 'R', k);
            if (was_empty) {
                if (q_flush(src))
                    deliver_sent++;
                else
                    deliver_full++;
            }
        } else {
            CHECK(f[0] == 'R', "echo frame type %d", f[0]);
        }
        break;
    }
    case PH_WAKE:
        CHECK(len == 8 && memcmp(f, "wake-up!", 8) == 0, "wake frame from rank %d", src);
        rcvd[src]++;
        break;
    default:
        fail("frame of %zu bytes from rank %d outside any phase", len, src);
    }
}

/* Each phase has its own alarm: a hang fails within a minute even on a loaded host. */
static void begin_phase(int p)
{
    alarm(60);
    phase = p;
    memset(rcvd, 0, sizeof rcvd);
    memset(rcvd2, 0, sizeof rcvd2);
}

/* ---- phases ------------------------------------------------------------------------- */

/* Every rank sends n frames of every size to every other rank, all at once. */
static void phase_exchange(uint64_t n)
{
    begin_phase(PH_EXCHANGE);
    static unsigned char buf[SHM_MAX_FRAME];
    uint64_t next[MAXK] = {0};
    double t0 = now();
    for (;;) {
        int busy = 0, done = 1;
        for (int i = 1; i < K; i++) {
            int d = (me + i) % K;
            for (int burst = 0; burst < 16 && next[d] < n; burst++) {
                size_t len = sizes[next[d] % NSIZES];
                make_frame(buf, me, d, next[d], len);
                if (!send_split(d, buf, len, next[d]))
                    break;
                next[d]++;
                busy = 1;
            }
            done &= next[d] == n && rcvd[d] == n;
        }
        busy |= progress() > 0;
        if (done)
            break;
        if (!busy)
            sched_yield();
    }
    if (me == 0)
        printf("  exchange: %llu frames per pair in %.2f s\n", (unsigned long long)n, now() - t0);
}

/* Everyone pings everyone; replies are sent from inside deliver(). */
static void phase_echo(uint32_t n)
{
    begin_phase(PH_ECHO);
    uint32_t pinged[MAXK] = {0};
    for (;;) {
        int done = 1;
        for (int i = 1; i < K; i++) {
            int d = (me + i) % K;
            if (pinged[d] < n && qtail[d] - qhead[d] < 8)
                q_push(d, 'P', pinged[d]++);
            q_flush(d);
            done &= pinged[d] == n && rcvd[d] == n && rcvd2[d] == n && qhead[d] == qtail[d];
        }
        if (!progress() && !done)
            sched_yield();
        if (done)
            break;
    }
    CHECK(deliver_sent > 0, "no reply was ever sent from inside deliver()");
    if (me == 0)
        printf("  echo: replies from deliver(): %d taken, %d found the path full\n", deliver_sent,
               deliver_full);
}

static int sleep_until_readable(int timeout_ms)
{
    struct pollfd fds[4];
    int nf = T.pollfds(fds, 4);
    CHECK(nf == 1, "pollfds gave %d descriptors", nf);
    int r = poll(fds, (nfds_t)nf, timeout_ms);
    CHECK(r >= 0, "poll: %s", strerror(errno));
    return r;
}

/* Rank 0 fills its path to rank 1 (which does not poll), sleeps, and is woken by rank 1's
 * draining; then sends more; nothing is lost. */
static void phase_full(uint64_t cells)
{
    begin_phase(PH_FULL);
    static unsigned char buf[SHM_MAX_FRAME];
    const uint64_t more = 3 * cells + 40;
    atomic_store(&sh->flag[0], 0);
    barrier();
    if (me == 0) {
        uint64_t k = 0;
        for (;;) {
            size_t len = sizes[k % NSIZES];
            make_frame(buf, 0, 1, k, len);
            if (!send_split(1, buf, len, k))
                break;
            k++;
            CHECK(k <= cells, "sent %llu frames into a path of %llu cells",
                  (unsigned long long)k, (unsigned long long)cells);
        }
        CHECK(k > 0, "the first send to an empty path returned 0");
        /* The path stays full: nobody drains it yet. */
        make_frame(buf, 0, 1, k, sizes[k % NSIZES]);
        CHECK(send_split(1, buf, sizes[k % NSIZES], k) == 0, "a full path took a frame");
        T.prepare_sleep();
        CHECK(progress() == 0, "progress found events with the path full and nothing sent");
        sh->addr[0] = k;
        atomic_store(&sh->flag[0], 1);
        double t0 = now();
        int r = sleep_until_readable(5000);
        double t = now() - t0;
        T.end_sleep();
        CHECK(r == 1, "a sender waiting for credits was not woken when they came (%.1f s)", t);
        CHECK(t > 0.05, "woke after %.3f s, before the receiver drained", t);
        CHECK(progress() >= 1, "progress did not report the returned credits");
        printf("  full path: %llu frames fit; sender woken %.1f ms after sleeping\n",
               (unsigned long long)k, t * 1e3);
        uint64_t end = k + more;
        while (k < end) {
            size_t len = sizes[k % NSIZES];
            make_frame(buf, 0, 1, k, len);
            if (send_split(1, buf, len, k))
                k++;
            else if (!progress())
                sched_yield();
        }
    } else if (me == 1) {
        while (!atomic_load(&sh->flag[0]))
            sched_yield();
        usleep(200 * 1000);
        CHECK(rcvd[0] == 0, "frames arrived without progress()");
        uint64_t total = sh->addr[0] + more;
        double t0 = now();
        while (rcvd[0] < total) {
            if (!progress())
                sched_yield();
            CHECK(now() - t0 < 20, "stuck at %llu of %llu frames", (unsigned long long)rcvd[0],
                  (unsigned long long)total);
        }
    }
    barrier();
}

/* Everyone but rank 0 sleeps; rank 0 sends each of them one frame 100 ms later. */
static void phase_wake(void)
{
    begin_phase(PH_WAKE);
    T.end_sleep(); /* drain anything left from earlier phases */
    for (int i = 0; i < K; i++)
        atomic_store(&sh->flag[i], 0);
    barrier();
    if (me == 0) {
        for (int j = 1; j < K; j++)
            while (!atomic_load(&sh->flag[j]))
                sched_yield();
        usleep(100 * 1000);
        for (int j = 1; j < K; j++) {
            struct iovec iov = {"wake-up!", 8};
            CHECK(T.send(j, &iov, 1, NULL, err, sizeof err) == 1, "wake frame to %d: %s", j, err);
        }
    } else {
        /* Nothing pending: the doorbell must stay quiet. */
        T.prepare_sleep();
        CHECK(progress() == 0, "events with nothing sent");
        CHECK(sleep_until_readable(50) == 0, "woken with nothing sent");
        T.end_sleep();
        atomic_store(&sh->flag[me], 1);
        double t0 = now();
        while (!rcvd[0]) {
            T.prepare_sleep();
            if (progress()) {
                T.end_sleep();
                continue;
            }
            int r = sleep_until_readable(5000);
            T.end_sleep();
            CHECK(r == 1, "a sleeping receiver was not woken by a frame (%.1f s)", now() - t0);
            progress();
        }
        double t = now() - t0;
        CHECK(t < 3, "wake-up took %.1f s", t);
        if (me == 1)
            printf("  wake: receiver had the frame %.1f ms after going to sleep\n", t * 1e3);
    }
    barrier();
}

static unsigned char pat(int r, size_t i)
{
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + (uint64_t)r * 0x632be59bd9b4e019ull;
    return (unsigned char)(x >> 56);
}

static void phase_rma(size_t S)
{
    int cma = !tiny;
    unsigned char *mine = malloc(S), *got = malloc(S + 64);
    CHECK(mine && got, "out of memory");
    for (size_t i = 0; i < S; i++)
        mine[i] = pat(me, i);
    sh->addr[me] = (uint64_t)(uintptr_t)mine;
    barrier();
    int src = (me + 1) % K;
    const struct { size_t off, len; } cases[] = {
        {0, 1}, {3, 7}, {1, 4096 + 3}, {4095, 65537}, {17, (1 << 20) + 5}, {5, 4 << 20},
        {1, S - 1}, {0, 0},
    };
    double t0 = now();
    size_t bytes = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t off = cases[c].off, len = cases[c].len;
        unsigned char *dst = got + 5;
        memset(got, 0xa5, len + 10);
        struct iovec l = {dst, len}, rv = {(void *)(uintptr_t)(sh->addr[src] + off), len};
        int r = T.rma_readv(src, &l, 1, &rv, 1, err, sizeof err);
        if (!cma) {
            CHECK(r == TR_RMA_UNSUPPORTED, "rma_readv with METAMPI_SHM_CMA=0 returned %d", r);
            continue;
        }
        CHECK(r == TR_RMA_OK, "rma_readv of %zu bytes at +%zu from rank %d: %d %s", len, off, src,
              r, r < 0 ? err : "");
        for (size_t i = 0; i < len; i++)
            CHECK(dst[i] == pat(src, off + i), "rma_readv %zu bytes at +%zu: byte %zu wrong", len,
                  off, i);
        CHECK(got[4] == 0xa5 && dst[len] == 0xa5, "rma_readv wrote outside its buffer");
        bytes += len;
    }
    if (cma) {
        if (me == 0)
            printf("  rma_readv: %zu bytes checked in %.2f s\n", bytes, now() - t0);
        /* Vectored: thousands of pieces (more than IOV_MAX per call), cut differently on
         * each side, with empty ones among them. */
        size_t total = 0;
        int nl = 0, nr = 0;
        static struct iovec lv[5000], rv[5000];
        size_t loff = 0, roff = 7;
        memset(got, 0xa5, S < 600000 ? S : 600000);
        while (nl < 4990 && nr < 4990 && total < 500000) {
            size_t a = (size_t)(rand() % 300), gap = (size_t)(rand() % 40);
            lv[nl++] = (struct iovec){got + loff, a};
            loff += a;
            total += a;
            rv[nr++] = (struct iovec){(void *)(uintptr_t)(sh->addr[src] + roff), a / 2};
            rv[nr++] = (struct iovec){(void *)(uintptr_t)(sh->addr[src] + roff + a / 2 + gap),
                                      a - a / 2};
            roff += a + gap;
        }
        int r = T.rma_readv(src, lv, nl, rv, nr, err, sizeof err);
        CHECK(r == TR_RMA_OK, "rma_readv of %zu bytes in %d/%d pieces: %d %s", total, nl, nr, r,
              r < 0 ? err : "");
        size_t at = 0;
        for (int i = 0; i < nr; i++)
            for (size_t j = 0; j < rv[i].iov_len; j++, at++) {
                size_t off = (uintptr_t)rv[i].iov_base - sh->addr[src] + j;
                if (got[at] != pat(src, off)) {
                    CHECK(0, "rma_readv piece %d byte %zu wrong", i, j);
                    i = nr;
                    break;
                }
            }
        /* An unmapped remote address is an error naming the peer. */
        struct iovec l = {got, 100}, bad = {(void *)16, 100};
        r = T.rma_readv(src, &l, 1, &bad, 1, err, sizeof err);
        char rk[32];
        snprintf(rk, sizeof rk, "rank %d", src);
        CHECK(r == -1 && strstr(err, rk), "rma_readv of a bad address: %d '%s'", r, err);
    }
    barrier();
    free(mine);
    free(got);
}

static void check_errors(void)
{
    CHECK(!T.reaches(me), "reaches(self)");
    for (int r = 0; r < K; r++)
        CHECK(r == me || T.reaches(r), "reaches(%d) on the same host", r);
    CHECK(!T.reaches(K) && !T.reaches(-1), "reaches outside the job");
    struct iovec iov = {"x", 1};
    char rk[32];
    snprintf(rk, sizeof rk, "rank %d", me);
    CHECK(T.send(me, &iov, 1, NULL, err, sizeof err) == -1 && strstr(err, rk),
          "send to self: %s", err);
    static unsigned char big[SHM_MAX_FRAME + 1];
    struct iovec b = {big, sizeof big};
    CHECK(T.max_frame == SHM_MAX_FRAME, "max_frame");
    CHECK(T.send((me + 1) % K, &b, 1, NULL, err, sizeof err) == -1, "oversized frame taken");
}

/* ---- one run: K children ------------------------------------------------------------- */

static int hosts[MAXK];

static void child_full(void)
{
    alarm(30);
    tr_boot_t boot = { .rank = me, .size = K, .job_id = job, .host_of = hosts };
    CHECK(T.open(&boot, deliver, err, sizeof err) == 0, "open: %s", err);
    barrier();
    CHECK(shm_files() == K, "%d segment files after open(), expected %d", shm_files(), K);
    CHECK(T.connect(err, sizeof err) == 0, "connect: %s", err);
    barrier();
    CHECK(T.ready(err, sizeof err) == 0, "ready: %s", err);
    barrier();
    CHECK(shm_files() == 0, "%d segment files left after ready()", shm_files());
    check_errors();
    uint64_t cells = tiny ? 4 : 128;
    phase_exchange(K == 8 ? 1000 : K == 3 ? 6000 : 12000);
    barrier();
    phase_echo(tiny ? 1000 : 500);
    barrier();
    if (K >= 2)
        phase_full(cells);
    phase_wake();
    alarm(60);
    phase_rma(K == 8 ? (16u << 20) : (64u << 20));
    T.close();
    _exit(0);
}

static void child_no_ready(void)
{
    alarm(20);
    tr_boot_t boot = { .rank = me, .size = K, .job_id = job, .host_of = hosts };
    CHECK(T.open(&boot, deliver, err, sizeof err) == 0, "open: %s", err);
    barrier();
    CHECK(shm_files() == K, "%d segment files after open(), expected %d", shm_files(), K);
    CHECK(T.connect(err, sizeof err) == 0, "connect: %s", err);
    barrier();
    T.close();
    barrier();
    CHECK(shm_files() == 0, "%d segment files left after close() without ready()", shm_files());
    _exit(0);
}

static int run(const char *what, void (*child)(void))
{
    static int seq;
    snprintf(job, sizeof job, "t%dn%d", (int)getpid(), seq++);
    pthread_barrierattr_t a;
    pthread_barrierattr_init(&a);
    pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->bar, &a, (unsigned)K);
    printf("K=%d %s%s (job %s)\n", K, what, tiny ? ", tiny rings, no CMA" : "", job);
    fflush(stdout);
    pid_t pids[MAXK];
    for (int i = 0; i < K; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            me = i;
            child();
        }
        CHECK(pids[i] > 0, "fork: %s", strerror(errno));
    }
    int failed = 0, left = K;
    while (left > 0) {
        int st;
        pid_t p = wait(&st);
        if (p < 0)
            break;
        left--;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "child %d %s %d\n", (int)p, WIFSIGNALED(st) ? "killed by signal" :
                    "exited", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            if (!failed)
                for (int i = 0; i < K; i++)
                    kill(pids[i], SIGKILL);
            failed = 1;
        }
    }
    pthread_barrier_destroy(&sh->bar);
    me = -1;
    if (shm_files()) {
        fprintf(stderr, "segment files of job %s left behind\n", job);
        failed = 1;
    }
    return failed;
}

/* A rank alone on its host creates nothing and reaches nobody. */
static int alone(void)
{
    int h[3] = {0, 1, 1};
    snprintf(job, sizeof job, "t%dalone", (int)getpid());
    tr_boot_t boot = { .rank = 0, .size = 3, .job_id = job, .host_of = h };
    me = 0;
    K = 3;
    CHECK(T.open(&boot, deliver, err, sizeof err) == 0, "open alone: %s", err);
    CHECK(shm_files() == 0, "a rank alone created a segment");
    CHECK(T.connect(err, sizeof err) == 0 && T.ready(err, sizeof err) == 0, "alone: %s", err);
    CHECK(!T.reaches(0) && !T.reaches(1) && !T.reaches(2), "alone reaches someone");
    struct pollfd fds[2];
    CHECK(T.pollfds(fds, 2) == 0, "alone has pollfds");
    CHECK(progress() == 0, "alone progress");
    T.close();
    return 0;
}

int main(int argc, char **argv)
{
    K = argc > 1 ? atoi(argv[1]) : 2;
    if (K < 2 || K > MAXK) {
        fprintf(stderr, "usage: %s K (2..%d)\n", argv[0], MAXK);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int k = K;
    int failed = alone();
    K = k;
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return perror("mmap"), 1;
    failed |= run("full", child_full);
    failed |= run("close without ready", child_no_ready);
    setenv("METAMPI_SHM_CELLS", "4", 1);
    setenv("METAMPI_SHM_RING_BYTES", "128K", 1);
    setenv("METAMPI_SHM_CMA", "0", 1);
    tiny = 1;
    failed |= run("full", child_full);
    printf(failed ? "FAILED\n" : "ok\n");
    return failed;
}
