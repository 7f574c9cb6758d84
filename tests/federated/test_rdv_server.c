/*
 * The rendezvous server (rdv_server.c) with the part's client (rdv_client.c), each part and
 * the server in its own process on 127.0.0.1, scenario by scenario:
 *   all       every site joins (in another order than the description's, one late): every
 *             part gets the same layout, the server ends with 0
 *   missing   a site never joins: every waiting part is called off naming it, within the
 *             timeout, and the server ends with 1
 *   refused   wrong key, garbage, unknown site, a site twice, another job ID, another list of
 *             sites: each is turned away with its reason, the others still start
 *   rejoin    a part that leaves while waiting can join again
 *   signal    SIGTERM to the server calls the job off for the waiting parts
 *   noserver  nobody listens: the part gives up after its connect wait, naming the address
 *   flood     200 idle connections (more than the server keeps in the handshake) before the
 *             parts come: the server drops the oldest, every part gets the layout
 *   emfile    the server out of descriptors (a limit of 32) under 60 idle connections: it
 *             drops the oldest in the handshake for each newcomer, so the parts get the
 *             layout at once, not after the idle ones' 10 s (nor does it spin meanwhile)
 *   numbers   the running job (spawning): two parts keep their connections, a third closes
 *             its own; numbers come from one sequence after the world's (RANKS to both), a
 *             gateway's answer (GW_OK, with a reason too) reaches the asker, the closed part
 *             counts as answered, and the server ends with 0 once the parts have closed
 *   stopped   SIGTERM to the server while the parts run: each part's link reports the
 *             closed connection (its job would run on without spawning), the server ends
 *             with 0
 * Usage: test_rdv_server SCENARIO (one ctest entry each).
 */
#include "rdv_client.h"
#include "rdv_link.h"
#include "rdv_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static const auth_key_t KEY = { { 0x11, 0x22, 0x33 } };
static const auth_key_t WRONG = { { 0x11, 0x22, 0x34 } };
static const char *const SITES3[] = { "alpha", "beta", "gamma" };

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void log_line(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "server: %s\n", text);
}

typedef struct server {
    pid_t pid;
    char addr[64];
} server_t;

/* Starts the server for sites[0..n) in a child process. */
static server_t start_server_limited(const char *job, const char *const *sites, int n,
                                     int timeout_ms, const char *wan, int max_fds)
{
    server_t s;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        perror("listen");
        exit(2);
    }
    snprintf(s.addr, sizeof s.addr, "127.0.0.1:%u", ntohs(a.sin_port));
    s.pid = fork();
    if (s.pid == 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigprocmask(SIG_BLOCK, &set, NULL);
        struct rlimit lim = { (rlim_t)max_fds, (rlim_t)max_fds };
        if (max_fds > 0 && setrlimit(RLIMIT_NOFILE, &lim) != 0) {
            perror("setrlimit");
            _exit(2);
        }
        rdv_server_config_t cfg = { .job = job, .sites = sites, .nsites = n, .wan = wan,
                                    .key = KEY,
                                    .timeout_ms = timeout_ms, .listen_fd = fd,
                                    .signal_fd = signalfd(-1, &set, SFD_CLOEXEC),
                                    .log = log_line };
        _exit(rdv_server_run(&cfg));
    }
    close(fd);
    return s;
}

static server_t start_server_wan(const char *job, const char *const *sites, int n,
                                 int timeout_ms, const char *wan)
{
    return start_server_limited(job, sites, n, timeout_ms, wan, 0);
}

static server_t start_server(const char *job, const char *const *sites, int n, int timeout_ms)
{
    return start_server_wan(job, sites, n, timeout_ms, "streams=2 compression=auto");
}

