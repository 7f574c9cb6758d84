#include "runtime/pmi_client.h"

#include "runtime/pmi2_client.h"
#include "runtime/pmix_client.h"
#include "runtime/tunables.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(char *err, int errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads one line into msg. Bytes after the newline stay in c->rbuf for the next call. */
static int read_line(pmi_client_t *c, pmi_msg_t *msg, char *err, int errlen)
{
    for (;;) {
        char *nl = memchr(c->rbuf, '\n', (size_t)c->rlen);
        if (nl) {
            size_t len = (size_t)(nl - c->rbuf) + 1;
            int rc = pmi_wire_parse(c->rbuf, len, msg);
            memmove(c->rbuf, c->rbuf + len, (size_t)c->rlen - len);
            c->rlen -= (int)len;
            if (rc != 0)
                return fail(err, errlen, "malformed reply from the process manager");
            return 0;
        }
        if (c->rlen == (int)sizeof c->rbuf)
            return fail(err, errlen, "over-long reply from the process manager");
        ssize_t n = read(c->fd, c->rbuf + c->rlen, sizeof c->rbuf - (size_t)c->rlen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(err, errlen, "lost the connection to the process manager (%s)",
                        n == 0 ? "closed" : strerror(errno));
        c->rlen += (int)n;
    }
}

/* Sends a request line and reads the reply, which must be cmd=<expect>. */
static int exchange(pmi_client_t *c, const char *request, const char *expect, pmi_msg_t *reply,
                    char *err, int errlen)
{
    if (write_all(c->fd, request, strlen(request)) != 0)
        return fail(err, errlen, "cannot write to the process manager: %s", strerror(errno));
    if (read_line(c, reply, err, errlen) != 0)
        return -1;
    if (strcmp(pmi_msg_cmd(reply), expect) != 0)
        return fail(err, errlen, "process manager answered cmd=%s, expected cmd=%s",
                    pmi_msg_cmd(reply), expect);
    return 0;
}

static int reply_ok(const pmi_msg_t *reply)
{
    const char *rc = pmi_msg_get(reply, "rc");
    return rc == NULL || strcmp(rc, "0") == 0;
}

static int int_field(const pmi_msg_t *reply, const char *key, int *out)
{
    const char *v = pmi_msg_get(reply, key);
    if (!v)
        return -1;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || end == v)
        return -1;
    *out = (int)x;
    return 0;
}

static int env_int(const char *name, int *out)
{
    const char *v = getenv(name);
    if (!v)
        return -1;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || end == v || x < 0)
        return -1;
    *out = (int)x;
    return 0;
}

/* METAMPI_PMI's choices, in the order of tunables.def */
enum { CHOOSE_AUTO, CHOOSE_PMI1, CHOOSE_PMI2, CHOOSE_PMIX };

static int pmi1_init(pmi_client_t *c, char *err, int errlen);

int pmi_client_init(pmi_client_t *c, char *err, int errlen)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->size = 1;
    c->universe_size = 1;
    c->appnum = 0;

    int choice = tun_enum(TUN_PMI);
    /* under our own mpirun it is PMI-1, whatever an enclosing Slurm step left behind */
    const char *ours = tun_string(TUN_MPIRUN);
    int under_mpirun = ours && strcmp(ours, "1") == 0;
    if (choice == CHOOSE_PMIX || (choice == CHOOSE_AUTO && !under_mpirun && pmix_client_env())) {
        if (!pmix_client_env())
            return fail(err, errlen, "METAMPI_PMI=pmix, but no PMIx server in the environment "
                        "(PMIX_NAMESPACE, PMIX_RANK unset)");
        c->proto = PMI_PROTO_X;
        return pmix_client_init(c, err, errlen);
    }
    if (!getenv("PMI_FD")) {
        if (choice != CHOOSE_AUTO)
            return fail(err, errlen, "METAMPI_PMI=%s, but PMI_FD is not set (no launcher)",
                        tun_string(TUN_PMI));
        c->proto = PMI_PROTO_NONE;
        snprintf(c->kvsname, sizeof c->kvsname, "singleton_%ld", (long)getpid());
        return 0;
    }
    if (env_int("PMI_FD", &c->fd) != 0)
        return fail(err, errlen, "PMI_FD='%s' is not a file descriptor", getenv("PMI_FD"));
    if (env_int("PMI_RANK", &c->rank) != 0 || env_int("PMI_SIZE", &c->size) != 0 ||
        c->size < 1 || c->rank >= c->size)
        return fail(err, errlen, "PMI_RANK/PMI_SIZE missing or invalid in the environment");
    if (choice == CHOOSE_PMI2 ||
        (choice == CHOOSE_AUTO && !under_mpirun && pmi2_env_is_slurm())) {
        c->proto = PMI_PROTO_2;
        return pmi2_client_init(c, err, errlen);
    }
    c->proto = PMI_PROTO_1;
    return pmi1_init(c, err, errlen);
}

