/* What a job of N ranks on one host costs in memory once every rank has talked to every
 * other (bench/metabench/scale, `run_benchmarks.py --only scale`).
 *
 * MPI_Init, an MPI_Allreduce and an MPI_Alltoall of 64 B per peer (longer than the shortest
 * inline frames, so the per-peer data paths exist too) over MPI_COMM_WORLD, both checked,
 * MPI_Barrier; then every rank reads its own smaps_rollup and the shared-memory files it maps
 * (proc_memory.h) while the others wait, and rank 0 also examines the launcher's processes:
 * the outermost ancestor whose command line names this program (mpirun, mpiexec) and all its
 * descendants but the ranks (helpers such as MPICH's hydra_pmi_proxy).
 * Rank 0 prints one line of key=value (sizes in kB):
 *
 *   scale ranks=N rss=R pss=P pss_shmem=S launcher_procs=L launcher_rss=.. launcher_pss=..
 *         launcher_pss_shmem=.. shm_files=F shm_file_kb=K shm_unknown=U total=T
 *         r0_private_pss=.. r0_file_pss=.. r0_shared_pss=.. r0_shared_maps=M r0_shared_size=..
 *
 * (the r0_ keys: rank 0's own Pss by kind of mapping, pm_read_kinds(), read with its rollup
 * before the gathers below, and how many shared mappings it has and their size: what one rank
 * of the job looks like).
 * total = pss - pss_shmem + launcher_pss - launcher_pss_shmem + shm_file_kb: see
 * proc_memory.h. Exit status 1 on wrong data or an unreadable /proc. */
#include "proc_memory.h"

#include <dirent.h>
#include <mpi.h>
#include <stdint.h>
#include <unistd.h>

#define ALLTOALL_BYTES 64

