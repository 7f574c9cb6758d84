#include "core/dynproc_port.h"

#include "core/ctxid.h"
#include "core/group.h"
#include "core/icoll.h"
#include "core/lock.h"
#include "core/p2p.h"
#include "runtime/job.h"
#include "runtime/job_spawn.h"
#include "runtime/peer_timeout.h"
#include "runtime/procs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

static int ports_opened, connections;

static int no_launcher(char *why, int whylen)
{
    snprintf(why, (size_t)whylen, "ports and names: %s", job_ports_refusal());
    return MPI_ERR_PORT;
}

int dynproc_open_port(char *port, int cap, char *why, int whylen)
{
    if (!job_can_use_ports())
        return no_launcher(why, whylen);
    snprintf(port, (size_t)cap, "metampi-port:%s:%d:%d", job.id, job.rank, ports_opened++);
    pmi_msg_t r;
    if (job_shared("port_open", "port_result", "port", port, 1, NULL, NULL, 0, &r, why,
                   whylen) != 0)
        return MPI_ERR_OTHER;
    if (job_reply_rc(&r) != 0) {
        snprintf(why, (size_t)whylen, "mpirun refused to open port %s", port);
        return MPI_ERR_PORT;
    }
    return MPI_SUCCESS;
}

int dynproc_close_port(const char *port, char *why, int whylen)
{
    if (!job_can_use_ports())
        return no_launcher(why, whylen);
    pmi_msg_t r;
    if (job_shared("port_close", "port_result", "port", port, 1, NULL, NULL, 0, &r, why,
                   whylen) != 0)
        return MPI_ERR_OTHER;
    if (job_reply_rc(&r) != 0) {
        snprintf(why, (size_t)whylen, "port \"%s\" is not open", port);
        return MPI_ERR_PORT;
    }
    return MPI_SUCCESS;
}

/* One side of a connection as the roots tell each other. */
typedef struct side {
    int rc;
    char kvsname[PMI_WIRE_KVSNAME_MAX + 1];
    int rank, seq, size;
    unsigned ctx;
    char why[256];
} side_t;

static int side_format(const side_t *s, char *out, size_t cap)
{
    return snprintf(out, cap, "%s,%d,%d,%d,%u", s->kvsname, s->rank, s->seq, s->size, s->ctx) <
                   (int)cap ? 0 : -1;
}

static int side_parse(const char *v, side_t *s)
{
    const char *comma = strchr(v, ',');
    if (!comma || (size_t)(comma - v) >= sizeof s->kvsname)
        return -1;
    memcpy(s->kvsname, v, (size_t)(comma - v));
    s->kvsname[comma - v] = '\0';
    return sscanf(comma + 1, "%d,%d,%d,%u", &s->rank, &s->seq, &s->size, &s->ctx) == 4 &&
                   s->size > 0 ? 0 : -1;
}

/* The root: our group into our part's space under metampi.xg.<rank>.<seq>.* (other roots
 * of the part use the same space). */
static int put_group(comm_t *comm, int seq, char *why, int whylen)
{
    char key[64], v[PMI_WIRE_KVSNAME_MAX + 32];
    for (int i = 0; i < comm->size; i++) {
        int w = group_world_rank(comm->group, i);
        snprintf(key, sizeof key, "metampi.xg.%d.%d.%d", job.rank, seq, i);
        snprintf(v, sizeof v, "%s,%d", procs_kvsname(w), procs_part_rank(w));
        if (job_put(key, v, why, whylen) != 0)
            return -1;
    }
    return 0;
}

/* A pause between two questions to mpirun, without the core lock: the process's other
 * threads use MPI meanwhile (the connection or the children may wait for one of them). */
static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    int levels = core_lock_release_all();
    nanosleep(&ts, NULL);
    core_lock_reacquire(levels);
}

/* Takes the oldest line of box: 0 and the line, 1 when the wait ran out (limit_ms > 0),
 * -1 (why; *missing when the box does not exist). */