static int wait_status(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A part's outcome, as its process reports it through a pipe. */
typedef struct part {
    pid_t pid;
    int fd;
    char out[8192];
} part_t;

typedef struct join_args {
    const char *job, *site;
    const char *const *sites;
    uint32_t nsites, nranks, nhosts;
    const auth_key_t *key;
    int delay_ms;
    const char *gateway;
    const char *wan;
} join_args_t;

/* Prints what the part got: "OK size S sites N <site:first:nranks:hosts:gw>... body <hash>" or
 * "FAIL <message>". */
static void run_part(const char *server, const join_args_t *a, int out)
{
    if (a->delay_ms)
        usleep((useconds_t)a->delay_ms * 1000);
    const char *hosts[4] = { "h0", "h1", "h2", "h3" };
    uint32_t rank_host[64];
    for (uint32_t r = 0; r < a->nranks; r++)
        rank_host[r] = r % a->nhosts;
    rdv_request_t q = { .job = a->job, .site = a->site, .sites = a->sites,
                        .nsites = a->nsites, .wan = a->wan, .nranks = a->nranks, .hosts = hosts,
                        .nhosts = a->nhosts, .rank_host = rank_host,
                        .gateway = a->gateway ? a->gateway : "" };
    sigset_t set;
    sigemptyset(&set);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    rdv_result_t res;
    int signo;
    char err[1024], text[8192];
    int rc = rdv_client_join(server, a->key, &q, 3000, sfd, &res, &signo, NULL, err,
                             sizeof err);
    if (rc != RDV_CLIENT_OK) {
        snprintf(text, sizeof text, "FAIL %s", err);
    } else {
        size_t len = (size_t)snprintf(text, sizeof text, "OK size %u sites %u", res.l->size,
                                      res.l->nsites);
        for (uint32_t s = 0; s < res.l->nsites; s++) {
            rdv_site_t *t = &res.l->site[s];
            len += (size_t)snprintf(text + len, sizeof text - len, " %s:%u:%u:%u:%s", t->name,
                                    t->first, t->nranks, t->hosts.n,
                                    *t->gateway ? t->gateway : "-");
        }
        rdv_result_free(&res);
    }
    if (write(out, text, strlen(text)) < 0)
        _exit(3);
}

static part_t start_part(const char *server, join_args_t a)
{
    part_t p;
    int fds[2];
    if (pipe(fds) != 0)
        exit(2);
    p.pid = fork();
    if (p.pid == 0) {
        close(fds[0]);
        run_part(server, &a, fds[1]);
        _exit(0);
    }
    close(fds[1]);
    p.fd = fds[0];
    p.out[0] = '\0';
    return p;
}

/* Waits for the part's report (and its exit). */
static const char *finish_part(part_t *p)
{
    size_t len = 0;
    ssize_t n;
    while ((n = read(p->fd, p->out + len, sizeof p->out - 1 - len)) > 0)
        len += (size_t)n;
    p->out[len] = '\0';
    close(p->fd);
    CHECK(wait_status(p->pid) == 0);
    fprintf(stderr, "part: %s\n", p->out);
    return p->out;
}

static join_args_t part_args(const char *site, uint32_t nranks)
{
    return (join_args_t){ .job = "job7", .site = site, .sites = SITES3, .nsites = 3,
                          .nranks = nranks, .nhosts = nranks < 2 ? 1 : 2, .key = &KEY,
                          .wan = "streams=2 compression=auto" };
}

static void scenario_all(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    join_args_t g = part_args("gamma", 3), a = part_args("alpha", 2), b = part_args("beta", 1);
    a.gateway = "10.0.1.1:7000";
    b.delay_ms = 500;  /* the last to come */
    part_t p[3] = { start_part(s.addr, g), start_part(s.addr, a), start_part(s.addr, b) };
    const char *want = "OK size 6 sites 3 alpha:0:2:2:10.0.1.1:7000 beta:2:1:1:- gamma:3:3:2:-";
    for (int i = 0; i < 3; i++)
        CHECK(strcmp(finish_part(&p[i]), want) == 0);
    CHECK(wait_status(s.pid) == 0);
}

static void scenario_missing(void)
{
    long long t0 = now_ms();
    server_t s = start_server("job7", SITES3, 3, 1500);
    part_t p = start_part(s.addr, part_args("beta", 2));
    const char *out = finish_part(&p);
    CHECK(strstr(out, "FAIL ") == out);
    CHECK(strstr(out, "called the job off") != NULL);
    CHECK(strstr(out, "sites alpha and gamma did not join within 2 s") != NULL);
    CHECK(wait_status(s.pid) == 1);
    CHECK(now_ms() - t0 < 10000);
}

/* A connection that sends bytes that are no HELLO; it must be dropped, nothing else. */
static void garbage(const char *addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    char host[32];
    unsigned port;
    sscanf(addr, "%31[^:]:%u", host, &port);
    inet_pton(AF_INET, host, &a.sin_addr);
    a.sin_port = htons((uint16_t)port);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    char junk[200];
    memset(junk, 'G', sizeof junk);
    CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
    char buf[256];
    ssize_t n, total = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0)  /* the server closes it */
        total += n;
    CHECK(total == RDV_CHALLENGE_LEN + RDV_VERDICT_LEN);
    close(fd);
}