static int pmi1_init(pmi_client_t *c, char *err, int errlen)
{
    pmi_msg_t r;
    if (exchange(c, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", &r, err,
                 errlen) != 0)
        return -1;
    if (!reply_ok(&r))
        return fail(err, errlen, "process manager refused PMI version 1.1");
    if (exchange(c, "cmd=get_maxes\n", "maxes", &r, err, errlen) != 0)
        return -1;
    if (exchange(c, "cmd=get_appnum\n", "appnum", &r, err, errlen) != 0)
        return -1;
    int_field(&r, "appnum", &c->appnum);
    if (exchange(c, "cmd=get_universe_size\n", "universe_size", &r, err, errlen) != 0)
        return -1;
    if (int_field(&r, "size", &c->universe_size) != 0)
        c->universe_size = -1; /* unknown, as hydra says with size=-1 */
    if (exchange(c, "cmd=get_my_kvsname\n", "my_kvsname", &r, err, errlen) != 0)
        return -1;
    const char *kvs = pmi_msg_get(&r, "kvsname");
    if (!kvs || !reply_ok(&r) || strlen(kvs) >= sizeof c->kvsname)
        return fail(err, errlen, "process manager gave no usable kvsname");
    strcpy(c->kvsname, kvs);
    return 0;
}

int pmi_client_put(pmi_client_t *c, const char *key, const char *value, char *err, int errlen)
{
    if (c->proto == PMI_PROTO_2)
        return pmi2_client_put(c, key, value, err, errlen);
    if (c->proto == PMI_PROTO_X)
        return pmix_client_put(c, key, value, err, errlen);
    if (c->fd < 0)
        return 0; /* singleton: nobody to read it */
    if (!pmi_wire_valid_key(key) || !pmi_wire_valid_value(value))
        return fail(err, errlen, "invalid PMI key or value for key '%s'", key);
    char line[PMI_WIRE_MAXLINE];
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=%s\n", c->kvsname, key, value);
    pmi_msg_t r;
    if (exchange(c, line, "put_result", &r, err, errlen) != 0)
        return -1;
    if (!reply_ok(&r))
        return fail(err, errlen, "process manager refused to store key '%s'", key);
    return 0;
}

int pmi_client_get(pmi_client_t *c, const char *key, char *value, int vallen, char *err, int errlen)
{
    if (c->proto == PMI_PROTO_2)
        return pmi2_client_get(c, key, value, vallen, err, errlen);
    if (c->proto == PMI_PROTO_X)
        return pmix_client_get(c, key, value, vallen, err, errlen);
    if (c->fd < 0)
        return 1;
    return pmi_client_get_in(c, c->kvsname, key, value, vallen, err, errlen);
}

int pmi_client_get_in(pmi_client_t *c, const char *kvsname, const char *key, char *value,
                      int vallen, char *err, int errlen)
{
    if (c->proto != PMI_PROTO_1 || c->fd < 0)
        return fail(err, errlen, "the process manager has no other key-value space");
    char line[PMI_WIRE_MAXLINE];
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=%s\n", kvsname, key);
    pmi_msg_t r;
    if (exchange(c, line, "get_result", &r, err, errlen) != 0)
        return -1;
    const char *v = pmi_msg_get(&r, "value");
    if (!reply_ok(&r) || !v)
        return 1;
    if ((int)strlen(v) >= vallen)
        return fail(err, errlen, "value of key '%s' is too long", key);
    strcpy(value, v);
    return 0;
}

int pmi_client_command(pmi_client_t *c, const char *request, const char *expect,
                       pmi_msg_t *reply, char *err, int errlen)
{
    if (c->proto != PMI_PROTO_1 || c->fd < 0)
        return fail(err, errlen, "the process manager does not speak PMI-1");
    return exchange(c, request, expect, reply, err, errlen);
}

int pmi_client_barrier(pmi_client_t *c, char *err, int errlen)
{
    if (c->proto == PMI_PROTO_2)
        return pmi2_client_barrier(c, err, errlen);
    if (c->proto == PMI_PROTO_X)
        return pmix_client_barrier(c, err, errlen);
    if (c->fd < 0)
        return 0;
    pmi_msg_t r;
    return exchange(c, "cmd=barrier_in\n", "barrier_out", &r, err, errlen);
}

int pmi_client_finalize(pmi_client_t *c)
{
    pmi_proto_t proto = c->proto;
    c->proto = PMI_PROTO_NONE;  /* once */
    if (proto == PMI_PROTO_2)
        return pmi2_client_finalize(c);
    if (proto == PMI_PROTO_X)
        return pmix_client_finalize(c);
    if (c->fd < 0)
        return 0;
    char err[128];
    pmi_msg_t r;
    int rc = exchange(c, "cmd=finalize\n", "finalize_ack", &r, err, sizeof err);
    close(c->fd);
    c->fd = -1;
    return rc;
}

void pmi_client_abort(pmi_client_t *c, int exitcode, const char *msg)
{
    if (c->proto == PMI_PROTO_2) {
        pmi2_client_abort(c, exitcode, msg);
        return;
    }
    if (c->proto == PMI_PROTO_X) {
        pmix_client_abort(c, exitcode, msg);
        return;
    }
    if (c->fd < 0)
        return;
    /* error_msg is free text to the end of the line: keep it on one line */
    char line[PMI_WIRE_MAXLINE];
    int n = snprintf(line, sizeof line - 1, "cmd=abort exitcode=%d error_msg=", exitcode);
    for (const char *p = msg; *p && n < (int)sizeof line - 2; p++)
        line[n++] = (*p == '\n' || *p == '\r') ? ' ' : *p;
    line[n++] = '\n';
    (void)write_all(c->fd, line, (size_t)n);
    /* The launcher now kills us: give it a moment rather than racing it with our own exit,
     * which it would otherwise report as a second failure. */
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
    (void)poll(&pfd, 1, 3000);
}
