/*
 * mpirun --report and --report-file F.json (docs/report.md): where the job's traffic went.
 *
 * The ranks (METAMPI_REPORT=1, core/traffic.h) hand their reports to the PMI key-value space
 * at MPI_Finalize, "metampi-report.<rank>" = the number of pieces and
 * "metampi-report.<rank>.<i>" = the pieces, then pass a PMI barrier: on one host mpirun's
 * own PMI server keeps them (report_kvs_from), on several hosts they arrive in the helpers'
 * KVS frames at that barrier (report_kv). The site gateways' counters arrive as text lines
 * from their helpers (report_gateway). At the end, report_finish adds everything up, prints
 * the table on stderr (--report) and writes the JSON file (--report-file), which was opened
 * before anything started so that a bad path fails at once.
 *
 * One report per mpirun: a part of a federated job (--rendezvous) reports its own site's
 * ranks and gateway (its key-value space is its site's).
 */
#ifndef MPIRUN_REPORT_H
#define MPIRUN_REPORT_H

#include "kvs.h"
#include "options.h"

/* Before the job starts: 0, or -1 after a message (the file cannot be written). */
int report_open(const mpirun_opts_t *o);
int report_wanted(void);
/* The ranks this mpirun runs: first .. first + np - 1 of a job of size ranks (default: the
 * whole job, o->np). */
void report_set_ranks(int size, int first, int np);
/* A key-value pair mpirun saw: 1 when it is a piece of a report, kept for the report (with
 * --report or --report-file), else 0 (ignored). */
int report_kv(const char *key, const char *value);
/* Every report of space kv (one host: mpirun's own PMI server). */
void report_kvs_from(const kvs_t *kv);
/* A helper's text of gateway counters: lines "metampi-gateway-stats site=S to=T k=v ...". */
void report_gateway(const char *text);
/* After the job: prints and writes the report, frees everything. */
void report_finish(int status);

#endif