static void scenario_refused(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    part_t first = start_part(s.addr, part_args("alpha", 2));
    usleep(300 * 1000);  /* alpha is there before its duplicate */
    garbage(s.addr);
    join_args_t wrong_key = part_args("beta", 1), unknown = part_args("delta", 1),
                twice = part_args("alpha", 1), other_job = part_args("beta", 1),
                other_sites = part_args("beta", 1), other_wan = part_args("beta", 1);
    other_wan.wan = "streams=4 compression=auto";
    wrong_key.key = &WRONG;
    other_job.job = "job8";
    static const char *const two[] = { "alpha", "beta" };
    other_sites.sites = two;
    other_sites.nsites = 2;
    struct { join_args_t a; const char *want; } bad[] = {
        { wrong_key, "refused this job key" },
        { unknown, "refused this part: site 'delta' is not in the server's description "
                   "(sites alpha,beta,gamma)" },
        { twice, "refused this part: site 'alpha' has already joined (from 127.0.0.1:" },
        { other_job, "refused this part: this rendezvous server is for job 'job7', not "
                     "'job8'" },
        { other_sites, "the part's description has the sites alpha,beta, the server's has "
                       "alpha,beta,gamma" },
        { other_wan, "the part's description has the [wan] settings 'streams=4 "
                     "compression=auto', the server's 'streams=2 compression=auto'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        part_t p = start_part(s.addr, bad[i].a);
        const char *out = finish_part(&p);
        CHECK(strstr(out, "FAIL ") == out && strstr(out, bad[i].want) != NULL);
    }
    part_t rest[2] = { start_part(s.addr, part_args("beta", 1)),
                       start_part(s.addr, part_args("gamma", 1)) };
    CHECK(strncmp(finish_part(&first), "OK size 4 sites 3", 17) == 0);
    for (int i = 0; i < 2; i++)
        CHECK(strncmp(finish_part(&rest[i]), "OK size 4 sites 3", 17) == 0);
    CHECK(wait_status(s.pid) == 0);
}

static void scenario_rejoin(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    part_t a = start_part(s.addr, part_args("alpha", 1));
    part_t b = start_part(s.addr, part_args("beta", 1));
    usleep(300 * 1000);
    kill(b.pid, SIGKILL);  /* beta's part dies while it waits */
    close(b.fd);
    CHECK(wait_status(b.pid) == 128 + SIGKILL);
    usleep(200 * 1000);
    part_t b2 = start_part(s.addr, part_args("beta", 2));
    part_t g = start_part(s.addr, part_args("gamma", 1));
    CHECK(strcmp(finish_part(&a), "OK size 4 sites 3 alpha:0:1:1:- beta:1:2:2:- "
                                  "gamma:3:1:1:-") == 0);
    finish_part(&b2);
    finish_part(&g);
    CHECK(wait_status(s.pid) == 0);
}

static void scenario_signal(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    part_t a = start_part(s.addr, part_args("alpha", 1));
    usleep(300 * 1000);
    kill(s.pid, SIGTERM);
    const char *out = finish_part(&a);
    CHECK(strstr(out, "called the job off: the rendezvous server was stopped by signal 15") !=
          NULL);
    CHECK(wait_status(s.pid) == 1);
}

static void scenario_noserver(void)
{
    /* a port nobody listens on: bind one and close it */
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%u", ntohs(a.sin_port));
    long long t0 = now_ms();
    part_t p = start_part(addr, part_args("alpha", 1));
    const char *out = finish_part(&p);
    CHECK(strstr(out, "cannot reach the rendezvous server at 127.0.0.1:") != NULL);
    CHECK(strstr(out, "within 3 s: Connection refused") != NULL);
    long long took = now_ms() - t0;
    CHECK(took >= 2500 && took < 8000);
}

/* Opens n connections to addr that never say anything; returns their fds. */
static int *idle_connections(const char *addr, int n)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    char host[32];
    unsigned port;
    sscanf(addr, "%31[^:]:%u", host, &port);
    inet_pton(AF_INET, host, &a.sin_addr);
    a.sin_port = htons((uint16_t)port);
    int *fds = malloc((size_t)n * sizeof *fds);
    for (int i = 0; i < n; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        connect(fds[i], (struct sockaddr *)&a, sizeof a); /* in progress: the queue decides */
    }
    return fds;
}

