/* Performance variables (MPI-3.1 §14.3.7): what this rank sent per level of the machine
 * (core/traffic.h) and the lengths of the matching queues (core/match.h).
 *
 * A handle of a counter keeps its own count: acc (what it counted while started, or was
 * written) and base (the counter's value when it was last started, written or reset), so
 * sessions and handles never disturb each other and the core's counters only grow. The
 * queue lengths are continuous and read-only: a read returns the value now. */
#include "api/api.h"
#include "api/mpit.h"
#include "core/match.h"
#include "core/traffic.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct pvar {
    const char *name, *desc;
    int var_class;
    int level;    /* counters: traffic level; -1 for the queue lengths */
    int bytes;    /* counters: bytes (else messages) */
    int category;
} pvar_t;

static const pvar_t pvars[] = {
    { "sent_messages_self", "messages this rank sent to itself", MPI_T_PVAR_CLASS_COUNTER,
      TRAFFIC_SELF, 0, MPIT_CAT_TRAFFIC },
    { "sent_messages_shm", "messages this rank sent to other ranks of its host (shared memory)",
      MPI_T_PVAR_CLASS_COUNTER, TRAFFIC_SHM, 0, MPIT_CAT_TRAFFIC },
    { "sent_messages_tcp", "messages this rank sent to ranks of other hosts of its site (TCP)",
      MPI_T_PVAR_CLASS_COUNTER, TRAFFIC_TCP, 0, MPIT_CAT_TRAFFIC },
    { "sent_messages_wan", "messages this rank sent to ranks at other sites (the WAN)",
      MPI_T_PVAR_CLASS_COUNTER, TRAFFIC_WAN, 0, MPIT_CAT_TRAFFIC },
    { "sent_bytes_self", "payload bytes this rank sent to itself", MPI_T_PVAR_CLASS_COUNTER,
      TRAFFIC_SELF, 1, MPIT_CAT_TRAFFIC },
    { "sent_bytes_shm", "payload bytes this rank sent to other ranks of its host (shared memory)",
      MPI_T_PVAR_CLASS_COUNTER, TRAFFIC_SHM, 1, MPIT_CAT_TRAFFIC },
    { "sent_bytes_tcp", "payload bytes this rank sent to ranks of other hosts of its site (TCP)",
      MPI_T_PVAR_CLASS_COUNTER, TRAFFIC_TCP, 1, MPIT_CAT_TRAFFIC },
    { "sent_bytes_wan", "payload bytes this rank sent to ranks at other sites (the WAN)",
      MPI_T_PVAR_CLASS_COUNTER, TRAFFIC_WAN, 1, MPIT_CAT_TRAFFIC },
    { "posted_queue_length", "receives posted and not yet matched", MPI_T_PVAR_CLASS_LEVEL, -1,
      0, MPIT_CAT_MATCHING },
    { "unexpected_queue_length", "messages arrived before their receive was posted",
      MPI_T_PVAR_CLASS_LEVEL, -1, 1, MPIT_CAT_MATCHING },
    { "unexpected_queue_max", "the longest the unexpected-message queue has been",
      MPI_T_PVAR_CLASS_HIGHWATERMARK, -1, 2, MPIT_CAT_MATCHING },
};
#define NPVARS ((int)(sizeof pvars / sizeof pvars[0]))

struct mpit_pvar_handle {
    const pvar_t *v;
    int started;
    uint64_t acc, base;
    struct mpit_pvar_handle *next;
};

struct mpit_pvar_session {
    struct mpit_pvar_handle *handles;
    struct mpit_pvar_session *next;
};

static struct mpit_pvar_session *sessions;

int mpit_pvar_count(void)
{
    return NPVARS;
}

int mpit_pvar_category(int i)
{
    return pvars[i].category;
}

static int is_counter(const pvar_t *v)
{
    return v->level >= 0;
}

