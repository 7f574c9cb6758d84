#include "core/request_cache.h"

#include "core/request.h"

#include <pthread.h>
#include <stdlib.h>

_Thread_local req_cache_t req_cache __attribute__((tls_model("initial-exec")));

/* Everything below is under pool_lock (request_cache.h): the pool — up to REQ_POOL_BATCHES
 * lists of spares, each a whole cache once (≤ REQ_CACHE_MAX) — and the registry of caches. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct request *pool_head[REQ_POOL_BATCHES];
static int pool_len[REQ_POOL_BATCHES];
static int pool_batches;
static req_cache_t *registry;

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int key_ok;

static void cache_exit(void *arg);

static void make_key(void)
{
    key_ok = pthread_key_create(&key, cache_exit) == 0;
}

/* Frees the spares from head on: their indices go back to the table's free list. */
static void free_spares(request_t *head)
{
    while (head) {
        request_t *r = head;
        head = r->next;
        handle_release_live(&request_table, r->handle);
        free(r);
    }
}

/* The spares at head (n of them) go to the pool, or are freed when it is full. */
static void pool_put(request_t *head, int n)
{
    if (!head)
        return;
    if (pool_batches == REQ_POOL_BATCHES) {
        free_spares(head);
        return;
    }
    pool_head[pool_batches] = head;
    pool_len[pool_batches] = n;
    pool_batches++;
}

/* Links c into the registry and sets the key, so that its thread's exit drains it. Without
 * the key (pthread_key_create failed: out of keys), c stays unregistered and keeps no spares
 * (the slow paths hand its requests to the pool one by one): nothing can leak. So does a cache
 * whose thread's exit has drained it (cache_exit). */
static void enroll(req_cache_t *c)
{
    if (c->registered != CACHE_NEW)
        return;
    pthread_once(&key_once, make_key);
    if (!key_ok || pthread_setspecific(key, c) != 0)
        return;
    c->registered = CACHE_REGISTERED;
    c->prev = NULL;
    c->next = registry;
    if (registry)
        registry->prev = c;
    registry = c;
    c->head = NULL;
    c->room = REQ_CACHE_MAX;
}

static void unlink_cache(req_cache_t *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        registry = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* The thread's exit (the key's destructor; its TLS still exists): the cache goes to the pool.
 * It is never registered again: a request made and freed later on this thread (by another
 * key's destructor, which may run after this one) goes through the pool, so the registry
 * never points into the TLS of a thread that is gone. */
static void cache_exit(void *arg)
{
    req_cache_t *c = arg;
    pthread_mutex_lock(&pool_lock);
    pool_put(c->head, REQ_CACHE_MAX - c->room);
    c->head = NULL;
    c->room = 0;
    if (c->registered == CACHE_REGISTERED)
        unlink_cache(c);
    c->registered = CACHE_EXITED;
    pthread_mutex_unlock(&pool_lock);
}

request_t *req_cache_refill(void)
{
    req_cache_t *c = &req_cache;
    request_t *r = NULL;
    pthread_mutex_lock(&pool_lock);
    enroll(c);
    if (pool_batches > 0) {
        pool_batches--;
        r = pool_head[pool_batches];
        if (c->registered == CACHE_REGISTERED) {
            c->head = r->next;
            c->room = REQ_CACHE_MAX - (pool_len[pool_batches] - 1);
        } else {
            /* no cache: the rest stays in the pool */
            pool_put(r->next, pool_len[pool_batches] - 1);
        }
    } else if ((r = malloc(sizeof *r))) {
        int h = handle_new(&request_table, NULL); /* the slot is r's from now on */
        if (h) {
            r->handle = h;
        } else {
            free(r);
            r = NULL;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return r;
}

void req_cache_overflow(request_t *r)
{
    req_cache_t *c = &req_cache;
    pthread_mutex_lock(&pool_lock);
    enroll(c);
    if (c->registered == CACHE_REGISTERED) {
        pool_put(c->head, REQ_CACHE_MAX - c->room);
        r->next = NULL;
        c->head = r;
        c->room = REQ_CACHE_MAX - 1;
    } else {
        r->next = NULL;
        pool_put(r, 1);
    }
    pthread_mutex_unlock(&pool_lock);
}

void req_cache_finalize(void)
{
    pthread_mutex_lock(&pool_lock);
    /* the other threads have completed their MPI calls (MPI-3.1 §12.4.3): their caches are
     * emptied here, and stay registered (their exit unregisters them) */
    for (req_cache_t *c = registry; c; c = c->next) {
        request_t *head = c->head;
        while (head) {
            request_t *r = head;
            head = r->next;
            free(r);
        }
        c->head = NULL;
        c->room = REQ_CACHE_MAX;
    }
    while (pool_batches > 0) {
        request_t *head = pool_head[--pool_batches];
        while (head) {
            request_t *r = head;
            head = r->next;
            free(r);
        }
    }
    handle_table_destroy(&request_table);
    pthread_mutex_unlock(&pool_lock);
}

int req_cache_pool_count(void)
{
    pthread_mutex_lock(&pool_lock);
    int n = 0;
    for (int i = 0; i < pool_batches; i++)
        n += pool_len[i];
    pthread_mutex_unlock(&pool_lock);
    return n;
}

int req_cache_registered(void)
{
    pthread_mutex_lock(&pool_lock);
    int n = 0;
    for (req_cache_t *c = registry; c; c = c->next)
        n++;
    pthread_mutex_unlock(&pool_lock);
    return n;
}