static void scenario_flood(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    enum { IDLE = 200 };
    int *idle = idle_connections(s.addr, IDLE);
    usleep(100 * 1000);
    part_t p[3] = { start_part(s.addr, part_args("alpha", 2)),
                    start_part(s.addr, part_args("beta", 1)),
                    start_part(s.addr, part_args("gamma", 3)) };
    const char *want = "OK size 6 sites 3 alpha:0:2:2:- beta:2:1:1:- gamma:3:3:2:-";
    for (int i = 0; i < 3; i++)
        CHECK(strcmp(finish_part(&p[i]), want) == 0);
    CHECK(wait_status(s.pid) == 0);
    for (int i = 0; i < IDLE; i++)
        close(idle[i]);
    free(idle);
}

static void scenario_emfile(void)
{
    server_t s = start_server_limited("job7", SITES3, 3, 20000, "streams=2 compression=auto",
                                      32);
    enum { IDLE = 60 };
    int *idle = idle_connections(s.addr, IDLE);
    usleep(300 * 1000);
    long long t0 = now_ms();
    part_t p[3] = { start_part(s.addr, part_args("alpha", 2)),
                    start_part(s.addr, part_args("beta", 1)),
                    start_part(s.addr, part_args("gamma", 3)) };
    const char *want = "OK size 6 sites 3 alpha:0:2:2:- beta:2:1:1:- gamma:3:3:2:-";
    for (int i = 0; i < 3; i++)
        CHECK(strcmp(finish_part(&p[i]), want) == 0);
    long long took = now_ms() - t0;
    fprintf(stderr, "the parts had the layout after %lld ms\n", took);
    CHECK(took < 5000); /* not after the idle connections' RDV_JOIN_WAIT_MS */
    CHECK(wait_status(s.pid) == 0);
    for (int i = 0; i < IDLE; i++)
        close(idle[i]);
    free(idle);
}

/* ---- the running job ------------------------------------------------------------------- */

typedef struct seen {
    char text[4096];
    size_t len;
    int ranks, gw_ok, relays;
    rdv_link_t *l;
    int echo;       /* answer every part's RELAY with the same fields, kind + 1 */
    int answer;     /* answer every RANKS with a GW_OK (why "no room" for base 8) */
    uint32_t site;
    char ok[16][2][32];   /* per base, per site: the GW_OK's why ("-": none came) */
} seen_t;

