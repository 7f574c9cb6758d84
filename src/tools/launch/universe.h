/*
 * MPI_UNIVERSE_SIZE on several hosts: mpirun tells every helper the slots of the job's host
 * list (at least the job's size) as one more pair of the JOB frame's initial key-value
 * pairs, UNIVERSE_KEY; the helper answers get_universe_size with it (its PMI server's
 * default is the job's size). On one host mpirun's own server answers (mpirun/local.c).
 */
#ifndef LAUNCH_UNIVERSE_H
#define LAUNCH_UNIVERSE_H

#define UNIVERSE_KEY "metampi.universe"

/* kv (2 * npairs strings: key, value, ...) plus the pair UNIVERSE_KEY = universe: a new
 * array of new strings, *nout pairs; free it with universe_kv_free. */
char **universe_kv(char *const *kv, int npairs, int universe, int *nout);
void universe_kv_free(char **kv, int npairs);
/* The universe a pair announces: > 0 when key is UNIVERSE_KEY and value a count, else 0. */
int universe_of_pair(const char *key, const char *value);

#endif