/* The variable's value now (counters: the core's total since the process started). */
static uint64_t current(const pvar_t *v)
{
    if (is_counter(v)) {
        uint64_t m, b;
        traffic_get((traffic_level_t)v->level, &m, &b);
        return v->bytes ? b : m;
    }
    match_lengths_t l = match_lengths();
    return v->bytes == 0 ? l.posted : v->bytes == 1 ? l.unexpected : l.unexpected_max;
}

static uint64_t value_of(const struct mpit_pvar_handle *h)
{
    if (!is_counter(h->v))
        return current(h->v);
    return h->acc + (h->started ? current(h->v) - h->base : 0);
}

static struct mpit_pvar_session *find_session(MPI_T_pvar_session s)
{
    for (struct mpit_pvar_session *x = sessions; x; x = x->next)
        if (x == s)
            return x;
    return NULL;
}

/* mpit_enter, then the live session behind session: MPI_SUCCESS with the lock held, or an
 * error class without it. */
static int enter_session(MPI_T_pvar_session session, struct mpit_pvar_session **s)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!(*s = find_session(session)))
        return mpit_leave(MPI_T_ERR_INVALID_SESSION);
    return MPI_SUCCESS;
}

static void free_session(struct mpit_pvar_session *s)
{
    while (s->handles) {
        struct mpit_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

void mpit_pvar_release(void)
{
    while (sessions) {
        struct mpit_pvar_session *s = sessions;
        sessions = s->next;
        free_session(s);
    }
}

API_EXPORT int PMPI_T_pvar_get_num(int *num_pvar)
{
    API_ENTER();
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_pvar)
        return mpit_leave(MPI_T_ERR_INVALID);
    *num_pvar = NPVARS;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_get_num)

API_EXPORT int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                                    int *var_class, MPI_Datatype *datatype,
                                    MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                                    int *readonly, int *continuous, int *atomic)
{
    API_ENTER();
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const pvar_t *v = &pvars[pvar_index];
    mpit_copy_string(v->name, name, name_len);
    mpit_copy_string(v->desc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (var_class)
        *var_class = v->var_class;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    /* counters: started, stopped, written and reset per handle; the lengths: read only */
    if (readonly)
        *readonly = !is_counter(v);
    if (continuous)
        *continuous = !is_counter(v);
    if (atomic)
        *atomic = is_counter(v);
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_get_info)

API_EXPORT int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    API_ENTER();
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !pvar_index)
        return mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < NPVARS; i++)
        if (pvars[i].var_class == var_class && !strcmp(pvars[i].name, name)) {
            *pvar_index = i;
            return mpit_leave(MPI_SUCCESS);
        }
    return mpit_leave(MPI_T_ERR_INVALID_NAME);
}
API_WEAK_ALIAS(T_pvar_get_index)

API_EXPORT int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    API_ENTER();
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return mpit_leave(MPI_T_ERR_INVALID);
    struct mpit_pvar_session *s = calloc(1, sizeof *s);
    if (!s)
        return mpit_leave(MPI_T_ERR_MEMORY);
    s->next = sessions;
    sessions = s;
    *session = s;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_session_create)

API_EXPORT int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    API_ENTER();
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return mpit_leave(MPI_T_ERR_INVALID);
    for (struct mpit_pvar_session **pp = &sessions; *pp; pp = &(*pp)->next)
        if (*pp == *session) {
            struct mpit_pvar_session *s = *pp;
            *pp = s->next;
            free_session(s);
            *session = MPI_T_PVAR_SESSION_NULL;
            return mpit_leave(MPI_SUCCESS);
        }
    return mpit_leave(MPI_T_ERR_INVALID_SESSION);
}
API_WEAK_ALIAS(T_pvar_session_free)