/* A RELAY: "UNREACHED site id 'why'", "GONE site 'why'" or "RELAY site kind id f1|f2|..." */
static void on_relay(seen_t *s, const rdv_relay_t *m)
{
    char err[256];
    rdv_strs_t f = m->fields;
    const char *v[8];
    uint32_t n = m->fields.n < 8 ? m->fields.n : 8;
    for (uint32_t i = 0; i < n; i++)
        v[i] = rdv_strs_next(&f);
    s->relays++;
    if (m->kind == RDV_RELAY_UNREACHED || m->kind == RDV_RELAY_GONE) {
        s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, " %s %u",
                                   m->kind ? "GONE" : "UNREACHED", m->site);
        if (m->kind == RDV_RELAY_UNREACHED)
            s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, " %u", m->id);
        s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, " '%s'",
                                   n == 1 ? v[0] : "?");
        return;
    }
    s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, " RELAY %u %u %u ",
                               m->site, m->kind, m->id);
    for (uint32_t i = 0; i < n; i++)
        s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, "%s%s",
                                   i ? "|" : "", v[i]);
    if (s->echo && rdv_link_relay(s->l, m->site, m->kind + 1, m->id, v, n, err,
                                  sizeof err) != 0)
        _exit(4);
}

static void on_frame(void *ctx, uint8_t type, const rdv_ranks_t *r, const rdv_relay_t *m)
{
    seen_t *s = ctx;
    char err[256];
    if (type == RDV_RELAY) {
        on_relay(s, m);
    } else if (type == RDV_RANKS) {
        s->ranks++;
        s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len,
                                   " RANKS %s %u %u %s %u %u '%s'", r->kvsname, r->base,
                                   r->count, r->sites, r->site, r->parts, r->why);
        if (s->answer && rdv_link_gw_ok(s->l, r->base, s->site, r->base == 8 ? "no room" : "",
                                        err, sizeof err) != 0)
            _exit(4);
    } else if (type == RDV_GW_OK) {
        s->gw_ok++;
        if (r->base < 16 && r->site < 2)
            snprintf(s->ok[r->base][r->site], sizeof s->ok[0][0], "%s", r->why);
    }
}

/* Reads frames until want RANKS and want_ok GW_OKs came (5 s at most). */
static int await(seen_t *s, int want, int want_ok)
{
    char err[256];
    long long end = now_ms() + 5000;
    while ((s->ranks < want || s->gw_ok < want_ok) && now_ms() < end) {
        struct pollfd p = { .fd = rdv_link_fd(s->l), .events = POLLIN };
        if (poll(&p, 1, 100) > 0 && rdv_link_read(s->l, on_frame, s, err, sizeof err) != 0) {
            s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, " LOST %s",
                                       err);
            return -1;
        }
    }
    return s->ranks >= want && s->gw_ok >= want_ok ? 0 : -1;
}

/* Reads frames until want RELAYs came in all (5 s at most). */
static int await_relays(seen_t *s, int want)
{
    char err[256];
    long long end = now_ms() + 5000;
    for (int first = 1; s->relays < want && now_ms() < end; first = 0) {
        /* frames read with the layout are there already: no poll announces them */
        struct pollfd p = { .fd = rdv_link_fd(s->l), .events = POLLIN };
        if (((first && s->l->inlen) || poll(&p, 1, 100) > 0) &&
            rdv_link_read(s->l, on_frame, s, err, sizeof err) != 0) {
            s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, " LOST %s",
                                       err);
            return -1;
        }
    }
    return s->relays >= want ? 0 : -1;
}

/* A part that keeps its link; role 0 (alpha) asks for numbers, 1 (beta) answers, 2 (gamma)
 * closes at once, 3 waits until the link is lost; 4 (alpha) sends a RELAY to beta and one to
 * gamma (gone), 5 (beta) echoes the one it gets and closes. */
