/* The per-thread cache of spare requests (core/request_cache.h; docs/threads.md, "Splitting
 * the lock", step (b)):
 *  - the contract on one thread: a spare keeps its handle, a freed handle looks up as NULL,
 *    the last freed is the next made, a full cache goes to the pool, the pool is bounded;
 *  - threads that make and free requests with no lock at all (the fast calls of step (e)):
 *    no handle is handed out twice, every live handle finds its own request, a thread's
 *    exit drains its cache into the pool, and requests freed by another thread than the one
 *    that made them (a producer and a consumer) do not grow the table;
 *  - a request made and freed on a thread after its exit drained its cache (by another key's
 *    destructor): through the pool, the cache never registered again;
 *  - MPI_Finalize's drain (request_finalize): every spare freed, of every thread (the
 *    sanitizer build's LeakSanitizer checks that nothing is left), and requests made again
 *    afterwards.
 * Label threads: make test-tsan runs it under ThreadSanitizer. */
#include "core/request.h"
#include "core/request_cache.h"
#include "expect.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static comm_t comm;

static unsigned table_used(void)
{
    return atomic_load(&request_table.used);
}

static void contract(void)
{
    request_t *a = request_new(REQ_SEND, &comm);
    EXPECT(a != NULL && a->handle != MPI_REQUEST_NULL);
    if (!a)
        return;
    EXPECT(request_lookup(a->handle) == a);
    EXPECT(atomic_load(&comm.refs) == 2);
    EXPECT(req_cache_registered() == 1);
    MPI_Request h = a->handle;
    request_free(a);
    EXPECT(request_lookup(h) == NULL);
    EXPECT(atomic_load(&comm.refs) == 1);
    request_t *b = request_new(REQ_RECV, &comm);
    EXPECT(b == a && b->handle == h && b->kind == REQ_RECV && !b->complete);
    EXPECT(request_lookup(h) == b);
    request_free(b);

    /* a full cache goes to the pool whole; the next refill takes it back */
    enum { N = REQ_CACHE_MAX + 10 };
    request_t *r[N];
    int pool0 = req_cache_pool_count();
    for (int i = 0; i < N; i++) {
        r[i] = request_new(REQ_SEND, &comm);
        EXPECT(r[i] != NULL);
        if (!r[i])
            return;
        for (int j = 0; j < i; j++)
            EXPECTF(r[j]->handle != r[i]->handle, "handle %d handed out twice", r[i]->handle);
    }
    for (int i = 0; i < N; i++)
        request_free(r[i]);
    EXPECTF(req_cache_pool_count() == pool0 + REQ_CACHE_MAX, "pool %d, was %d",
            req_cache_pool_count(), pool0);
    for (int i = 0; i < N; i++)
        EXPECT(request_lookup(r[i]->handle) == NULL);
    unsigned used = table_used();
    for (int i = 0; i < N; i++)
        r[i] = request_new(REQ_SEND, &comm);
    EXPECT(table_used() == used); /* all spares: no new slot */
    EXPECT(req_cache_pool_count() == pool0);
    for (int i = 0; i < N; i++)
        request_free(r[i]);

    /* bounded: 3000 live at once, then freed: the pool keeps at most its batches' worth, the
     * table's indices stay those of the peak */
    enum { MANY = 3000 };
    request_t **m = malloc(MANY * sizeof *m);
    for (int i = 0; i < MANY; i++)
        m[i] = request_new(REQ_SEND, &comm);
    unsigned peak = table_used();
    EXPECTF(peak <= MANY + REQ_CACHE_MAX + 1, "table used %u for %d requests", peak, MANY);
    for (int i = 0; i < MANY; i++)
        request_free(m[i]);
    EXPECTF(req_cache_pool_count() <= REQ_POOL_BATCHES * REQ_CACHE_MAX, "pool %d",
            req_cache_pool_count());
    EXPECT(handle_count(&request_table) == 0);
    for (int i = 0; i < MANY; i++)
        m[i] = request_new(REQ_SEND, &comm);
    EXPECT(table_used() == peak);
    for (int i = 0; i < MANY; i++)
        request_free(m[i]);
    free(m);
    EXPECT(atomic_load(&comm.refs) == 1);
}