API_EXPORT int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                                        void *obj_handle, MPI_T_pvar_handle *handle, int *count)
{
    API_ENTER();
    (void)obj_handle; /* every variable is bound to no object */
    struct mpit_pvar_session *s;
    int rc = enter_session(session, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return mpit_leave(MPI_T_ERR_INVALID);
    struct mpit_pvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return mpit_leave(MPI_T_ERR_MEMORY);
    h->v = &pvars[pvar_index];
    if (is_counter(h->v))
        traffic_enable();
    h->next = s->handles;
    s->handles = h;
    *handle = h;
    *count = 1;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_handle_alloc)

/* The live handle h of session s (unlinked when unlink is set), or NULL. */
static struct mpit_pvar_handle *find_handle(struct mpit_pvar_session *s, MPI_T_pvar_handle h,
                                            int unlink)
{
    for (struct mpit_pvar_handle **pp = &s->handles; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            if (unlink)
                *pp = h->next;
            return h;
        }
    return NULL;
}

API_EXPORT int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    API_ENTER();
    struct mpit_pvar_session *s;
    int rc = enter_session(session, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!handle)
        return mpit_leave(MPI_T_ERR_INVALID);
    struct mpit_pvar_handle *h = find_handle(s, *handle, 1);
    if (!h)
        return mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_handle_free)

typedef enum { DO_START, DO_STOP, DO_RESET } action_t;

static int act(struct mpit_pvar_handle *h, action_t a)
{
    if (!is_counter(h->v))
        return a == DO_RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP;
    uint64_t now = current(h->v);
    switch (a) {
    case DO_START:
        if (!h->started) {
            h->base = now;
            h->started = 1;
        }
        break;
    case DO_STOP:
        if (h->started)
            h->acc += now - h->base;
        h->started = 0;
        break;
    case DO_RESET:
        h->acc = 0;
        h->base = now;
        break;
    }
    return MPI_SUCCESS;
}

/* a on one handle, or on every handle of the session where it applies
 * (MPI_T_PVAR_ALL_HANDLES, which skips the variables a cannot act on). */
static int act_on(MPI_T_pvar_session session, MPI_T_pvar_handle handle, action_t a)
{
    struct mpit_pvar_session *s;
    int rc = enter_session(session, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct mpit_pvar_handle *h = s->handles; h; h = h->next)
            (void)act(h, a);
        return mpit_leave(MPI_SUCCESS);
    }
    struct mpit_pvar_handle *h = find_handle(s, handle, 0);
    return mpit_leave(h ? act(h, a) : MPI_T_ERR_INVALID_HANDLE);
}

API_EXPORT int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    API_ENTER();
    return act_on(session, handle, DO_START);
}
API_WEAK_ALIAS(T_pvar_start)

API_EXPORT int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    API_ENTER();
    return act_on(session, handle, DO_STOP);
}
API_WEAK_ALIAS(T_pvar_stop)

API_EXPORT int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    API_ENTER();
    return act_on(session, handle, DO_RESET);
}
API_WEAK_ALIAS(T_pvar_reset)

/* Read, write and readreset take one handle (MPI_T_PVAR_ALL_HANDLES is invalid there). */
static int one_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf,
                      struct mpit_pvar_handle **out)
{
    struct mpit_pvar_session *s;
    int rc = enter_session(session, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!(*out = find_handle(s, handle, 0)))
        return mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return mpit_leave(MPI_T_ERR_INVALID);
    return MPI_SUCCESS; /* the lock stays held */
}

API_EXPORT int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                void *buf)
{
    API_ENTER();
    struct mpit_pvar_handle *h;
    int rc = one_handle(session, handle, buf, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    *(unsigned long long *)buf = value_of(h);
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_read)

API_EXPORT int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                 const void *buf)
{
    API_ENTER();
    struct mpit_pvar_handle *h;
    int rc = one_handle(session, handle, buf, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_counter(h->v))
        return mpit_leave(MPI_T_ERR_PVAR_NO_WRITE);
    h->acc = *(const unsigned long long *)buf;
    h->base = current(h->v);
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_write)

API_EXPORT int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                     void *buf)
{
    API_ENTER();
    struct mpit_pvar_handle *h;
    int rc = one_handle(session, handle, buf, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_counter(h->v))
        return mpit_leave(MPI_T_ERR_PVAR_NO_WRITE);
    /* one reading of the counter serves both, so nothing counted between them is lost */
    uint64_t now = current(h->v);
    *(unsigned long long *)buf = h->acc + (h->started ? now - h->base : 0);
    h->acc = 0;
    h->base = now;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_pvar_readreset)
