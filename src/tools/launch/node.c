#include "node.h"

#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void pmi_abort(void *ctx, int rank, int exitcode, const char *msg)
{
    node_t *n = ctx;
    n->ev.aborted(n->ev.ctx, rank, n->rank[rank].pid, exitcode, msg);
}

static void pmi_fail(void *ctx, int rank, enum pmi_fail_kind kind, const char *detail)
{
    node_t *n = ctx;
    n->ev.pmi_failed(n->ev.ctx, rank, n->rank[rank].pid, kind, detail);
}

static void pmi_barrier(void *ctx, const char *const *kv, size_t nkv)
{
    node_t *n = ctx;
    n->ev.barrier(n->ev.ctx, kv, nkv);
}

static void pmi_spawn(void *ctx, int rank, pmi_spawn_req_t *req)
{
    node_t *n = ctx;
    n->ev.spawn(n->ev.ctx, rank, req);
}

static const char *pmi_lookup(void *ctx, const char *kvsname, const char *key)
{
    node_t *n = ctx;
    return n->ev.lookup(n->ev.ctx, kvsname, key);
}

static int pmi_shared(void *ctx, const pmi_msg_t *m, char *reply, size_t cap)
{
    node_t *n = ctx;
    return n->ev.shared(n->ev.ctx, m, reply, cap);
}

static void pmi_ask(void *ctx, int rank, const char *line)
{
    node_t *n = ctx;
    n->ev.ask(n->ev.ctx, rank, line);
}

static void pmi_put(void *ctx, const char *key, const char *value)
{
    node_t *n = ctx;
    n->ev.put(n->ev.ctx, key, value);
}

int node_global(const node_t *n, int i)
{
    return n->spec.global ? n->spec.global[i] : i;
}

void node_init(node_t *n, ev_loop_t *loop, const node_spec_t *spec, const node_events_t *ev)
{
    memset(n, 0, sizeof *n);
    n->loop = loop;
    n->spec = *spec;
    n->ev = *ev;
    n->rank = util_xmalloc((size_t)spec->nranks * sizeof *n->rank);
    memset(n->rank, 0, (size_t)spec->nranks * sizeof *n->rank);
    for (int r = 0; r < spec->nranks; r++)
        n->rank[r].out.fd = n->rank[r].err.fd = -1;
    if (!n->spec.size)
        n->spec.size = spec->nranks;
    n->in_local = -1;
    for (int r = 0; spec->stdin_fd != NODE_STDIN_NONE && r < spec->nranks; r++)
        if (node_global(n, r) == 0)
            n->in_local = r;
    n->out_sink = (iofwd_sink_t){ .fd = spec->stdout_fd, .tag_output = spec->tag_output,
                                  .name = "stdout", .emit = spec->emit,
                                  .emit_ctx = spec->emit_ctx };
    n->err_sink = (iofwd_sink_t){ .fd = spec->stderr_fd, .tag_output = spec->tag_output,
                                  .name = "stderr", .emit = spec->emit,
                                  .emit_ctx = spec->emit_ctx };
    pmi_server_ops_t ops = { .abort = pmi_abort, .fail = pmi_fail,
                             .barrier = ev->barrier ? pmi_barrier : NULL,
                             .spawn = ev->spawn ? pmi_spawn : NULL,
                             .lookup = ev->lookup ? pmi_lookup : NULL,
                             .shared = ev->shared ? pmi_shared : NULL,
                             .ask = ev->ask ? pmi_ask : NULL,
                             .put = ev->put ? pmi_put : NULL };
    pmi_server_init(&n->pmi, loop, spec->kvsname, spec->nranks, n->spec.size, spec->mapping,
                    &ops, n);
    for (int r = 0; spec->prog && r < spec->nranks; r++)
        pmi_server_set_appnum(&n->pmi, r, spec->prog[r].appnum);
}

