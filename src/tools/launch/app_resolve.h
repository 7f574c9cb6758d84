/*
 * The program of a spawned application (MPI_Comm_spawn's command, info key "path"), resolved
 * where its ranks start: mpirun on one host, the host's helper on several.
 */
#ifndef LAUNCH_APP_RESOLVE_H
#define LAUNCH_APP_RESOLVE_H

/* First in pathdir (NULL or "": none) when execname has no '/', then like execvp; the result
 * is absolute, since the rank may start in another directory (wdir). 0 and a malloc'ed
 * *path, or an errno value. */
int app_resolve(const char *execname, const char *pathdir, char **path);

#endif