/* Threads making and freeing requests without any lock, in windows of varying size (within
 * the cache and beyond it), each checking that its live handles find its own requests. */
enum { THREADS = 4, ROUNDS = 3000, WINDOW_MAX = 150 };

static void *maker(void *arg)
{
    int id = (int)(long)arg;
    request_t *r[WINDOW_MAX];
    unsigned seed = 12345u + (unsigned)id;
    for (int round = 0; round < ROUNDS; round++) {
        seed = seed * 1103515245u + 12345u;
        int n = 1 + (int)((seed >> 16) % WINDOW_MAX);
        for (int i = 0; i < n; i++) {
            r[i] = request_new(REQ_SEND, &comm);
            if (!r[i]) {
                EXPECT(r[i] != NULL);
                return NULL;
            }
            r[i]->tag = id;
            r[i]->peer = i;
        }
        for (int i = 0; i < n; i++) {
            request_t *l = request_lookup(r[i]->handle);
            EXPECTF(l == r[i] && l->tag == id && l->peer == i,
                    "thread %d: handle %d finds another request", id, r[i]->handle);
        }
        for (int i = n - 1; i >= 0; i--)
            request_free(r[i]);
    }
    return NULL;
}

/* A producer makes requests, a consumer frees them: the producer's cache empties and the
 * consumer's fills, both through the pool, which must bound the table. */
enum { HANDOFF = 200000, QUEUE = 256 };
static request_t *queue[QUEUE];
static int q_head, q_len;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 0; i < HANDOFF; i++) {
        request_t *r = request_new(REQ_SEND, &comm);
        EXPECT(r != NULL);
        if (r)
            r->tag = i;
        pthread_mutex_lock(&q_lock);
        while (q_len == QUEUE)
            pthread_cond_wait(&q_cond, &q_lock);
        queue[(q_head + q_len++) % QUEUE] = r;
        pthread_cond_broadcast(&q_cond);
        pthread_mutex_unlock(&q_lock);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < HANDOFF; i++) {
        pthread_mutex_lock(&q_lock);
        while (q_len == 0)
            pthread_cond_wait(&q_cond, &q_lock);
        request_t *r = queue[q_head];
        q_head = (q_head + 1) % QUEUE;
        q_len--;
        pthread_cond_broadcast(&q_cond);
        pthread_mutex_unlock(&q_lock);
        if (r) {
            EXPECTF(r->tag == i, "handed request %d arrived as %d", i, r->tag);
            EXPECT(request_lookup(r->handle) == r);
            request_free(r);
        }
    }
    return NULL;
}

