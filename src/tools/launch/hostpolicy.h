/*
 * The part of the job policy that applies on each host, shared by mpirun (a job on one host)
 * and metampi-hostd (one host of a job on several): where the host's ranks run (CPU binding)
 * and how a failed start is described. Errors come back as text; the caller reports them
 * (mpirun prints them, the helper sends them to mpirun). Warnings go through util_msg.
 *
 * Binding policy (binding.h does the placement), applied to the ranks of this host:
 *   - no --bind-to: each rank is bound to one core when there are at least as many cores
 *     as ranks, else no rank is bound; when hwloc cannot discover the topology or the
 *     system refuses a binding, one warning is printed and the ranks run unbound;
 *   - --bind-to core|hwthread|package: more ranks than cores (hardware threads for
 *     hwthread) is an error unless oversubscribe, which binds round-robin; a topology
 *     that cannot be discovered or a refused binding is an error (exit status 1);
 *   - --bind-to none binds nothing and never consults hwloc.
 */
#ifndef LAUNCH_HOSTPOLICY_H
#define LAUNCH_HOSTPOLICY_H

#include "binding.h"
#include "node.h"
#include "spawn.h"

#include <stddef.h>
#include <sys/types.h>

typedef struct hostpolicy {
    binding_t *binding;   /* NULL: hwloc not consulted or unavailable */
    node_binding_t bind;  /* the ranks' sets when bind.mask != NULL */
} hostpolicy_t;

/* Decides where the nranks ranks of this host run. 0, or -1 with the reason in err (the
 * job cannot start; exit status 1). */
int hostpolicy_bind(hostpolicy_t *hp, mpirun_bind_t policy, int nranks, int oversubscribe,
                    char *err, size_t errlen);
/* The node's binding for node_spec_t.binding (NULL: no rank is bound). */
const node_binding_t *hostpolicy_node_binding(const hostpolicy_t *hp);
/* --report-bindings: one line per rank, "[host:pid] rank R bound to <binding_describe>" or
 * "[host:pid] rank R not bound" (R = global[i], or i without global). malloc'ed. */
char *hostpolicy_report(const hostpolicy_t *hp, int nranks, const int *global,
                        const char *host, pid_t pid);
/* node_events_t.bind_refused for a binding the default policy chose (a preference): one
 * warning, the node's later ranks start unbound, the earlier ones are released. */
void hostpolicy_bind_refused(hostpolicy_t *hp, node_t *node, int rank, int err);
/* The rank of local index `local` (global rank `rank`) could not be started by node_spawn:
 * writes the report's text (without "mpirun: ") and returns the exit status (127: the
 * program cannot be executed, else 1). */
int hostpolicy_spawn_error(const hostpolicy_t *hp, const char *prog, int local, int rank,
                           const spawn_err_t *why, char *text, size_t cap);
void hostpolicy_close(hostpolicy_t *hp);

#endif
