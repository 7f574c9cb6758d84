/*
 * The processes this one knows: its own part of the job (MPI_COMM_WORLD, job ranks
 * 0..job.size-1) and, once spawning or connecting joined them (docs/dynproc.md), processes of
 * other parts, numbered job.size, job.size + 1, ... in the order they became known. These
 * numbers are what groups, the protocols and the transports call "job ranks"; they are this
 * process's own. Across processes a process is named by its part's kvsname and its rank
 * there, or by its job-wide number (its part's base + that rank, which mpirun hands out and
 * the TCP transport's handshake carries).
 *
 * Invariant: a process appears once, whatever name it is met under (its job-wide number
 * decides: a federated job's world has one kvsname per site); numbers never change.
 */
#ifndef METAMPI_PROCS_H
#define METAMPI_PROCS_H

/* Reads this part's base (metampi.part.base; 0 without one), once. 0, or -1 (err). Before
 * any other call. */
int procs_init(char *err, int errlen);
void procs_finalize(void);
/* job.size + the processes of other parts known so far. */
int procs_total(void);
/* The job rank of process `rank` of part kvsname, adding it (and reading its part's base the
 * first time) when new; -1 with a message on failure. */
int procs_add(const char *kvsname, int rank, char *err, int errlen);
/* The part kvsname and rank in it of job rank r. */
const char *procs_kvsname(int r);
int procs_part_rank(int r);
/* Job-wide number of job rank r; the job rank of job-wide number id, or -1 when unknown. */
int procs_id(int r);
int procs_of_id(int id);

#endif
