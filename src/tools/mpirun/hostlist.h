/*
 * The hosts of a job, from --host and --hostfile: an ordered list of unique names with a
 * slot count each. The first mention of a name fixes its position (its host index in
 * PMI_process_mapping); later mentions add slots (Open MPI's rule: "a,a,b" is a:2,b:1).
 *
 * --host LIST: comma-separated "name" (one slot) or "name:N".
 * --hostfile FILE: one host per line, "name", "name slots=N" (Open MPI) or "name:N" (MPICH);
 * '#' starts a comment; blank lines are ignored.
 * Names: letters, digits, '.', '-', '_', at most HOSTLIST_NAME_MAX characters, not starting
 * with '-' (a name is passed to the launch agent as an argument).
 */
#ifndef MPIRUN_HOSTLIST_H
#define MPIRUN_HOSTLIST_H

#include <stddef.h>

/* The most ranks of a job (slots of a host, -n). */
#define MPIRUN_MAX_RANKS 4096
#define HOSTLIST_NAME_MAX 253
#define HOSTLIST_MAX_HOSTS 1024

typedef struct host_entry {
    char *name;
    int slots;
} host_entry_t;

typedef struct hostlist {
    host_entry_t *h;
    int n;
} hostlist_t;

/* Each returns 0, or -1 with a message naming the bad part in err. */
int hostlist_add_arg(hostlist_t *l, const char *arg, char *err, size_t errlen);
int hostlist_read_file(hostlist_t *l, const char *path, char *err, size_t errlen);
/* One "NAME" or "NAME:SLOTS" of s[0..len) (no surrounding blanks): 0 with the name's span
 * and the slots (1 without ":SLOTS"), or -1 when it is not valid. */
int hostlist_parse_entry(const char *s, size_t len, const char **name, size_t *nlen,
                         int *slots);
/* The index of the host named name[0..len), or -1. */
int hostlist_find(const hostlist_t *l, const char *name, size_t len);
/* Adds a host (or slots to a known one); 0, or -1 with a message when the list is full. */
int hostlist_add(hostlist_t *l, const char *name, size_t len, int slots, char *err,
                 size_t errlen);
/* Total slots (saturates at a large value, no overflow). */
long hostlist_slots(const hostlist_t *l);
void hostlist_free(hostlist_t *l);

#endif