static void threads(void)
{
    pthread_t th[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, maker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    /* their exits drained their caches (this thread has none yet) */
    EXPECTF(req_cache_registered() == 0, "%d caches registered", req_cache_registered());
    EXPECT(handle_count(&request_table) == 0);
    EXPECT(atomic_load(&comm.refs) == 1);
    unsigned bound = THREADS * (WINDOW_MAX + REQ_CACHE_MAX) + REQ_POOL_BATCHES * REQ_CACHE_MAX
                     + REQ_CACHE_MAX + 1;
    EXPECTF(table_used() <= bound, "table used %u > %u", table_used(), bound);
    printf("%d threads, %d windows each: %u slots, %d spares in the pool\n", THREADS, ROUNDS,
           table_used(), req_cache_pool_count());

    unsigned before = table_used();
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    EXPECT(req_cache_registered() == 0);
    EXPECT(handle_count(&request_table) == 0);
    EXPECTF(table_used() <= before + QUEUE + 3 * REQ_CACHE_MAX + 1,
            "%d requests handed over grew the table from %u to %u slots", HANDOFF, before,
            table_used());
    EXPECT(atomic_load(&comm.refs) == 1);
    request_finalize(); /* the pool's spares, with no cache registered */
    EXPECT(req_cache_pool_count() == 0 && table_used() == 0);
}

/* A request made and freed on a thread after its cache was drained at its exit (by a key
 * destructor of the program's that runs after the cache's: keys made later run later): it
 * goes through the pool, and the cache is not registered again (the registry would point
 * into the TLS of a thread that is gone). */
static pthread_key_t late_key;
static int late_ok, late_uses;

/* Sets its key again each time, so it runs in every round of destructors glibc makes
 * (PTHREAD_DESTRUCTOR_ITERATIONS), also the last, after which no destructor would drain a
 * cache registered again. Not under ThreadSanitizer, which finishes its own record of the
 * thread in a late round: a mutex call after that crashes it, so two rounds there. */
#ifdef __SANITIZE_THREAD__
enum { LATE_ROUNDS = 2 };
#else
enum { LATE_ROUNDS = PTHREAD_DESTRUCTOR_ITERATIONS };
#endif
static void late_use(void *arg)
{
    (void)arg;
    late_uses++;
    request_t *r = request_new(REQ_SEND, &comm);
    if (r) {
        late_ok = request_lookup(r->handle) == r;
        request_free(r);
    }
    if (late_uses < LATE_ROUNDS)
        pthread_setspecific(late_key, (void *)1);
}

static void *late_thread(void *arg)
{
    (void)arg;
    request_t *r = request_new(REQ_SEND, &comm); /* registers this thread's cache */
    if (r)
        request_free(r);
    pthread_setspecific(late_key, (void *)1);
    return NULL;
}

static void late(void)
{
    EXPECT(pthread_key_create(&late_key, late_use) == 0);
    int before = req_cache_registered();
    pthread_t t;
    pthread_create(&t, NULL, late_thread, NULL);
    pthread_join(t, NULL);
    EXPECT(late_ok && late_uses >= 2);
    EXPECTF(req_cache_registered() == before, "%d caches registered, %d before",
            req_cache_registered(), before);
    EXPECT(handle_count(&request_table) == 0);
    EXPECT(atomic_load(&comm.refs) == 1);
    pthread_key_delete(late_key);
}

/* A thread that is still alive at MPI_Finalize, with spares in its cache: request_finalize
 * frees them; its exit afterwards unregisters its (empty) cache. */
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int parked, released;

static void *parker(void *arg)
{
    (void)arg;
    request_t *r[10];
    for (int i = 0; i < 10; i++)
        r[i] = request_new(REQ_SEND, &comm);
    for (int i = 0; i < 10; i++)
        if (r[i])
            request_free(r[i]);
    pthread_mutex_lock(&park_lock);
    parked = 1;
    pthread_cond_broadcast(&park_cond);
    while (!released)
        pthread_cond_wait(&park_cond, &park_lock);
    pthread_mutex_unlock(&park_lock);
    return NULL;
}

static void finalize(void)
{
    pthread_t t;
    pthread_create(&t, NULL, parker, NULL);
    pthread_mutex_lock(&park_lock);
    while (!parked)
        pthread_cond_wait(&park_cond, &park_lock);
    pthread_mutex_unlock(&park_lock);
    EXPECT(req_cache_registered() == 2);
    request_finalize();
    EXPECT(req_cache_pool_count() == 0);
    EXPECT(table_used() == 0);
    pthread_mutex_lock(&park_lock);
    released = 1;
    pthread_cond_broadcast(&park_cond);
    pthread_mutex_unlock(&park_lock);
    pthread_join(t, NULL);
    EXPECT(req_cache_registered() == 1);
    EXPECT(req_cache_pool_count() == 0);

    /* usable again: new requests, new slots from 1 */
    request_t *a = request_new(REQ_SEND, &comm);
    EXPECT(a != NULL && request_lookup(a->handle) == a);
    if (a)
        request_free(a);
    request_finalize();
    EXPECT(table_used() == 0);
}

int main(void)
{
    atomic_init(&comm.refs, 1);
    threads();
    contract();
    late();
    finalize();
    return expect_done("request_cache");
}
