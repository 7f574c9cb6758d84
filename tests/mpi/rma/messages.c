/* What a passive-target flush costs under the emulation, counted in messages with MPI_T's
 * per-level counters (sent_messages_*): a flush after small puts or accumulates travels in
 * the same message as them (one message to the target, one reply back), and a flush after
 * operations that are answered anyway (get, fetch_and_op, compare_and_swap) sends nothing:
 * their replies already say that they were applied. A lock request is not awaited: it
 * travels with the epoch's first message, so lock + put + unlock is one message too. The
 * data must be right all the same. Rank 0 is the origin, every other rank a target that
 * waits in a barrier. */
#include "check.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;


enum { LEVELS = 4 };
static const char *const counters[LEVELS] = { "sent_messages_self", "sent_messages_shm",
                                              "sent_messages_tcp", "sent_messages_wan" };
static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[LEVELS];

static void start_counting(void)
{
    int provided, n, found = 0;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "pvar session");
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[64], desc[256];
        int nlen = sizeof name, dlen = sizeof desc, verb, cls, bind, ro, cont, atomic, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind, &ro,
                            &cont, &atomic);
        for (int l = 0; l < LEVELS; l++)
            if (strcmp(name, counters[l]) == 0) {
                CHECK(MPI_T_pvar_handle_alloc(session, i, NULL, &handles[l], &count) ==
                          MPI_SUCCESS,
                      "pvar handle %s", name);
                CHECK(MPI_T_pvar_start(session, handles[l]) == MPI_SUCCESS, "pvar start");
                found++;
            }
    }
    CHECK(found == LEVELS, "found %d of the %d message counters", found, LEVELS);
}

/* Messages to other processes (a rank's lock of its own window is a message to itself). */
static unsigned long long sent_messages(void)
{
    unsigned long long sum = 0;
    for (int l = 1; l < LEVELS; l++) {
        unsigned long long v;
        CHECK(MPI_T_pvar_read(session, handles[l], &v) == MPI_SUCCESS, "pvar read");
        sum += v;
    }
    return sum;
}

/* Runs step, then checks that it sent `expect` messages. */
#define MESSAGES(expect, what, step)                                                       \
    do {                                                                                   \
        unsigned long long before_ = sent_messages();                                      \
        step;                                                                              \
        unsigned long long took_ = sent_messages() - before_;                              \
        CHECK(took_ == (unsigned long long)(expect), "%s sent %llu messages, not %d", what, \
              took_, (int)(expect));                                                       \
    } while (0)

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    start_counting();
    long *base;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    memset(base, 0, 4 * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && size > 1) {
        long one = 1, got = 0, old = -1, cmp = 7, swap = 9;
        /* lock_all's requests leave with the first message to each target */
        MESSAGES(size - 1, "lock_all + puts to every target + flush_all", {
            MPI_Win_lock_all(0, win);
            for (int t = 1; t < size; t++) {
                long v = 100 + t;
                MPI_Put(&v, 1, MPI_LONG, t, 2, 1, MPI_LONG, win);
            }
            MPI_Win_flush_all(win);
        });
        MESSAGES(0, "a flush with nothing to complete", MPI_Win_flush(1, win));
        MESSAGES(1, "put + flush", {
            long v = 7;
            MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
            MPI_Win_flush(1, win);
        });
        MESSAGES(1, "10 accumulates + flush", {
            for (int i = 0; i < 10; i++)
                MPI_Accumulate(&one, 1, MPI_LONG, 1, 1, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(1, win);
        });
        MESSAGES(1, "get + flush", {
            MPI_Get(&got, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
            MPI_Win_flush(1, win);
        });
        CHECK(got == 7, "get after put + flush read %ld, not 7", got);
        MESSAGES(1, "fetch_and_op + flush", {
            MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, 1, MPI_SUM, win);
            MPI_Win_flush(1, win);
        });
        CHECK(old == 10, "fetch_and_op after 10 accumulates read %ld, not 10", old);
        MESSAGES(1, "compare_and_swap + flush", {
            MPI_Compare_and_swap(&swap, &cmp, &old, MPI_LONG, 1, 0, win);
            MPI_Win_flush(1, win);
        });
        CHECK(old == 7, "compare_and_swap read %ld, not 7", old);
        /* a put to every target, then one flush of all: one message to each */
        MESSAGES(size - 1, "puts to every target + flush_all", {
            for (int t = 1; t < size; t++) {
                long v = 100 + t;
                MPI_Put(&v, 1, MPI_LONG, t, 2, 1, MPI_LONG, win);
            }
            MPI_Win_flush_all(win);
        });
        MESSAGES(0, "flush_all after the flush of all", MPI_Win_flush_all(win));
        MPI_Win_unlock_all(win);
        MESSAGES(1, "lock + put + unlock", {
            long v = 5;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(&v, 1, MPI_LONG, 1, 3, 1, MPI_LONG, win);
            MPI_Win_unlock(1, win);
        });
        MESSAGES(1, "lock + unlock", {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Win_unlock(1, win);
        });
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    if (rank == 1) {
        CHECK(base[0] == 9, "swapped value is %ld, not 9", base[0]);
        CHECK(base[1] == 11, "accumulated value is %ld, not 11", base[1]);
        CHECK(base[3] == 5, "put of the lock epoch is %ld, not 5", base[3]);
    }
    if (rank > 0)
        CHECK(base[2] == 100 + rank, "put of the flush_all is %ld, not %d", base[2], 100 + rank);
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