static void run_link_part(const char *server, const join_args_t *a, int role, int out)
{
    const char *hosts[1] = { "h0" };
    uint32_t rank_host[8] = { 0 };
    rdv_request_t q = { .job = a->job, .site = a->site, .sites = a->sites,
                        .nsites = a->nsites, .wan = a->wan, .nranks = a->nranks, .hosts = hosts,
                        .nhosts = 1, .rank_host = rank_host, .gateway = "" };
    sigset_t set;
    sigemptyset(&set);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    rdv_result_t res;
    int signo;
    char err[1024];
    static seen_t s;
    s.site = (uint32_t)role;
    for (int i = 0; i < 16; i++)
        strcpy(s.ok[i][0], "-"), strcpy(s.ok[i][1], "-");
    int rc = rdv_client_join(server, a->key, &q, 3000, sfd, &res, &signo,
                             role == 2 ? NULL : &s.l, err, sizeof err);
    if (rc != RDV_CLIENT_OK || (role != 2 && !s.l)) {
        s.len = (size_t)snprintf(s.text, sizeof s.text, "FAIL %s", err);
    } else if (role == 0) {
        rdv_result_free(&res);
        usleep(300000);   /* gamma has closed: two parts serve */
        s.answer = 1;
        if (rdv_link_numbers(s.l, "kA.s1", 2, "0*2", err, sizeof err) != 0 ||
            await(&s, 1, 2) != 0 ||
            rdv_link_numbers(s.l, "kA.s2", 3, "0,1*2", err, sizeof err) != 0 ||
            await(&s, 2, 4) != 0)
            s.len += (size_t)snprintf(s.text + s.len, sizeof s.text - s.len, " FAIL");
        /* the answers of both sites, whatever order they came in */
        for (int b = 6; b <= 8; b += 2)
            s.len += (size_t)snprintf(s.text + s.len, sizeof s.text - s.len,
                                      " OK %d '%s' '%s'", b, s.ok[b][0], s.ok[b][1]);
    } else if (role == 4) {
        rdv_result_free(&res);
        usleep(300000);   /* gamma has closed: two parts serve */
        static const char *const f[3] = { "kA.s1", "", "a b" };
        if (await_relays(&s, 1) != 0 ||   /* gamma's GONE */
            rdv_link_relay(s.l, 1, RDV_RELAY_KINDS + 4, 77, f, 3, err, sizeof err) != 0 ||
            await_relays(&s, 2) != 0 ||   /* beta's echo */
            rdv_link_relay(s.l, 2, RDV_RELAY_KINDS, 78, f, 1, err, sizeof err) != 0 ||
            await_relays(&s, 4) != 0)     /* UNREACHED gamma, GONE beta */
            s.len += (size_t)snprintf(s.text + s.len, sizeof s.text - s.len, " FAIL");
    } else if (role == 5) {
        rdv_result_free(&res);
        s.echo = 1;
        if (await_relays(&s, 2) != 0)   /* gamma's GONE, alpha's RELAY */
            s.len += (size_t)snprintf(s.text + s.len, sizeof s.text - s.len, " FAIL");
        usleep(200000);   /* the echo leaves before the connection closes */
    } else if (role == 3) {
        rdv_result_free(&res);
        if (await(&s, 1, 0) == 0)
            s.len += (size_t)snprintf(s.text + s.len, sizeof s.text - s.len, " RANKS?");
    } else if (role == 1) {
        rdv_result_free(&res);
        s.answer = 1;
        if (await(&s, 2, 0) != 0)
            s.len += (size_t)snprintf(s.text + s.len, sizeof s.text - s.len, " FAIL");
        usleep(200000);   /* the answers leave before the connection closes */
    } else {
        rdv_result_free(&res);
    }
    rdv_link_close(s.l);
    if (write(out, s.text, s.len) < 0)
        _exit(3);
}

static part_t start_link_part(const char *server, join_args_t a, int role)
{
    part_t p;
    int fds[2];
    if (pipe(fds) != 0)
        exit(2);
    p.pid = fork();
    if (p.pid == 0) {
        close(fds[0]);
        run_link_part(server, &a, role, fds[1]);
        _exit(0);
    }
    close(fds[1]);
    p.fd = fds[0];
    p.out[0] = '\0';
    return p;
}

