/* Handle tables (util/handles.c) and the atomic reference counts of communicators and datatypes
 * (docs/threads.md, "Splitting the lock", step (a)), without MPI_Init:
 *  - the table's contract: kinds, the null handle, reserved indices, LIFO reuse, double
 *    release, handle_set, foreach/count, destroy and reuse, growth across many chunks, the
 *    mask's end;
 *  - slots never move: a slot's address is the same after the table grew by 100 000;
 *  - lookups without a lock while another thread grows the table and frees handles: readers
 *    must find every published handle's object (never a stale or torn one); under
 *    ThreadSanitizer (label threads, make test-tsan) also the orderings;
 *  - comm_retain/comm_release and dtype_retain/dtype_release from several threads at once
 *    lose no count (plain ints lost thousands here), and the last release destroys. */
#include "core/comm.h"
#include "datatype/construct.h"
#include "datatype/dtype.h"
#include "util/handles.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

#define KIND 0x20000000u
static int objs[4];

static void count_cb(void *obj, void *arg)
{
    (void)obj;
    ++*(int *)arg;
}

static void contract(void)
{
    handle_table_t t = HANDLE_TABLE_INIT(KIND, 3);
    EXPECT(handle_get(&t, (int)KIND) == NULL);            /* the null handle, empty table */
    EXPECT(handle_get(&t, (int)(KIND | 5)) == NULL);      /* never handed out */
    int a = handle_new(&t, &objs[0]), b = handle_new(&t, &objs[1]);
    EXPECT(a == (int)(KIND | 3) && b == (int)(KIND | 4)); /* from first, dense */
    EXPECT(handle_get(&t, a) == &objs[0] && handle_get(&t, b) == &objs[1]);
    EXPECT(handle_get(&t, (int)(0x24000000u | 3)) == NULL); /* another kind */
    EXPECT(handle_get(&t, (int)KIND) == NULL);
    EXPECT(handle_set(&t, 1, &objs[2]) == 0 && handle_get(&t, (int)(KIND | 1)) == &objs[2]);
    EXPECT(handle_count(&t) == 3);
    handle_release(&t, a);
    EXPECT(handle_get(&t, a) == NULL && handle_count(&t) == 2);
    handle_release(&t, a); /* twice: no effect, and not on the free list twice */
    int c = handle_new(&t, &objs[3]), d = handle_new(&t, &objs[0]);
    EXPECT(c == a && d == (int)(KIND | 5)); /* LIFO reuse, then the next new index */
    handle_release(&t, (int)(KIND | 1));   /* a predefined index is not reused */
    EXPECT(handle_new(&t, &objs[1]) == (int)(KIND | 6));
    handle_release_live(&t, d);
    EXPECT(handle_get(&t, d) == NULL && handle_new(&t, &objs[0]) == d);
    int n = 0;
    handle_foreach(&t, count_cb, &n);
    EXPECT(n == 4 && handle_count(&t) == 4);
    EXPECT(handle_get(&t, (int)KIND) == NULL); /* the null handle, with a non-empty table */
    handle_table_destroy(&t);
    EXPECT(handle_get(&t, c) == NULL && handle_count(&t) == 0);
    EXPECT(handle_new(&t, &objs[0]) == (int)(KIND | 3)); /* usable again */
    handle_table_destroy(&t);
}

/* 100 000 handles: every one maps back after the table grew across 196 chunks, and the slot
 * of an early index did not move. */
static void growth(void)
{
    enum { N = 100000 };
    handle_table_t t = HANDLE_TABLE_INIT(KIND, 1);
    int *h = malloc(N * sizeof *h);
    h[0] = handle_new(&t, (void *)(uintptr_t)1);
    handle_slot_t *early = handle_slot(&t, 1);
    for (int i = 1; i < N; i++)
        h[i] = handle_new(&t, (void *)(uintptr_t)(i + 1));
    EXPECT(handle_slot(&t, 1) == early);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += h[i] != (int)(KIND | (unsigned)(i + 1)) ||
               handle_get(&t, h[i]) != (void *)(uintptr_t)(i + 1);
    EXPECT(bad == 0);
    EXPECT(handle_count(&t) == N);
    EXPECT(handle_set(&t, (int)HANDLE_INDEX_MASK + 1, &objs[0]) == -1); /* past the mask */
    EXPECT(handle_set(&t, 0, &objs[0]) == -1);                           /* the null handle */
    free(h);
    handle_table_destroy(&t);
}