static int take(const char *box, long limit_ms, char *line, size_t cap, int *missing,
                char *why, int whylen)
{
    long waited = 0, step = 1;
    *missing = 0;
    for (;;) {
        pmi_msg_t r;
        if (job_shared("port_take", "port_result", "port", box, 1, NULL, NULL, 0, &r, why,
                       whylen) != 0)
            return -1;
        int rc = job_reply_rc(&r);
        const char *v = pmi_msg_get(&r, "value");
        if (rc == 0 && v) {
            snprintf(line, cap, "%s", v);
            return 0;
        }
        if (rc != 1) {
            *missing = 1;
            snprintf(why, (size_t)whylen, "port \"%s\" is not open", box);
            return -1;
        }
        if (limit_ms > 0 && waited >= limit_ms)
            return 1;
        sleep_ms(step);
        waited += step;
        step = step < 20 ? 2 * step : 20;
    }
}

static int post(const char *box, const side_t *s, char *why, int whylen)
{
    char v[PMI_WIRE_VALLEN_MAX + 1];
    pmi_msg_t r;
    if (side_format(s, v, sizeof v) != 0 ||
        job_shared("port_post", "port_result", "port", box, 1, "value", v, 0, &r, why,
                   whylen) != 0)
        return -1;
    if (job_reply_rc(&r) != 0) {
        snprintf(why, (size_t)whylen, "port \"%s\" is not open", box);
        return 1;
    }
    return 0;
}

/* The roots' conversation; o: the other side on success, o->rc the class. */
static void root_side(const char *port, comm_t *comm, int accepting, uint32_t ctx, side_t *o)
{
    side_t me = { .rank = job.rank, .seq = connections++, .size = comm->size, .ctx = ctx };
    snprintf(me.kvsname, sizeof me.kvsname, "%s", job.id);
    char box[PMI_WIRE_KVSNAME_MAX + 64], line[PMI_WIRE_VALLEN_MAX + 1];
    int missing = 0, rc;
    o->rc = MPI_ERR_PORT;
    if (put_group(comm, me.seq, o->why, sizeof o->why) != 0) {
        o->rc = MPI_ERR_OTHER;
        return;
    }
    if (accepting) {
        if (take(port, 0, line, sizeof line, &missing, o->why, sizeof o->why) != 0)
            return;
        if (side_parse(line, o) != 0) {
            snprintf(o->why, sizeof o->why, "a malformed request on port \"%s\"", port);
            o->rc = MPI_ERR_INTERN;
            return;
        }
        snprintf(box, sizeof box, "reply:%s:%d:%d", o->kvsname, o->rank, o->seq);
        if (post(box, &me, o->why, sizeof o->why) != 0)
            return;
        o->rc = MPI_SUCCESS;
        return;
    }
    if ((rc = post(port, &me, o->why, sizeof o->why)) != 0)
        return;
    snprintf(box, sizeof box, "reply:%s:%d:%d", me.kvsname, me.rank, me.seq);
    int timeout_s = 0;
    char err[128];
    if (peer_timeout_read(&timeout_s, err, sizeof err) != 0 || timeout_s <= 0)
        timeout_s = 60;
    /* the reply box exists only once the acceptor posted: "missing" means "not yet" */
    long waited = 0;
    for (;;) {
        rc = take(box, 1000, line, sizeof line, &missing, o->why, sizeof o->why);
        if (rc == 0)
            break;
        if (rc < 0 && !missing)
            return;
        waited += rc > 0 ? 1000 : 20;
        if (waited >= 1000L * timeout_s) {
            snprintf(o->why, sizeof o->why, "nobody accepted on port \"%s\" within %d s "
                     "(METAMPI_PEER_TIMEOUT)", port, timeout_s);
            return;
        }
        if (rc < 0)
            sleep_ms(20);
    }
    if (side_parse(line, o) != 0) {
        snprintf(o->why, sizeof o->why, "a malformed answer on port \"%s\"", port);
        o->rc = MPI_ERR_INTERN;
        return;
    }
    o->rc = MPI_SUCCESS;
}