static void close_fds(int *fds, int count)
{
    for (int i = 0; i < count; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

static int spawn_one(node_t *n, int r, spawn_err_t *why)
{
    /* fds: [0,1] stdin pipe, [2,3] stdout pipe, [4,5] stderr pipe, [6,7] PMI socketpair */
    int fd[8];
    for (int i = 0; i < 8; i++)
        fd[i] = -1;
    int ok = (r == n->in_local ? pipe2(&fd[0], O_CLOEXEC)
                               : (fd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC))) >= 0 &&
             pipe2(&fd[2], O_CLOEXEC) == 0 && pipe2(&fd[4], O_CLOEXEC) == 0 &&
             socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, &fd[6]) == 0;
    if (!ok) {
        *why = (spawn_err_t){ SPAWN_STAGE_SETUP, errno };
        close_fds(fd, 8);
        return -1;
    }

    const node_binding_t *b = n->spec.binding;
    const cpu_set_t *mask = b ? b->mask[r] : NULL;
    char rankv[32], sizev[32], fdv[32], bindv[64];
    snprintf(fdv, sizeof fdv, "PMI_FD=%d", SPAWN_PMI_FD);
    snprintf(rankv, sizeof rankv, "PMI_RANK=%d", node_global(n, r));
    snprintf(sizev, sizeof sizev, "PMI_SIZE=%d", n->spec.size);
    snprintf(bindv, sizeof bindv, "METAMPI_BIND=%s", mask ? b->policy : "none");
    enum { NPER = 5 };
    const char **extra = util_xmalloc((size_t)(n->spec.nenv_extra + NPER) * sizeof *extra);
    for (int i = 0; i < n->spec.nenv_extra; i++)
        extra[i] = n->spec.env_extra[i];
    const char *per_rank[NPER] = { fdv, rankv, sizev, "METAMPI_MPIRUN=1", bindv };
    memcpy(extra + n->spec.nenv_extra, per_rank, sizeof per_rank);
    char **envp = jobenv_build(n->spec.env, extra, n->spec.nenv_extra + NPER);
    free(extra);

    const node_prog_t *prog = n->spec.prog ? &n->spec.prog[r] : NULL;
    spawn_req_t req = { .path = prog ? prog->path : n->spec.path,
                        .argv = prog ? prog->argv : n->spec.argv, .envp = envp,
                        .wdir = prog ? prog->wdir : NULL,
                        .stdin_fd = fd[0], .stdout_fd = fd[3], .stderr_fd = fd[5],
                        .pmi_fd = fd[7], .cpus = mask, .cpus_size = b ? b->mask_size : 0,
                        .bind_required = b ? b->required : 0,
                        .unbound_env = "METAMPI_BIND=none" };
    int bind_refused;
    pid_t pid = spawn_rank(&req, why, &bind_refused);
    jobenv_free_envp(envp);
    /* The child's ends are the child's business now. */
    close(fd[0]);
    close(fd[3]);
    close(fd[5]);
    close(fd[7]);
    if (pid < 0) {
        close_fds((int[]){ fd[1], fd[2], fd[4], fd[6] }, 4);
        return -1;
    }
    node_rank_t *rk = &n->rank[r];
    rk->pid = pid;
    n->nlive++;
    ostream_open(&rk->out, n->loop, &n->out_sink, n->spec.tag_base + node_global(n, r), fd[2]);
    ostream_open(&rk->err, n->loop, &n->err_sink, n->spec.tag_base + node_global(n, r), fd[4]);
    pmi_server_attach(&n->pmi, r, fd[6]);
    if (r == n->in_local) {
        int pushed = n->spec.stdin_fd == NODE_STDIN_PUSHED;
        n->in.consumed = pushed ? n->ev.stdin_consumed : NULL;
        n->in.closed = pushed ? n->ev.stdin_closed : NULL;
        n->in.ctx = n->ev.ctx;
        istream_open(&n->in, n->loop, pushed ? -1 : n->spec.stdin_fd, fd[1]);
        n->in_open = 1;
    }
    if (bind_refused)
        n->ev.bind_refused(n->ev.ctx, r, pid, bind_refused);
    return 0;
}

int node_spawn(node_t *n, int *failed_rank, spawn_err_t *why)
{
    for (int r = 0; r < n->spec.nranks; r++) {
        if (spawn_one(n, r, why) != 0) {
            *failed_rank = r;
            return -1;
        }
    }
    return 0;
}

void node_drop_binding(node_t *n)
{
    n->spec.binding = NULL;
}

static int find_rank(const node_t *n, pid_t pid)
{
    for (int r = 0; r < n->spec.nranks; r++)
        if (n->rank[r].pid == pid && !n->rank[r].reaped)
            return r;
    return -1;
}

void node_reap(node_t *n)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        /* not a rank: the helper's gateway, an orphan it inherited, another node's rank */
        if (!node_take_exit(n, pid, status) && n->ev.other_exited)
            n->ev.other_exited(n->ev.ctx, pid, status);
    }
}

int node_take_exit(node_t *n, pid_t pid, int status)
{
    int r = find_rank(n, pid);
    if (r < 0)
        return 0;
    node_rank_t *rk = &n->rank[r];
    rk->reaped = 1;
    n->nlive--;
    kill(-pid, SIGKILL);  /* the rank's own children die with it */
    if (r == n->in_local)
        node_close_stdin(n);  /* nobody left to read it */
    pmi_server_drain(&n->pmi, r);
    ostream_drain(&rk->out);
    ostream_drain(&rk->err);
    n->ev.exited(n->ev.ctx, r, pid, status, pmi_server_inited(&n->pmi, r),
                 pmi_server_finalized(&n->pmi, r));
    pmi_server_departed(&n->pmi, r);
    return 1;
}

void node_signal(node_t *n, int sig)
{
    for (int r = 0; r < n->spec.nranks; r++)
        if (n->rank[r].pid > 0 && !n->rank[r].reaped)
            kill(-n->rank[r].pid, sig);
}

int node_live(const node_t *n)
{
    return n->nlive;
}

int node_io_open(const node_t *n)
{
    int k = 0;
    for (int r = 0; r < n->spec.nranks; r++)
        k += ostream_is_open(&n->rank[r].out) + ostream_is_open(&n->rank[r].err);
    return k;
}

void node_close_stdin(node_t *n)
{
    if (n->in_open) {
        istream_close(&n->in);
        n->in_open = 0;
    }
}

int node_stdin_push(node_t *n, const void *data, size_t len)
{
    return n->in_open ? istream_push(&n->in, data, len) : -1;
}

void node_stdin_eof(node_t *n)
{
    if (n->in_open)
        istream_push_eof(&n->in);
}

int node_kvs_put(node_t *n, const char *key, const char *value)
{
    return pmi_server_put(&n->pmi, key, value);
}

void node_barrier_release(node_t *n)
{
    pmi_server_release(&n->pmi);
}

void node_free(node_t *n)
{
    node_close_stdin(n);
    for (int r = 0; r < n->spec.nranks; r++) {
        if (n->rank[r].pid > 0) {
            ostream_close(&n->rank[r].out);
            ostream_close(&n->rank[r].err);
        }
    }
    pmi_server_free(&n->pmi);
    free(n->rank);
    n->rank = NULL;
}
