#include "runtime/pmi2_client.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LEN_DIGITS 6

static int fail(char *err, int errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int pmi2_parse(const char *body, size_t len, pmi2_msg_t *msg)
{
    if (len > PMI2_MSG_MAX || len < 4 || memcmp(body, "cmd=", 4) != 0)
        return -1;
    msg->npairs = 0;
    char *out = msg->buf;
    size_t i = 0;
    while (i < len) {
        if (msg->npairs == PMI_WIRE_MAXPAIRS)
            return -1;
        msg->key[msg->npairs] = out;
        while (i < len && body[i] != '=' && body[i] != ';')
            *out++ = body[i++];
        if (i == len || body[i] != '=' || out == msg->key[msg->npairs])
            return -1;
        *out++ = '\0';
        i++;
        msg->val[msg->npairs] = out;
        for (;;) {
            if (i == len)
                return -1;  /* a value ends with ';' */
            if (body[i] == ';') {
                if (i + 1 < len && body[i + 1] == ';') {  /* escaped ';' */
                    *out++ = ';';
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
            *out++ = body[i++];
        }
        *out++ = '\0';
        msg->npairs++;
    }
    return msg->npairs > 0 && msg->val[0][0] ? 0 : -1;
}

const char *pmi2_get(const pmi2_msg_t *msg, const char *key)
{
    for (int i = 0; i < msg->npairs; i++)
        if (strcmp(msg->key[i], key) == 0)
            return msg->val[i];
    return NULL;
}

int pmi2_env_is_slurm(void)
{
    const char *pmi = getenv("PMI_JOBID"), *job = getenv("SLURM_JOB_ID"),
               *step = getenv("SLURM_STEP_ID");
    char expect[64];
    if (!pmi || !job || !step)
        return 0;
    snprintf(expect, sizeof expect, "%s.%s", job, step);
    return strcmp(pmi, expect) == 0;
}

/* Writes without SIGPIPE where PMI_FD is a socket (Slurm's is): a vanished server is an
 * error message, not a signal. */
static ssize_t write_some(int fd, const char *buf, size_t len)
{
    ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
    return n < 0 && errno == ENOTSOCK ? write(fd, buf, len) : n;
}

static int io_all(int fd, char *buf, size_t len, int writing)
{
    while (len > 0) {
        ssize_t n = writing ? write_some(fd, buf, len) : read(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n == 0 ? -2 : -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int send_msg(pmi_client_t *c, const char *body, char *err, int errlen)
{
    char frame[LEN_DIGITS + PMI2_MSG_MAX + 1];
    size_t len = strlen(body);
    if (len > PMI2_MSG_MAX)
        return fail(err, errlen, "PMI-2 request of %zu bytes is too long", len);
    snprintf(frame, sizeof frame, "%-6zu%s", len, body);
    if (io_all(c->fd, frame, LEN_DIGITS + len, 1) != 0)
        return fail(err, errlen, "cannot write to the process manager (PMI-2): %s",
                    strerror(errno));
    return 0;
}

static int recv_msg(pmi_client_t *c, pmi2_msg_t *m, char *err, int errlen)
{
    char head[LEN_DIGITS + 1], body[PMI2_MSG_MAX];
    int rc = io_all(c->fd, head, LEN_DIGITS, 0);
    if (rc != 0)
        return fail(err, errlen, "lost the connection to the process manager (PMI-2: %s)",
                    rc == -2 ? "closed" : strerror(errno));
    head[LEN_DIGITS] = '\0';
    char *end;
    long len = strtol(head, &end, 10);
    while (*end == ' ')
        end++;
    if (*end || len <= 0 || len > PMI2_MSG_MAX)
        return fail(err, errlen, "malformed PMI-2 length '%.6s' from the process manager", head);
    rc = io_all(c->fd, body, (size_t)len, 0);
    if (rc != 0)
        return fail(err, errlen, "lost the connection to the process manager (PMI-2: %s)",
                    rc == -2 ? "closed" : strerror(errno));
    if (pmi2_parse(body, (size_t)len, m) != 0)
        return fail(err, errlen, "malformed PMI-2 reply from the process manager: '%.*s'",
                    (int)(len > 200 ? 200 : len), body);
    return 0;
}

/* Sends a request and reads its reply, which must be cmd=<request>-response with rc=0. */
static int exchange(pmi_client_t *c, const char *body, pmi2_msg_t *reply, char *err, int errlen)
{
    char expect[64];
    size_t n = strcspn(body + 4, ";");
    snprintf(expect, sizeof expect, "%.*s-response", (int)n, body + 4);
    if (send_msg(c, body, err, errlen) != 0 || recv_msg(c, reply, err, errlen) != 0)
        return -1;
    if (strcmp(reply->val[0], expect) != 0)
        return fail(err, errlen, "process manager answered cmd=%s, expected cmd=%s (PMI-2)",
                    reply->val[0], expect);
    const char *rc = pmi2_get(reply, "rc");
    if (rc && strcmp(rc, "0") != 0) {
        const char *why = pmi2_get(reply, "errmsg");
        return fail(err, errlen, "process manager refused %.*s: rc=%s%s%s (PMI-2)", (int)n,
                    body + 4, rc, why ? " " : "", why ? why : "");
    }
    return 0;
}

static int int_field(const pmi2_msg_t *m, const char *key, int *out)
{
    const char *v = pmi2_get(m, key);
    char *end;
    if (!v)
        return -1;
    long x = strtol(v, &end, 10);
    if (*end || end == v)
        return -1;
    *out = (int)x;
    return 0;
}

/* Values travel between ';': one that holds ';' (or is not a PMI value) cannot be sent. */
static int sendable(const char *s)
{
    return pmi_wire_valid_value(s) && !strchr(s, ';');
}

int pmi2_client_init(pmi_client_t *c, char *err, int errlen)
{
    /* the PMI-1 style handshake that selects version 2 */
    static const char init[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    if (io_all(c->fd, (char *)init, sizeof init - 1, 1) != 0)
        return fail(err, errlen, "cannot write to the process manager: %s", strerror(errno));
    char line[128];
    size_t n = 0;
    while (n < sizeof line - 1) {  /* one line; the server sends nothing after it unasked */
        ssize_t r = read(c->fd, line + n, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return fail(err, errlen, "lost the connection to the process manager at PMI-2 init");
        if (line[n++] == '\n')
            break;
    }
    line[n] = '\0';
    pmi_msg_t r;
    if (pmi_wire_parse(line, n, &r) != 0 || strcmp(pmi_msg_cmd(&r), "response_to_init") != 0)
        return fail(err, errlen, "process manager answered PMI-2 init with '%.*s'",
                    (int)strcspn(line, "\n"), line);
    const char *rc = pmi_msg_get(&r, "rc"), *ver = pmi_msg_get(&r, "pmi_version");
    if ((rc && strcmp(rc, "0") != 0) || !ver || strcmp(ver, "2") != 0)
        return fail(err, errlen, "process manager refused PMI version 2.0 (it answered "
                    "pmi_version=%s rc=%s; METAMPI_PMI=1 selects PMI-1)", ver ? ver : "?",
                    rc ? rc : "?");

    char body[PMI2_MSG_MAX];
    const char *jobid = getenv("PMI_JOBID");
    snprintf(body, sizeof body, "cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;",
             jobid && sendable(jobid) ? jobid : "0", c->rank);
    pmi2_msg_t m;
    if (exchange(c, body, &m, err, errlen) != 0)
        return -1;
    int rank, size;
    if (int_field(&m, "rank", &rank) != 0 || int_field(&m, "size", &size) != 0 ||
        rank != c->rank || size != c->size)
        return fail(err, errlen, "PMI-2 fullinit gave rank/size that contradict PMI_RANK=%d "
                    "PMI_SIZE=%d", c->rank, c->size);
    if (int_field(&m, "appnum", &c->appnum) != 0 || c->appnum < 0)
        c->appnum = 0;  /* Slurm answers -1: one application */
    c->universe_size = c->size;
    if (exchange(c, "cmd=info-getjobattr;key=universeSize;", &m, err, errlen) == 0) {
        const char *found = pmi2_get(&m, "found");
        int u;
        if (found && strcmp(found, "TRUE") == 0 && int_field(&m, "value", &u) == 0 &&
            u > c->size)
            c->universe_size = u;
    } else {
        return -1;
    }
    if (exchange(c, "cmd=job-getid;", &m, err, errlen) != 0)
        return -1;
    const char *id = pmi2_get(&m, "jobid");
    if (!id || !*id || strlen(id) + 5 >= sizeof c->kvsname)
        return fail(err, errlen, "process manager gave no usable job id (PMI-2)");
    snprintf(c->kvsname, sizeof c->kvsname, "pmi2-%s", id);
    return 0;
}

int pmi2_client_put(pmi_client_t *c, const char *key, const char *value, char *err, int errlen)
{
    if (!pmi_wire_valid_key(key) || strchr(key, ';') || !sendable(value))
        return fail(err, errlen, "invalid PMI-2 key or value for key '%s'", key);
    char body[PMI2_MSG_MAX];
    snprintf(body, sizeof body, "cmd=kvs-put;key=%s;value=%s;", key, value);
    pmi2_msg_t m;
    return exchange(c, body, &m, err, errlen);
}

int pmi2_client_get(pmi_client_t *c, const char *key, char *value, int vallen, char *err,
                    int errlen)
{
    if (!pmi_wire_valid_key(key) || strchr(key, ';'))
        return fail(err, errlen, "invalid PMI-2 key '%s'", key);
    /* the job's attributes are not in the key-value space in PMI-2 */
    int attr = strcmp(key, "PMI_process_mapping") == 0;
    char body[PMI2_MSG_MAX];
    if (attr)
        snprintf(body, sizeof body, "cmd=info-getjobattr;key=%s;", key);
    else
        snprintf(body, sizeof body, "cmd=kvs-get;jobid=%s;srcid=-1;key=%s;", c->kvsname + 5,
                 key);
    pmi2_msg_t m;
    if (exchange(c, body, &m, err, errlen) != 0)
        return -1;
    const char *found = pmi2_get(&m, "found"), *v = pmi2_get(&m, "value");
    if (!found || strcmp(found, "TRUE") != 0 || !v)
        return 1;
    if ((int)strlen(v) >= vallen)
        return fail(err, errlen, "value of key '%s' is too long", key);
    strcpy(value, v);
    return 0;
}

int pmi2_client_barrier(pmi_client_t *c, char *err, int errlen)
{
    pmi2_msg_t m;
    return exchange(c, "cmd=kvs-fence;", &m, err, errlen);
}

int pmi2_client_finalize(pmi_client_t *c)
{
    char err[128];
    pmi2_msg_t m;
    int rc = exchange(c, "cmd=finalize;", &m, err, sizeof err);
    close(c->fd);
    c->fd = -1;
    return rc;
}

void pmi2_client_abort(pmi_client_t *c, int exitcode, const char *msg)
{
    /* no reply: the server ends the whole job step (Slurm: SIGKILL to every task) */
    char body[PMI2_MSG_MAX], text[512];
    size_t n = 0;
    for (const char *p = msg; *p && n < sizeof text - 1; p++)
        text[n++] = (*p == ';' || *p == '\n' || *p == '\r') ? ',' : *p;
    text[n] = '\0';
    (void)exitcode;  /* PMI-2's abort carries no exit code */
    snprintf(body, sizeof body, "cmd=abort;isworld=TRUE;msg=%s;", text);
    char err[64];
    (void)send_msg(c, body, err, sizeof err);
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
    (void)poll(&pfd, 1, 3000);
}
