#include "runtime/pmix_client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pmix_client_env(void)
{
    return getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
}

#ifndef METAMPI_HAVE_PMIX

int pmix_client_available(void)
{
    return 0;
}

int pmix_client_init(pmi_client_t *c, char *err, int errlen)
{
    (void)c;
    snprintf(err, (size_t)errlen, "started by a PMIx launcher (PMIX_NAMESPACE=%s), but this "
             "metampi was built without PMIx (install libpmix-dev and rebuild, or launch "
             "with PMI-2: srun --mpi=pmi2)", getenv("PMIX_NAMESPACE") ? getenv("PMIX_NAMESPACE")
             : "?");
    return -1;
}

int pmix_client_put(pmi_client_t *c, const char *key, const char *value, char *err, int errlen)
{
    (void)c, (void)key, (void)value, (void)err, (void)errlen;
    return -1;
}

int pmix_client_get(pmi_client_t *c, const char *key, char *value, int vallen, char *err,
                    int errlen)
{
    (void)c, (void)key, (void)value, (void)vallen, (void)err, (void)errlen;
    return -1;
}

int pmix_client_barrier(pmi_client_t *c, char *err, int errlen)
{
    (void)c, (void)err, (void)errlen;
    return -1;
}

int pmix_client_finalize(pmi_client_t *c)
{
    (void)c;
    return 0;
}

void pmix_client_abort(pmi_client_t *c, int exitcode, const char *msg)
{
    (void)c, (void)exitcode, (void)msg;
}

#else

#include <pmix.h>

static pmix_proc_t self;

static int fail(char *err, int errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int pmix_client_available(void)
{
    return 1;
}

/* An integer job attribute of the namespace (any integer type), or -1 when absent. */
static long job_attr(const char *key)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, self.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&job, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    long x = -1;
    switch (v->type) {
    case PMIX_UINT32: x = (long)v->data.uint32; break;
    case PMIX_INT32: x = v->data.int32; break;
    case PMIX_INT: x = v->data.integer; break;
    case PMIX_UINT: x = (long)v->data.uint; break;
    case PMIX_UINT64: x = (long)v->data.uint64; break;
    case PMIX_SIZE: x = (long)v->data.size; break;
    case PMIX_UINT16: x = v->data.uint16; break;
    default: break;
    }
    PMIX_VALUE_RELEASE(v);
    return x;
}

int pmix_client_init(pmi_client_t *c, char *err, int errlen)
{
    pmix_status_t rc = PMIx_Init(&self, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return fail(err, errlen, "cannot reach the PMIx server of the launcher "
                    "(PMIX_NAMESPACE=%s): %s", getenv("PMIX_NAMESPACE"), PMIx_Error_string(rc));
    long size = job_attr(PMIX_JOB_SIZE);
    if (size < 1 || self.rank >= (pmix_rank_t)size)
        return fail(err, errlen, "the PMIx server gave no job size (PMIX_JOB_SIZE) for rank %u",
                    (unsigned)self.rank);
    c->rank = (int)self.rank;
    c->size = (int)size;
    long u = job_attr(PMIX_UNIV_SIZE), app = job_attr(PMIX_APPNUM);
    /* the slots the launcher knows of, never fewer than the job runs (Open MPI's mpirun
     * --oversubscribe gives fewer) */
    c->universe_size = u > c->size ? (int)u : c->size;
    c->appnum = app > 0 ? (int)app : 0;
    /* job.id names files and sockets: keep it to safe characters */
    snprintf(c->kvsname, sizeof c->kvsname, "pmix-%.200s", self.nspace);
    for (char *p = c->kvsname; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-'))
            *p = '_';
    return 0;
}

int pmix_client_put(pmi_client_t *c, const char *key, const char *value, char *err, int errlen)
{
    (void)c;
    if (!pmi_wire_valid_key(key) || strlen(key) >= PMIX_MAX_KEYLEN ||
        !pmi_wire_valid_value(value))
        return fail(err, errlen, "invalid PMI key or value for key '%s'", key);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc != PMIX_SUCCESS)
        return fail(err, errlen, "PMIx_Put of key '%s': %s", key, PMIx_Error_string(rc));
    return 0;
}

/* The rank whose data holds key: the number after its last '.', else rank 0 (see the
 * header). */
static pmix_rank_t owner_of(const pmi_client_t *c, const char *key)
{
    const char *dot = strrchr(key, '.');
    if (!dot || !dot[1])
        return 0;
    char *end;
    long r = strtol(dot + 1, &end, 10);
    return *end || r < 0 || r >= c->size ? 0 : (pmix_rank_t)r;
}

/* 0 and the string, 1 when absent, else the PMIx status (negative). */
static int get_string(pmix_rank_t rank, const char *key, char *value, int vallen, int *too_long)
{
    pmix_proc_t from;
    PMIX_LOAD_PROCID(&from, self.nspace, rank);
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&from, key, &opt, 1, &v);
    PMIX_INFO_DESTRUCT(&opt);
    if (rc != PMIX_SUCCESS) {
        if (v)
            PMIX_VALUE_RELEASE(v);
        return rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_PROC_ENTRY_NOT_FOUND ? 1 : (int)rc;
    }
    if (!v || v->type != PMIX_STRING || !v->data.string) {
        if (v)
            PMIX_VALUE_RELEASE(v);
        return 1;
    }
    *too_long = (int)strlen(v->data.string) >= vallen;
    if (!*too_long)
        strcpy(value, v->data.string);
    PMIX_VALUE_RELEASE(v);
    return 0;
}

int pmix_client_get(pmi_client_t *c, const char *key, char *value, int vallen, char *err,
                    int errlen)
{
    int too_long = 0, rc;
    if (strcmp(key, "PMI_process_mapping") == 0)
        rc = get_string(PMIX_RANK_WILDCARD, PMIX_ANL_MAP, value, vallen, &too_long);
    else if (strlen(key) >= PMIX_MAX_KEYLEN)
        rc = 1;
    else
        rc = get_string(owner_of(c, key), key, value, vallen, &too_long);
    if (rc < 0 && rc != PMIX_ERR_NOT_FOUND)
        return fail(err, errlen, "PMIx_Get of key '%s': %s", key,
                    PMIx_Error_string((pmix_status_t)rc));
    if (rc != 0)
        return 1;
    return too_long ? fail(err, errlen, "value of key '%s' is too long", key) : 0;
}

int pmix_client_barrier(pmi_client_t *c, char *err, int errlen)
{
    (void)c;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return fail(err, errlen, "PMIx_Commit: %s", PMIx_Error_string(rc));
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS)
        return fail(err, errlen, "PMIx_Fence: %s", PMIx_Error_string(rc));
    return 0;
}

int pmix_client_finalize(pmi_client_t *c)
{
    (void)c;
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : -1;
}

void pmix_client_abort(pmi_client_t *c, int exitcode, const char *msg)
{
    (void)c;
    /* NULL procs: the whole namespace; returns once the server has taken the request */
    (void)PMIx_Abort(exitcode, msg, NULL, 0);
}

#endif
