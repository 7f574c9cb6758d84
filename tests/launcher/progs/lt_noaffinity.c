/*
 * LD_PRELOAD shim for the launcher tests: a system that refuses every CPU binding.
 * sched_setaffinity (what mpirun's children call before exec) fails with EPERM.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    (void)pid;
    (void)size;
    (void)set;
    errno = EPERM;
    return -1;
}