static int check_collectives(int rank, int size)
{
    long long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int bad = sum != (long long)size * (size + 1) / 2;
    unsigned char *out = malloc((size_t)size * ALLTOALL_BYTES);
    unsigned char *in = malloc((size_t)size * ALLTOALL_BYTES);
    if (!out || !in) {
        fprintf(stderr, "scale_memory: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int p = 0; p < size; p++)
        memset(out + (size_t)p * ALLTOALL_BYTES, (rank * 31 + p) & 0xff, ALLTOALL_BYTES);
    MPI_Alltoall(out, ALLTOALL_BYTES, MPI_BYTE, in, ALLTOALL_BYTES, MPI_BYTE, MPI_COMM_WORLD);
    for (int p = 0; p < size && !bad; p++)
        for (int b = 0; b < ALLTOALL_BYTES; b++)
            if (in[(size_t)p * ALLTOALL_BYTES + b] != ((p * 31 + rank) & 0xff)) {
                bad = 1;
                break;
            }
    free(out);
    free(in);
    if (bad)
        fprintf(stderr, "scale_memory: rank %d: wrong data from MPI_Allreduce or MPI_Alltoall\n",
                rank);
    return bad;
}

/* The launcher: the outermost ancestor of this process whose command line names this
 * program (mpirun, mpiexec), or -1. */
static long launcher_root(const char *program)
{
    long root = -1;
    for (long pid = pm_parent_of((long)getpid()), depth = 0; pid > 1 && depth < 64;
         pid = pm_parent_of(pid), depth++)
        if (pm_cmdline_mentions(pid, program))
            root = pid;
    return root;
}

static int descends_from(long pid, long root)
{
    for (int depth = 0; pid > 1 && depth < 64; depth++, pid = pm_parent_of(pid))
        if (pid == root)
            return 1;
    return 0;
}

/* The launcher's processes (its root and every descendant of it but the ranks, pids): their
 * rollups are summed into *launcher and their shared-memory files appended to files. Returns
 * how many there were. */
static int scan_launcher(const char *program, const int *pids, int size, pm_rollup_t *launcher,
                         pm_file_t **files, size_t *n, size_t *cap, int *unknown)
{
    long root = launcher_root(program);
    DIR *d = root > 0 ? opendir("/proc") : NULL;
    int count = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || !descends_from(pid, root))
            continue;
        int is_rank = 0;
        for (int r = 0; r < size && !is_rank; r++)
            is_rank = pids[r] == pid;
        pm_rollup_t r;
        if (is_rank || pm_read_rollup(e->d_name, &r) < 0)
            continue;
        launcher->rss += r.rss;
        launcher->pss += r.pss;
        launcher->pss_shmem += r.pss_shmem;
        count++;
        if (pm_shm_files(e->d_name, files, n, cap, unknown) < 0)
            (*unknown)++;
    }
    closedir(d);
    return count;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = check_collectives(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);

    pm_rollup_t mine;
    pm_kinds_t kinds;
    pm_file_t *files = NULL;
    size_t nfiles = 0, cap = 0;
    int unknown = 0;
    if (pm_read_rollup("self", &mine) < 0 || pm_read_kinds("self", &kinds) < 0 ||
        pm_shm_files("self", &files, &nfiles, &cap, &unknown) < 0) {
        fprintf(stderr, "scale_memory: rank %d: cannot read /proc/self/smaps_rollup or maps\n",
                rank);
        bad = 1;
        memset(&mine, 0, sizeof mine);
        memset(&kinds, 0, sizeof kinds);
    }
    long long sums[4] = {mine.rss, mine.pss, mine.pss_shmem, bad}, totals[4];
    MPI_Reduce(sums, totals, 4, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int pid = (int)getpid(), *pids = rank == 0 ? malloc(sizeof *pids * (size_t)size) : NULL;
    MPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int my_unknown = unknown;
    MPI_Reduce(&my_unknown, &unknown, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

    /* the files of every rank to rank 0, three unsigned long longs each */
    int count = (int)nfiles * 3, *counts = NULL, *displs = NULL;
    MPI_Gather(&count, 1, MPI_INT, rank == 0 ? (counts = malloc(sizeof *counts * (size_t)size))
                                               : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD);
    pm_file_t *all = NULL;
    size_t nall = 0;
    if (rank == 0) {
        displs = malloc(sizeof *displs * (size_t)size);
        long long at = 0;
        for (int r = 0; displs && counts && r < size; r++) {
            displs[r] = (int)at;
            at += counts[r];
        }
        nall = (size_t)at / 3;
        all = malloc((nall ? nall : 1) * sizeof *all);
        if (!pids || !counts || !displs || !all || at > INT32_MAX) {
            fprintf(stderr, "scale_memory: rank 0: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Gatherv(files, count, MPI_UNSIGNED_LONG_LONG, all, counts, displs,
                MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        pm_rollup_t launcher = {0};
        size_t cap_all = nall ? nall : 1;
        const char *slash = strrchr(argv[0], '/');
        int procs = scan_launcher(slash ? slash + 1 : argv[0], pids, size, &launcher, &all,
                                  &nall, &cap_all, &unknown);
        nall = pm_unique(all, nall);
        unsigned long long shm_bytes = 0;
        for (size_t i = 0; i < nall; i++)
            shm_bytes += all[i].bytes;
        long long shm_kb = (long long)(shm_bytes / 1024);
        long long total = totals[1] - totals[2] + launcher.pss - launcher.pss_shmem + shm_kb;
        printf("scale ranks=%d rss=%lld pss=%lld pss_shmem=%lld launcher_procs=%d "
               "launcher_rss=%lld launcher_pss=%lld launcher_pss_shmem=%lld shm_files=%zu "
               "shm_file_kb=%lld shm_unknown=%d total=%lld r0_private_pss=%lld "
               "r0_file_pss=%lld r0_shared_pss=%lld r0_shared_maps=%lld r0_shared_size=%lld\n",
               size, totals[0], totals[1], totals[2], procs, launcher.rss, launcher.pss,
               launcher.pss_shmem, nall, shm_kb, unknown, total, kinds.private_pss,
               kinds.file_pss, kinds.shared_pss, kinds.shared_maps, kinds.shared_size);
        fflush(stdout);
        bad = totals[3] != 0;
    }
    free(files);
    free(all);
    free(pids);
    free(counts);
    free(displs);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int fin = MPI_Finalize();
    return bad || fin != MPI_SUCCESS ? 1 : 0;
}
