/* The shared area of a communicator on this host: setup protocol, segment, flags (area.h). */
#include "coll/shm/ops.h"

#include "coll/cache.h"
#include "core/p2p.h"
#include "runtime/job.h"
#include "runtime/tunables.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define AREA_MAGIC 0x6c6c6f636d68732eull /* ".shmcoll" */
#define AREA_VERSION 1u
#define AREA_PAGE 4096u

#define PROBE_MAGIC 0x65626f7270616d63ull /* "cmaprobe" */

/* An area holds n * K slots of one chunk and is fully allocated (its readers poll every
 * slot). Unless METAMPI_COLL_SHM_CHUNK is set, the chunk halves while the slots would exceed
 * AREA_SLOTS_BUDGET, never below AREA_MIN_DEFAULT_CHUNK: the default (32 KiB) up to 64
 * members, 8 KiB at 256 (an area of 8 MiB, not 32). Every member computes the same. */
#define AREA_SLOTS_BUDGET (8u << 20)
#define AREA_MIN_DEFAULT_CHUNK 4096u

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

static size_t ctl_off(void)
{
    return AREA_PAGE;
}

static size_t data_off(int n)
{
    return align_up(ctl_off() + (size_t)n * sizeof(shm_ctl_t), AREA_PAGE);
}

static size_t chunk_for(int n, int slots)
{
    size_t c = coll_shm_chunk();
    if (tun_is_set(TUN_COLL_SHM_CHUNK))
        return c;
    while (c > AREA_MIN_DEFAULT_CHUNK && (size_t)n * (size_t)slots * c > AREA_SLOTS_BUDGET)
        c /= 2;
    return c;
}

static size_t area_bytes(int n, size_t chunk, int slots)
{
    return data_off(n) + (size_t)n * (size_t)slots * (sizeof(shm_slot_hdr_t) + chunk);
}

static void map_parts(coll_area_t *a)
{
    a->ctl = (shm_ctl_t *)(a->base + ctl_off());
    a->data = a->base + data_off(a->n);
}

/* Areas this process created and still has (METAMPI_COLL_SHM_AREAS bounds them: every
 * communicator that runs collectives would otherwise take its share of /dev/shm). */
static int areas_created;

/* Creates, sizes, backs and maps the segment (member 0). 0 or -1. */
static int create(coll_area_t *a)
{
    if (areas_created >= coll_shm_max_areas())
        return -1;
    a->bytes = area_bytes(a->n, a->chunk, a->slots);
    int fd = shm_open(a->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    a->created = 1;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)a->bytes) == 0 && posix_fallocate(fd, 0, (off_t)a->bytes) == 0)
        p = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    a->base = p;
    a->counted = 1;
    areas_created++;
    shm_hdr_t *h = p;
    *h = (shm_hdr_t){ .magic = AREA_MAGIC, .version = AREA_VERSION, .n = (uint32_t)a->n,
                      .chunk = a->chunk, .slots = (uint64_t)a->slots, .bytes = a->bytes };
    map_parts(a);
    return 0;
}