/* One thread creates handles (and frees every third one) under a mutex, as the object lock
 * serialises creation; readers look up, without it, every handle published so far. */
enum { CREATED = 200000, READERS = 3 };
static handle_table_t shared = HANDLE_TABLE_INIT(KIND, 1);
static pthread_mutex_t object_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int published; /* handles [1, published] exist (or were freed: index % 3 == 0) */
static atomic_int writer_done;
static struct item { int value; } *items;

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= CREATED; i++) {
        items[i].value = i; /* written before publication: a reader must see it */
        pthread_mutex_lock(&object_lock);
        int h = handle_new(&shared, &items[i]);
        pthread_mutex_unlock(&object_lock);
        if (h != (int)(KIND | (unsigned)i)) {
            EXPECT(h == (int)(KIND | (unsigned)i));
            break;
        }
        atomic_store_explicit(&published, i, memory_order_release);
        if (i % 3 == 0 && i > 3) { /* a freed one (its index is reused below: not this one) */
            pthread_mutex_lock(&object_lock);
            handle_release(&shared, (int)(KIND | (unsigned)(i - 3)));
            handle_new(&shared, &items[i - 3]); /* back at the same index (LIFO) */
            pthread_mutex_unlock(&object_lock);
        }
    }
    atomic_store_explicit(&writer_done, 1, memory_order_release);
    return NULL;
}

static void *reader(void *arg)
{
    long bad = 0, seen = 0;
    unsigned x = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    while (!atomic_load_explicit(&writer_done, memory_order_acquire)) {
        int n = atomic_load_explicit(&published, memory_order_acquire);
        if (n == 0)
            continue;
        x = x * 1103515245u + 12345u;
        int i = (int)(x % (unsigned)n) + 1;
        struct item *it = handle_get(&shared, (int)(KIND | (unsigned)i));
        seen++;
        if (it ? it != &items[i] || it->value != i : i % 3 != 0) /* NULL: briefly freed */
            bad++;
    }
    EXPECT(bad == 0);
    return (void *)seen;
}

static void concurrent_lookups(void)
{
    items = calloc(CREATED + 1, sizeof *items);
    pthread_t w, r[READERS];
    for (int i = 0; i < READERS; i++)
        pthread_create(&r[i], NULL, reader, (void *)(uintptr_t)(i + 1));
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(w, NULL);
    long seen = 0;
    for (int i = 0; i < READERS; i++) {
        void *s;
        pthread_join(r[i], &s);
        seen += (long)s;
    }
    EXPECT(handle_count(&shared) == CREATED);
    printf("concurrent lookups: %ld during %d creations\n", seen, CREATED);
    handle_table_destroy(&shared);
    free(items);
}

/* Reference counts: THREADS threads each take and drop ROUNDS references to one communicator
 * and one datatype (each thread holds one reference throughout, as a request does). */
enum { THREADS = 4, ROUNDS = 200000 };
static comm_t comm;
static dtype_t *type;

static void *churn(void *arg)
{
    (void)arg;
    comm_retain(&comm);
    dtype_retain(type);
    for (int i = 0; i < ROUNDS; i++) {
        comm_retain(&comm);
        dtype_retain(type);
        comm_release(&comm);
        dtype_release(type);
    }
    comm_release(&comm);
    dtype_release(type);
    return NULL;
}

static void refcounts(void)
{
    atomic_init(&comm.refs, 1);
    type = dtype_alloc(0, 0, 0);
    EXPECT(type != NULL);
    if (!type)
        return;
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, churn, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    EXPECT(atomic_load(&comm.refs) == 1);
    EXPECT(atomic_load(&type->refs) == 1);
    MPI_Datatype h = type->handle;
    EXPECT(dtype_lookup(h) == type);
    dtype_release(type); /* the last one destroys it: its handle goes */
    EXPECT(dtype_lookup(h) == NULL);
}

int main(void)
{
    contract();
    growth();
    concurrent_lookups();
    refcounts();
    return expect_done("handles");
}