/* The other group, read from the other root's space. */
static group_t *other_group(const side_t *o, char *why, int whylen)
{
    int *w = malloc((size_t)o->size * sizeof *w);
    if (!w) {
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    char key[64], v[PMI_WIRE_VALLEN_MAX + 1];
    for (int i = 0; i < o->size; i++) {
        char *comma;
        snprintf(key, sizeof key, "metampi.xg.%d.%d.%d", o->rank, o->seq, i);
        if (job_get_in(o->kvsname, key, v, sizeof v, why, whylen) != 0 ||
            !(comma = strrchr(v, ','))) {
            snprintf(why, (size_t)whylen, "the other side's group lacks member %d", i);
            free(w);
            return NULL;
        }
        *comma = '\0';
        if ((w[i] = procs_add(v, atoi(comma + 1), why, whylen)) < 0) {
            free(w);
            return NULL;
        }
    }
    group_t *g = group_new(o->size, w);
    free(w);
    if (!g)
        snprintf(why, (size_t)whylen, "out of memory");
    return g;
}

static int join(const char *port, comm_t *comm, int root, int accepting, comm_t **out,
                char *why, int whylen)
{
    *out = NULL;
    if (!job_can_use_ports())
        return no_launcher(why, whylen);
    if (p2p_grow(why, whylen) != 0)
        return MPI_ERR_OTHER;
    uint32_t ids[2];
    int rc = ctxid_agree(comm, 2, ids);
    if (rc != MPI_SUCCESS) {
        snprintf(why, (size_t)whylen, "no context id for the inter-communicator");
        return rc;
    }
    side_t *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(why, (size_t)whylen, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    if (comm->rank == root)
        root_side(port, comm, accepting, ids[0], o);
    rc = icoll_bcast(comm, o, sizeof *o, root);
    if (rc == MPI_SUCCESS)
        rc = o->rc;
    group_t *rg = NULL;
    if (rc == MPI_SUCCESS && !(rg = other_group(o, o->why, sizeof o->why)))
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && p2p_grow(o->why, sizeof o->why) != 0)
        rc = MPI_ERR_OTHER;
    uint32_t remote = o->ctx;
    snprintf(why, (size_t)whylen, "%s", o->why);
    free(o);
    if (rc != MPI_SUCCESS) {
        if (rg)
            group_release(rg);
        ctxid_release(ids[0]);
        ctxid_release(ids[1]);
        return rc;
    }
    rc = comm_intercomm_join(comm, rg, ids, remote, out);
    if (rc != MPI_SUCCESS)
        snprintf(why, (size_t)whylen, "cannot make the inter-communicator");
    return rc;
}

int dynproc_accept(const char *port, comm_t *comm, int root, comm_t **out, char *why,
                   int whylen)
{
    return join(port, comm, root, 1, out, why, whylen);
}

int dynproc_connect(const char *port, comm_t *comm, int root, comm_t **out, char *why,
                    int whylen)
{
    return join(port, comm, root, 0, out, why, whylen);
}

int dynproc_publish(const char *service, const char *port, char *why, int whylen)
{
    if (!job_can_use_ports())
        return no_launcher(why, whylen);
    pmi_msg_t r;
    if (job_shared("publish", "publish_result", "service", service, 1, "port", port, 1, &r,
                   why, whylen) != 0)
        return MPI_ERR_OTHER;
    if (job_reply_rc(&r) != 0) {
        snprintf(why, (size_t)whylen, "service \"%s\" is published already", service);
        return MPI_ERR_SERVICE;
    }
    return MPI_SUCCESS;
}

int dynproc_lookup(const char *service, char *port, int cap, char *why, int whylen)
{
    if (!job_can_use_ports())
        return no_launcher(why, whylen);
    pmi_msg_t r;
    if (job_shared("lookup", "lookup_result", "service", service, 1, NULL, NULL, 0, &r, why,
                   whylen) != 0)
        return MPI_ERR_OTHER;
    const char *hex = pmi_msg_get(&r, "port");
    if (job_reply_rc(&r) != 0 || !hex) {
        snprintf(why, (size_t)whylen, "service \"%s\" is not published", service);
        return MPI_ERR_NAME;
    }
    int n = 0;
    for (const char *p = hex; p[0] && p[1] && n < cap - 1; p += 2) {
        unsigned v;
        if (sscanf(p, "%2x", &v) != 1 || v == 0)
            break;
        port[n++] = (char)v;
    }
    port[n] = '\0';
    return MPI_SUCCESS;
}

int dynproc_unpublish(const char *service, char *why, int whylen)
{
    if (!job_can_use_ports())
        return no_launcher(why, whylen);
    pmi_msg_t r;
    if (job_shared("unpublish", "unpublish_result", "service", service, 1, NULL, NULL, 0, &r,
                   why, whylen) != 0)
        return MPI_ERR_OTHER;
    if (job_reply_rc(&r) != 0) {
        snprintf(why, (size_t)whylen, "service \"%s\" is not published", service);
        return MPI_ERR_SERVICE;
    }
    return MPI_SUCCESS;
}

/* Writes all of buf to socket fd (no SIGPIPE when the other end is gone); 0, or -1 (errno). */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads one line (byte by byte: nothing after it is taken from the socket); 0, or -1. */
static int read_line(int fd, char *line, size_t cap)
{
    size_t n = 0;
    for (;;) {
        char ch;
        ssize_t r = read(fd, &ch, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || n + 1 >= cap)
            return -1;
        if (ch == '\n')
            break;
        line[n++] = ch;
    }
    line[n] = '\0';
    return 0;
}

/* Writes our line (in line), reads the other end's (into line) without the core lock: the
 * other end may be a thread of this process that has yet to enter MPI_Comm_join. */
static int exchange_unlocked(int fd, char *line, size_t cap)
{
    int levels = core_lock_release_all();
    errno = 0;
    int rc = write_all(fd, line, strlen(line)) != 0 || read_line(fd, line, cap) != 0 ? -1 : 0;
    int saved = errno;
    core_lock_reacquire(levels);
    errno = saved;
    return rc;
}

int dynproc_join(int fd, comm_t **out, char *why, int whylen)
{
    *out = NULL;
    if (!job_can_use_ports())
        return no_launcher(why, whylen);
    comm_t *self = comm_lookup(MPI_COMM_SELF);
    if (p2p_grow(why, whylen) != 0)
        return MPI_ERR_OTHER;
    uint32_t ids[2];
    int rc = ctxid_agree(self, 2, ids);
    if (rc != MPI_SUCCESS) {
        snprintf(why, (size_t)whylen, "no context id for the inter-communicator");
        return rc;
    }
    side_t me = { .rank = job.rank, .size = 1, .ctx = ids[0] }, o = { 0 };
    snprintf(me.kvsname, sizeof me.kvsname, "%s", job.id);
    char line[PMI_WIRE_VALLEN_MAX + 2];
    group_t *rg = NULL;
    rc = MPI_ERR_OTHER;
    if (side_format(&me, line, sizeof line - 1) != 0) {
        snprintf(why, (size_t)whylen, "this process's name is too long");
    } else if (strcat(line, "\n"), exchange_unlocked(fd, line, sizeof line) != 0) {
        snprintf(why, (size_t)whylen, "the socket failed (%s)",
                 errno ? strerror(errno) : "closed");
    } else if (side_parse(line, &o) != 0 || o.size != 1) {
        snprintf(why, (size_t)whylen, "the other end is not a metampi process of this job");
    } else {
        int w = procs_add(o.kvsname, o.rank, why, whylen);
        if (w >= 0 && !(rg = group_new(1, &w)))
            snprintf(why, (size_t)whylen, "out of memory");
        if (rg && p2p_grow(why, whylen) == 0)
            rc = MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS) {
        if (rg)
            group_release(rg);
        ctxid_release(ids[0]);
        ctxid_release(ids[1]);
        return rc;
    }
    rc = comm_intercomm_join(self, rg, ids, o.ctx, out);
    if (rc != MPI_SUCCESS)
        snprintf(why, (size_t)whylen, "cannot make the inter-communicator");
    return rc;
}