/* Maps member 0's segment and checks that it describes this team. 0 or -1. */
static int attach(coll_area_t *a)
{
    int fd = shm_open(a->name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct stat st;
    void *p = MAP_FAILED;
    size_t want = area_bytes(a->n, a->chunk, a->slots);
    if (fstat(fd, &st) == 0 && (size_t)st.st_size == want)
        p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    const shm_hdr_t *h = p;
    if (h->magic != AREA_MAGIC || h->version != AREA_VERSION || h->n != (uint32_t)a->n ||
        h->chunk != a->chunk || h->slots != (uint64_t)a->slots || h->bytes != want) {
        munmap(p, want);
        return -1;
    }
    a->base = p;
    a->bytes = want;
    map_parts(a);
    return 0;
}

static void unmap(coll_area_t *a)
{
    if (a->counted)
        areas_created--;
    a->counted = 0;
    if (a->base)
        munmap(a->base, a->bytes);
    a->base = NULL;
    a->ctl = NULL;
    a->data = NULL;
}

static void unlink_name(coll_area_t *a)
{
    if (a->created && !a->unlinked) {
        shm_unlink(a->name);
        a->unlinked = 1;
    }
}

static void area_free(void *p)
{
    coll_area_t *a = p;
    if (!a)
        return;
    unmap(a);
    unlink_name(a);
    free(a->world);
    free(a->answers);
    free(a->buf[0]);
    free(a->buf[1]);
    shm_free_spare_ops(a);
    free(a);
}

/* ---- setup steps (see area.h) ---- */

static int fails_here(const coll_area_t *a)
{
    return coll_shm_fail_member() == a->me;
}

static int step_create(icoll_sched_t *s, void *arg)
{
    (void)s;
    coll_area_t *a = arg;
    a->probe = PROBE_MAGIC;
    a->hello.probe = (uint64_t)(uintptr_t)&a->probe;
    a->hello.status = 0;
    if (!fails_here(a) && create(a) == 0)
        a->hello.status = SETUP_GOOD;
    return MPI_SUCCESS;
}

static int step_attach(icoll_sched_t *s, void *arg)
{
    (void)s;
    coll_area_t *a = arg;
    a->answer = 0;
    if (a->hello.status != SETUP_GOOD || fails_here(a) || attach(a) != 0)
        return MPI_SUCCESS;
    a->answer = SETUP_GOOD;
    uint64_t v = 0;
    if (coll_shm_cma_allowed() &&
        p2p_read(a->world[0], &v, (const void *)(uintptr_t)a->hello.probe, sizeof v) == 0 &&
        v == PROBE_MAGIC)
        a->answer |= SETUP_CMA;
    return MPI_SUCCESS;
}

/* Member 0, once everyone has answered: the name goes, the verdict is everyone's. */
static int step_decide(icoll_sched_t *s, void *arg)
{
    (void)s;
    coll_area_t *a = arg;
    unlink_name(a);
    a->verdict = 0;
    if (a->hello.status == SETUP_GOOD) {
        a->verdict = SETUP_GOOD | (coll_shm_cma_allowed() ? SETUP_CMA : 0);
        for (int k = 1; k < a->n; k++)
            a->verdict &= a->answers[k];
        if (!(a->verdict & SETUP_GOOD))
            a->verdict = 0;
    }
    return MPI_SUCCESS;
}

static void setup_done(int err, void *arg)
{
    coll_area_t *a = arg;
    if (err == MPI_SUCCESS && (a->verdict & SETUP_GOOD)) {
        a->cma = (a->verdict & SETUP_CMA) != 0;
        a->state = AREA_READY;
        return;
    }
    unmap(a);
    unlink_name(a);
    a->state = AREA_FAILED;
}

static int start_setup(comm_t *c, comm_stream_t stream, coll_area_t *a)
{
    icoll_sched_t *s = icoll_sched_new(COLL_SHM_SETUP_TAG - (int)stream);
    if (!s)
        return -1;
    int root = a->crank ? a->crank[0] : 0;
    if (a->me == 0) {
        icoll_sched_call(s, step_create, a);
        for (int k = 1; k < a->n; k++)
            icoll_sched_send(s, c, a->crank ? a->crank[k] : k, &a->hello, sizeof a->hello);
        for (int k = 1; k < a->n; k++)
            icoll_sched_recv(s, c, a->crank ? a->crank[k] : k, &a->answers[k], 1);
        icoll_sched_call(s, step_decide, a);
        for (int k = 1; k < a->n; k++)
            icoll_sched_send(s, c, a->crank ? a->crank[k] : k, &a->verdict, 1);
    } else {
        icoll_sched_recv(s, c, root, &a->hello, sizeof a->hello);
        icoll_sched_call(s, step_attach, a);
        icoll_sched_send(s, c, root, &a->answer, 1);
        icoll_sched_recv(s, c, root, &a->verdict, 1);
    }
    if (icoll_sched_failed(s)) {
        icoll_sched_discard(s);
        return -1;
    }
    icoll_sched_start(s, setup_done, a);
    return 0;
}

coll_area_t *coll_shm_area(comm_t *c, comm_stream_t stream)
{
    coll_cache_t *cc = coll_cache_of(c);
    if (!cc)
        return NULL;
    if (cc->shm[stream])
        return cc->shm[stream];
    const coll_hier_t *h = coll_hier(c);
    if (!h || h->node.size < 2)
        return NULL;
    coll_area_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->n = h->node.size;
    a->me = h->node.rank;
    a->crank = h->node.ranks;
    a->slots = coll_shm_slots();
    a->chunk = chunk_for(a->n, a->slots);
    a->world = malloc((size_t)a->n * sizeof *a->world);
    a->answers = calloc((size_t)a->n, 1);
    int leader = comm_peer_world_rank(c, a->crank ? a->crank[0] : 0);
    int len = snprintf(a->name, sizeof a->name, "/metampi.%s.coll.%d.%" PRIx64 ".%d", job.id,
                       leader, c->key, (int)stream);
    if (!a->world || !a->answers || len < 0 || (size_t)len >= sizeof a->name || len - 1 > NAME_MAX) {
        area_free(a);
        return NULL;
    }
    for (int k = 0; k < a->n; k++)
        a->world[k] = comm_peer_world_rank(c, a->crank ? a->crank[k] : k);
    a->state = AREA_PENDING;
    if (start_setup(c, stream, a) < 0) {
        area_free(a);
        return NULL;
    }
    cc->shm[stream] = a;
    cc->shm_free = area_free;
    return a; /* the first operation waits for the verdict, as every later one built before it */
}

unsigned char *shm_area_buffer(coll_area_t *a, int i, size_t bytes)
{
    if (a->buf_bytes[i] < bytes) {
        free(a->buf[i]);
        a->buf_bytes[i] = 0;
        if (!(a->buf[i] = malloc(bytes)))
            return NULL;
        a->buf_bytes[i] = bytes;
    }
    return a->buf[i];
}

/* ---- flags ---- */

void shm_store_wake(coll_area_t *a, _Atomic uint64_t *w, uint64_t v, int who)
{
    atomic_store_explicit(w, v, memory_order_release); /* area.h, "Waking" */
    if (who >= 0) {
        p2p_wake(a->world[who]);
        return;
    }
    for (int k = 0; k < a->n; k++)
        if (k != a->me)
            p2p_wake(a->world[k]);
}

int shm_slot_free(coll_area_t *a, uint64_t g, uint64_t freed)
{
    uint64_t *need = &a->need[g % (uint64_t)a->slots];
    if (a->ack_min < *need) {
        uint64_t lo = UINT64_MAX;
        for (int k = 0; k < a->n; k++) {
            if (k == a->me)
                continue;
            uint64_t v = shm_load(&a->ctl[k].ack);
            if (v < lo)
                lo = v;
        }
        a->ack_min = lo;
        if (lo < *need)
            return 0;
    }
    *need = freed;
    return 1;
}

int shm_all_posted(coll_area_t *a, int *from, uint64_t v)
{
    for (; *from < a->n; (*from)++)
        if (*from != a->me && shm_load(&a->ctl[*from].post) < v)
            return 0;
    return 1;
}

int shm_all_slots(coll_area_t *a, int *from, uint64_t g, uint64_t v)
{
    for (; *from < a->n; (*from)++)
        if (*from != a->me && shm_load(&shm_slot_hdr(a, *from, g)->pos) < v)
            return 0;
    return 1;
}
