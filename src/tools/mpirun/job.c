#include "job.h"

#include "report.h"

#include "util.h"
#include "net/clock.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

void job_init(job_t *j, void (*terminate)(void *ctx, int sig), void *ctx)
{
    memset(j, 0, sizeof *j);
    j->terminate = terminate;
    j->ctx = ctx;
}

/* Records the first cause and starts the teardown by sending sig to every rank. */
static void condemn(job_t *j, int sig, int status)
{
    if (j->condemned)
        return;
    j->condemned = 1;
    j->status = status;
    j->t_condemned = net_now_ms();
    if (sig == SIGKILL)
        j->kill_sent = 1;
    j->terminate(j->ctx, sig);
}

void job_rank_exited(job_t *j, int rank, const char *host, pid_t pid, int status, int inited,
                     int finalized)
{
    if (j->condemned)
        return;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        util_msg("rank %d (pid %d) on host %s was killed by signal %d (%s)", rank, (int)pid,
                 host, sig, strsignal(sig));
        condemn(j, SIGTERM, 128 + sig);
        return;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (inited && !finalized) {
        util_msg("rank %d (pid %d) on host %s exited with code %d without calling MPI_Finalize",
                 rank, (int)pid, host, code);
        condemn(j, SIGTERM, code ? code : 1);
    } else if (code != 0) {
        util_msg("rank %d (pid %d) on host %s exited with code %d", rank, (int)pid, host, code);
        condemn(j, SIGTERM, code);
    }
}

void job_rank_aborted(job_t *j, int rank, const char *host, pid_t pid, int exitcode,
                      const char *msg)
{
    if (j->condemned)
        return;
    util_msg("rank %d (pid %d) on host %s aborted the job with exit code %d%s%s", rank, (int)pid,
             host, exitcode, msg ? ": " : "", msg ? msg : "");
    condemn(j, SIGTERM, exitcode & 0xff);
}

void job_pmi_failed(job_t *j, int rank, const char *host, pid_t pid, enum pmi_fail_kind kind,
                    const char *detail)
{
    if (j->condemned)
        return;
    if (kind == PMI_FAIL_ABSENT)
        util_msg("rank %d (pid %d) on host %s exited without calling MPI_Init or MPI_Finalize "
                 "while the other ranks wait for it", rank, (int)pid, host);
    else if (kind == PMI_FAIL_VERSION)
        util_msg("rank %d (pid %d) on host %s requested unsupported PMI version %s "
                 "(only PMI-1 is supported)", rank, (int)pid, host, detail);
    else
        util_msg("rank %d on host %s sent an invalid PMI command: %s", rank, host, detail);
    condemn(j, SIGTERM, 1);
}

void job_signal(job_t *j, int sig)
{
    if (!j->condemned) {
        util_msg("received signal %d (%s); terminating the job", sig, strsignal(sig));
        condemn(j, sig, 128 + sig);
    } else if (!j->kill_sent) {
        /* impatient user: a second signal skips the grace period */
        j->kill_sent = 1;
        j->terminate(j->ctx, SIGKILL);
    }
}

void job_fail(job_t *j, int status, int kill_at_once, const char *fmt, ...)
{
    if (j->condemned)
        return;
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    util_msg("%s", text);
    condemn(j, kill_at_once ? SIGKILL : SIGTERM, status);
}

int job_setup_signals(void)
{
    signal(SIGTTIN, SIG_IGN); /* reading a terminal in the background fails with EIO */
    signal(SIGTTOU, SIG_IGN);
    return util_signalfd();
}

void job_make_kvsname(char *buf, size_t cap)
{
    unsigned int rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        rnd = (unsigned int)(net_now_ms() * 2654435761u) ^ (unsigned int)getpid();
    snprintf(buf, cap, "kvs_%d_%08x", (int)getpid(), rnd);
}

void job_fold_deadline(int *t, long long deadline, long long now)
{
    long long d = deadline - now;
    if (d < 0)
        d = 0;
    if (*t < 0 || d < *t)
        *t = (int)d;
}

int job_run(const mpirun_opts_t *opts)
{
    if (report_open(opts) != 0) /* a bad --report-file fails before anything starts */
        return 1;
    int status = opts->rendezvous ? part_run(opts)
                 : opts->nhosts   ? multihost_run(opts)
                                  : local_run(opts);
    report_finish(status);
    return status;
}
