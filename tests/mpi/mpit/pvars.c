/* The tools interface's performance variables (MPI-3.1 §14.3.7): messages and bytes sent
 * per level, counted exactly between start and stop; the matching queues' lengths; sessions
 * and handles, and their error classes. */
#include "../check.h"

#include <string.h>

enum { SELF, SHM, TCP, WAN, LEVELS };
static const char *const level_names[LEVELS] = { "self", "shm", "tcp", "wan" };

static MPI_T_pvar_handle alloc(MPI_T_pvar_session s, const char *name, int var_class)
{
    int i, count = 0;
    MPI_T_pvar_handle h;
    CHECK_RC(MPI_T_pvar_get_index(name, var_class, &i), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count), MPI_SUCCESS);
    CHECK(count == 1);
    return h;
}

static unsigned long long get(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ull;
    CHECK_RC(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    return v;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);

    MPI_T_pvar_session s, other;
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_create(&other), MPI_SUCCESS);
    MPI_T_pvar_handle msgs[LEVELS], bytes[LEVELS];
    for (int l = 0; l < LEVELS; l++) {
        char name[64];
        snprintf(name, sizeof name, "sent_messages_%s", level_names[l]);
        msgs[l] = alloc(s, name, MPI_T_PVAR_CLASS_COUNTER);
        snprintf(name, sizeof name, "sent_bytes_%s", level_names[l]);
        bytes[l] = alloc(s, name, MPI_T_PVAR_CLASS_COUNTER);
    }
    MPI_T_pvar_handle uq = alloc(s, "unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle uqmax = alloc(s, "unexpected_queue_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    MPI_T_pvar_handle posted = alloc(s, "posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle mine = alloc(other, "sent_messages_self", MPI_T_PVAR_CLASS_COUNTER);

    /* a counter not started counts nothing; ALL_HANDLES skips the continuous lengths */
    int x[100] = { 0 };
    MPI_Send(x, 1, MPI_INT, rank, 9, MPI_COMM_WORLD);
    MPI_Recv(x, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(get(s, msgs[SELF]) == 0);
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);

    /* five messages to myself wait unexpected (with more ranks, a neighbour's early message
     * or barrier message may wait there too) */
    for (int k = 0; k < 5; k++)
        MPI_Send(x, 100, MPI_INT, rank, k, MPI_COMM_WORLD);
    int flag = 0;
    MPI_Iprobe(rank, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    unsigned long long waiting = get(s, uq);
    CHECK(flag && waiting >= 5 && (size > 1 || waiting == 5) && get(s, uqmax) >= waiting);
    MPI_Request r;
    MPI_Irecv(x, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &r);
    CHECK(get(s, posted) == 1);
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(get(s, posted) == 0);
    for (int k = 0; k < 5; k++)
        MPI_Recv(x, 100, MPI_INT, rank, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(size > 1 || get(s, uq) == 0);

    /* three messages of 10 bytes to the right neighbour */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char c[10] = { 0 };
    for (int k = 0; k < 3; k++)
        MPI_Sendrecv(c, 10, MPI_CHAR, right, k, c, 10, MPI_CHAR, left, k, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD); /* not counted: stopped */

    unsigned long long self_m = get(s, msgs[SELF]), self_b = get(s, bytes[SELF]);
    unsigned long long other_m = 0, other_b = 0;
    for (int l = SHM; l < LEVELS; l++) {
        other_m += get(s, msgs[l]);
        other_b += get(s, bytes[l]);
    }
    if (size == 1) {
        CHECK(self_m == 8 && self_b == 5 * 400 + 30 && other_m == 0 && other_b == 0);
    } else {
        CHECK(self_m == 5 && self_b == 5 * 400 && other_m == 3 && other_b == 30);
    }
    CHECK(get(other, mine) == 0); /* another session's handle, never started */

    /* write, readreset, reset */
    unsigned long long v = 42;
    CHECK_RC(MPI_T_pvar_write(s, msgs[SELF], &v), MPI_SUCCESS);
    CHECK(get(s, msgs[SELF]) == 42);
    CHECK_RC(MPI_T_pvar_readreset(s, msgs[SELF], &v), MPI_SUCCESS);
    CHECK(v == 42 && get(s, msgs[SELF]) == 0);
    CHECK_RC(MPI_T_pvar_reset(s, bytes[SELF]), MPI_SUCCESS);
    CHECK(get(s, bytes[SELF]) == 0);

    /* errors */
    int readonly, continuous, atomic, cls, i;
    CHECK_RC(MPI_T_pvar_get_index("unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL, &i),
             MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_get_info(i, NULL, NULL, NULL, &cls, NULL, NULL, NULL, NULL, NULL,
                                 &readonly, &continuous, &atomic),
             MPI_SUCCESS);
    CHECK(cls == MPI_T_PVAR_CLASS_LEVEL && readonly && continuous);
    CHECK_RC(MPI_T_pvar_start(s, uq), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_RC(MPI_T_pvar_write(s, uq, &v), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_RC(MPI_T_pvar_reset(s, uq), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_RC(MPI_T_pvar_readreset(s, uq, &v), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_RC(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_read(other, uq, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_get_index("sent_bytes_wan", MPI_T_PVAR_CLASS_LEVEL, &i),
             MPI_T_ERR_INVALID_NAME);
    int n;
    CHECK_RC(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    MPI_T_pvar_handle h;
    int count;
    CHECK_RC(MPI_T_pvar_handle_alloc(s, n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_pvar_handle_free(s, &uq), MPI_SUCCESS);
    CHECK(uq == MPI_T_PVAR_HANDLE_NULL);
    CHECK_RC(MPI_T_pvar_handle_free(s, &uq), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_pvar_session gone = other;
    CHECK_RC(MPI_T_pvar_session_free(&other), MPI_SUCCESS); /* frees its handle too */
    CHECK(other == MPI_T_PVAR_SESSION_NULL);
    CHECK_RC(MPI_T_pvar_read(gone, mine, &v), MPI_T_ERR_INVALID_SESSION);
    CHECK_RC(MPI_T_pvar_session_free(&gone), MPI_T_ERR_INVALID_SESSION);

    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_read(s, msgs[SELF], &v), MPI_T_ERR_NOT_INITIALIZED);
    MPI_Finalize();
    if (rank == 0)
        printf("mpit pvars: OK on %d ranks\n", size);
    return 0;
}