static void scenario_numbers(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    join_args_t a = part_args("alpha", 2), b = part_args("beta", 1), g = part_args("gamma", 3);
    part_t p[3] = { start_link_part(s.addr, a, 0), start_link_part(s.addr, b, 1),
                    start_link_part(s.addr, g, 2) };
    /* world ranks 0-5: the first numbers are 6-7, then 8-10; alpha answers for itself;
     * gamma's going is told to both */
    const char *want_a = " GONE 2 'the mpirun of site gamma left the rendezvous server (its part "
                         "has ended, or it lost the connection)'"
                         " RANKS kA.s1 6 2 0*2 0 2 '' RANKS kA.s2 8 3 0,1*2 0 2 ''"
                         " OK 6 '' '' OK 8 'no room' 'no room'";
    const char *want_b = " GONE 2 'the mpirun of site gamma left the rendezvous server (its part "
                         "has ended, or it lost the connection)'"
                         " RANKS kA.s1 6 2 0*2 0 2 '' RANKS kA.s2 8 3 0,1*2 0 2 ''";
    CHECK(strcmp(finish_part(&p[0]), want_a) == 0);
    CHECK(strcmp(finish_part(&p[1]), want_b) == 0);
    CHECK(strcmp(finish_part(&p[2]), "") == 0);
    CHECK(wait_status(s.pid) == 0);
}

/* RELAY between parts: to the part of the site named, with the sender's site; UNREACHED
 * for a site whose part has gone; GONE to the others when a part goes. */
static void scenario_relay(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    part_t p[3] = { start_link_part(s.addr, part_args("alpha", 2), 4),
                    start_link_part(s.addr, part_args("beta", 1), 5),
                    start_link_part(s.addr, part_args("gamma", 3), 2) };
    const char *gone_g = " GONE 2 'the mpirun of site gamma left the rendezvous server (its "
                         "part has ended, or it lost the connection)'";
    char want_a[1024], want_b[1024];
    snprintf(want_a, sizeof want_a, "%s RELAY 1 21 77 kA.s1||a b UNREACHED 2 78 'the mpirun of "
             "site gamma is not connected to the rendezvous server (its part has ended, or it "
             "lost the connection)' GONE 1 'the mpirun of site beta left the rendezvous server "
             "(its part has ended, or it lost the connection)'", gone_g);
    snprintf(want_b, sizeof want_b, "%s RELAY 0 20 77 kA.s1||a b", gone_g);
    const char *out_a = finish_part(&p[0]);
    const char *out_b = finish_part(&p[1]);
    if (strcmp(out_a, want_a) != 0 || strcmp(out_b, want_b) != 0)
        fprintf(stderr, "alpha:%s\nbeta:%s\n", out_a, out_b);
    CHECK(strcmp(out_a, want_a) == 0);
    CHECK(strcmp(out_b, want_b) == 0);
    CHECK(strcmp(finish_part(&p[2]), "") == 0);
    CHECK(wait_status(s.pid) == 0);
}

static void scenario_stopped(void)
{
    server_t s = start_server("job7", SITES3, 3, 20000);
    part_t p[3] = { start_link_part(s.addr, part_args("alpha", 2), 3),
                    start_link_part(s.addr, part_args("beta", 1), 3),
                    start_link_part(s.addr, part_args("gamma", 1), 3) };
    usleep(800000);   /* all have their layout */
    kill(s.pid, SIGTERM);
    for (int i = 0; i < 3; i++) {
        const char *out = finish_part(&p[i]);
        CHECK(strstr(out, " LOST the rendezvous server at ") == out &&
              strstr(out, "closed the connection"));
    }
    CHECK(wait_status(s.pid) == 0);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    static const struct { const char *name; void (*fn)(void); } scenarios[] = {
        { "all", scenario_all }, { "missing", scenario_missing },
        { "refused", scenario_refused }, { "rejoin", scenario_rejoin },
        { "signal", scenario_signal }, { "noserver", scenario_noserver },
        { "flood", scenario_flood }, { "emfile", scenario_emfile },
        { "numbers", scenario_numbers }, { "stopped", scenario_stopped },
        { "relay", scenario_relay },
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (argc < 2 || strcmp(argv[1], scenarios[i].name) == 0) {
            scenarios[i].fn();
            ran++;
        }
    if (!ran) {
        fprintf(stderr, "unknown scenario '%s'\n", argv[1]);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("rendezvous: all checks passed\n");
    return 0;
}
