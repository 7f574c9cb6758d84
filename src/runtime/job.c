#include "runtime/job.h"

#include "runtime/rank_key.h"
#include "runtime/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Until job_init() runs there is no launcher connection (fd -1). */
job_t job = { .pmi = { .fd = -1 } };

/* The host's name as the launcher knows it (METAMPI_HOSTNAME, set by a multi-host launch:
 * the name from the host list, which is what reports and MPI_Get_processor_name show), else
 * the system's host name. */
static void set_hostname(void)
{
    const char *named = tun_string(TUN_HOSTNAME);
    if (named && *named) {
        snprintf(job.hostname, sizeof job.hostname, "%s", named);
        return;
    }
    if (gethostname(job.hostname, sizeof job.hostname - 1) != 0)
        strcpy(job.hostname, "localhost");
}

void job_identify_early(void)
{
    if (!job.hostname[0])
        set_hostname();
    const char *r = getenv("PMI_RANK");
    if (r)
        job.rank = atoi(r);
}

int job_init(char *err, int errlen)
{
    memset(&job, 0, sizeof job);
    job.pmi.fd = -1;
    set_hostname();
    /* first, so that no child of this process inherits the key, whatever happens next */
    if (rank_key_take(err, errlen) != 0)
        return -1;
    const char *reports = tun_string(TUN_MPIRUN);
    job.launcher_reports_abort = reports && strcmp(reports, "1") == 0;
    if (pmi_client_init(&job.pmi, err, errlen) != 0)
        return -1;
    job.rank = job.pmi.rank;
    job.size = job.pmi.size;
    job.universe_size = job.pmi.universe_size;
    job.appnum = job.pmi.appnum;
    job.id = job.pmi.kvsname;
    return 0;
}

int job_put(const char *key, const char *value, char *err, int errlen)
{
    return pmi_client_put(&job.pmi, key, value, err, errlen);
}

int job_get(const char *key, char *value, int vallen, char *err, int errlen)
{
    return pmi_client_get(&job.pmi, key, value, vallen, err, errlen);
}

int job_barrier(char *err, int errlen)
{
    return pmi_client_barrier(&job.pmi, err, errlen);
}

int job_finalize(void)
{
    rank_key_forget();
    return pmi_client_finalize(&job.pmi);
}

void job_abort(int exitcode, const char *msg)
{
    fflush(stdout);
    int has_launcher = job.pmi.proto != PMI_PROTO_NONE;  /* PMIx has no fd */
    if (!(job.launcher_reports_abort && has_launcher)) {
        fprintf(stderr, "metampi: rank %d on host %s: %s\n", job.rank, job.hostname, msg);
        /* A foreign launcher (e.g. hydra) may act on the abort before it forwards what we just
         * wrote to stderr, and the report would be lost: give it a moment to read it. */
        if (has_launcher)
            usleep(200 * 1000);
    }
    pmi_client_abort(&job.pmi, exitcode, msg);
    _exit(exitcode);
}

int job_launcher_fd(void)
{
    return job.pmi.fd;
}
