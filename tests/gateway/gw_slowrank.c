/*
 * A slow rank slows only its own traffic through the gateways (issue 15, item 6). The first
 * rank X of the last site stays outside MPI for SECONDS + 1 s while every rank of the other
 * sites floods it with FLOOD_KIB KiB of 1 KiB messages (nonblocking) and, at the same time,
 * trickles small messages (one every 50 us, each carrying its send time) to the other ranks
 * of X's site, the echo ranks. The trickle must keep flowing while X sleeps: an echo rank
 * takes the time each message took, and the job fails when the largest exceeds MAX_DELAY
 * seconds (0: not checked). Every message is checked (order per pair and content); X receives
 * its flood when it calls MPI again.
 *   gw_slowrank [SECONDS [MAX_DELAY [FLOOD_KIB]]]     rank 0 prints "slowrank ok DELAY"
 * Needs at least two sites and two ranks at the last site (sites from METAMPI_SITE; with
 * another MPI, or on one site, it prints "slowrank skipped" and succeeds).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MSG = 1024, TAG_FLOOD = 1, TAG_TRICKLE = 2, TRICKLE_US = 50 };

typedef struct trickle {
    double sent;
    int seq;       /* from 0; -1 ends the sender's trickle */
    int pad[5];
} trickle_t;

static int site_of_me(void)
{
#ifdef METAMPI_SITE
    int *site, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, METAMPI_SITE, &site, &flag);
    return flag ? *site : 0;
#else
    return 0;
#endif
}

static void fail(const char *what, int a, int b)
{
    fprintf(stderr, "gw_slowrank: %s (%d, %d)\n", what, a, b);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int seconds = argc > 1 ? atoi(argv[1]) : 4;
    double max_delay = argc > 2 ? atof(argv[2]) : 0;
    long flood_kib = argc > 3 ? atol(argv[3]) : 16384;
    int *sites = malloc((size_t)size * sizeof *sites), me = site_of_me();
    MPI_Allgather(&me, 1, MPI_INT, sites, 1, MPI_INT, MPI_COMM_WORLD);
    int last_site = sites[size - 1], x = size - 1;
    while (x > 0 && sites[x - 1] == last_site)
        x--;
    /* senders: every rank at another site; echo ranks: X's site but X */
    int nsenders = x, nechoes = size - 1 - x;
    if (last_site == sites[0] || nechoes < 1) {
        if (rank == 0)
            printf("slowrank skipped\n");
        free(sites);
        MPI_Finalize();
        return 0;
    }
    int per_sender = (int)(flood_kib * 1024 / MSG / nsenders);
    double worst = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < x) {
        int echo = x + 1 + rank % nechoes;
        unsigned char *flood = malloc((size_t)per_sender * MSG);
        MPI_Request *req = malloc((size_t)per_sender * sizeof *req);
        for (int i = 0; i < per_sender; i++) {
            int *p = (int *)(flood + (size_t)i * MSG);
            p[0] = i;
            p[1] = rank;
            MPI_Isend(p, MSG, MPI_BYTE, x, TAG_FLOOD, MPI_COMM_WORLD, &req[i]);
        }
        double end = MPI_Wtime() + seconds;
        trickle_t t = { 0 };
        for (t.seq = 0; MPI_Wtime() < end; t.seq++) {
            t.sent = MPI_Wtime();
            MPI_Send(&t, (int)sizeof t, MPI_BYTE, echo, TAG_TRICKLE, MPI_COMM_WORLD);
            usleep(TRICKLE_US);
        }
        t.seq = -1;
        MPI_Send(&t, (int)sizeof t, MPI_BYTE, echo, TAG_TRICKLE, MPI_COMM_WORLD);
        MPI_Waitall(per_sender, req, MPI_STATUSES_IGNORE);
        free(req);
        free(flood);
    } else if (rank == x) {
        sleep((unsigned)seconds + 1); /* outside MPI: nothing is read meanwhile */
        int buf[MSG / sizeof(int)];
        for (int s = 0; s < nsenders; s++)
            for (int i = 0; i < per_sender; i++) {
                MPI_Recv(buf, MSG, MPI_BYTE, s, TAG_FLOOD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (buf[0] != i || buf[1] != s)
                    fail("flood message out of order or wrong", s, i);
            }
    } else {
        int *next = calloc((size_t)nsenders, sizeof *next), open = 0;
        for (int s = 0; s < nsenders; s++)
            open += x + 1 + s % nechoes == rank;
        while (open) {
            trickle_t t;
            MPI_Status st;
            MPI_Recv(&t, (int)sizeof t, MPI_BYTE, MPI_ANY_SOURCE, TAG_TRICKLE, MPI_COMM_WORLD,
                     &st);
            double delay = MPI_Wtime() - t.sent;
            if (t.seq < 0) {
                open--;
                continue;
            }
            if (t.seq != next[st.MPI_SOURCE]++)
                fail("trickle message out of order", st.MPI_SOURCE, t.seq);
            if (delay > worst)
                worst = delay;
        }
        free(next);
    }
    double all;
    MPI_Reduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (max_delay > 0 && all > max_delay) {
            fprintf(stderr, "gw_slowrank: a trickle message took %.3f s (limit %.3f s) while "
                    "rank %d stayed outside MPI\n", all, max_delay, x);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        printf("slowrank ok %.3f\n", all);
    }
    free(sites);
    MPI_Finalize();
    return 0;
}
