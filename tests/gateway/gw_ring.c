/*
 * An MPI program that checks every message while a WAN link is cut and restored under it:
 * round after round, every rank sends a message of a size that varies with the round (1 B to
 * 256 KiB, the large ones in pieces across the WAN) to the next rank of the ring, tagged and
 * filled with (sender, round), and checks the one from the previous rank; every 8 rounds an
 * MPI_Allreduce of a running checksum is compared with the sum every rank can compute. Rank 0
 * decides when to stop (after SECONDS, argv[1]) through the same Allreduce. Prints "ring
 * running" at rank 0 once the first round is done (the scenario's cue), and at the end "ring ok
 * ROUNDS CHECKSUM" (the checksum is a function of the rounds alone).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char fill(int sender, int round, size_t i)
{
    return (unsigned char)((size_t)sender * 131u + (size_t)round * 7u + i * 13u);
}

static size_t size_of(int round)
{
    return (size_t)1 << (round % 19); /* 1 B .. 256 KiB */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 1;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t max = size_of(18);
    unsigned char *out = malloc(max), *in = malloc(max);
    uint64_t sum = 0; /* sum over rounds and senders of what each rank received */
    double start = MPI_Wtime();
    int round = 0;
    for (int go = 1; go; round++) {
        size_t n = size_of(round);
        for (size_t i = 0; i < n; i++)
            out[i] = fill(rank, round, i);
        MPI_Sendrecv(out, (int)n, MPI_BYTE, next, round % 1000, in, (int)n, MPI_BYTE, prev,
                     round % 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < n; i++)
            if (in[i] != fill(prev, round, i)) {
                fprintf(stderr, "rank %d: round %d: byte %zu of %zu from rank %d is wrong\n",
                        rank, round, i, n, prev);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        sum += (uint64_t)in[n / 2] + (uint64_t)round * (uint64_t)prev;
        if (round % 8 == 7) {
            /* (checksum, go): every rank's sum, and rank 0's verdict */
            uint64_t mine[2] = { sum, rank == 0 ? (uint64_t)(MPI_Wtime() - start < seconds)
                                                : 0 };
            uint64_t all[2];
            MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            uint64_t want = 0;
            for (int r = 0; r <= round; r++)
                for (int p = 0; p < size; p++)
                    want += (uint64_t)fill(p, r, size_of(r) / 2) + (uint64_t)r * (uint64_t)p;
            if (all[0] != want) {
                fprintf(stderr, "rank %d: round %d: checksum %llu, expected %llu\n", rank,
                        round, (unsigned long long)all[0], (unsigned long long)want);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
            go = all[1] != 0;
        }
        if (rank == 0 && round == 0) {
            printf("ring running\n");
            fflush(stdout);
        }
    }
    uint64_t total;
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring ok %d %llu\n", round, (unsigned long long)total);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
