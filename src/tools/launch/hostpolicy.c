#include "hostpolicy.h"

#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hostpolicy_bind(hostpolicy_t *hp, mpirun_bind_t policy, int nranks, int oversubscribe,
                    char *err, size_t errlen)
{
    memset(hp, 0, sizeof *hp);
    if (policy == MPIRUN_BIND_NONE)
        return 0;
    int e;
    hp->binding = binding_open(&e);
    if (!hp->binding) {
        if (policy == MPIRUN_BIND_DEFAULT) {
            util_msg("warning: cannot discover the CPU topology (%s); the job runs unbound",
                     strerror(e));
            return 0;
        }
        snprintf(err, errlen, "--bind-to %s: cannot discover the CPU topology: %s",
                 binding_policy_name(policy), strerror(e));
        return -1;
    }
    int required = 1;
    if (policy == MPIRUN_BIND_DEFAULT) {
        if (nranks > binding_slots(hp->binding, MPIRUN_BIND_CORE))
            return 0;
        policy = MPIRUN_BIND_CORE;
        required = 0;
    } else {
        int slots = binding_slots(hp->binding, policy);
        if (nranks > slots && !oversubscribe) {
            const char *unit = policy == MPIRUN_BIND_HWTHREAD ? "hardware thread" : "core";
            snprintf(err, errlen, "--bind-to %s: %d ranks but only %d %s%s available (use "
                     "--bind-to none, or --oversubscribe to bind the ranks round-robin)",
                     binding_policy_name(policy), nranks, slots, unit, slots == 1 ? "" : "s");
            return -1;
        }
    }
    binding_place(hp->binding, policy, nranks);
    hp->bind = (node_binding_t){ .policy = binding_policy_name(policy),
                                 .mask = binding_masks(hp->binding),
                                 .mask_size = binding_mask_size(hp->binding),
                                 .required = required };
    return 0;
}

const node_binding_t *hostpolicy_node_binding(const hostpolicy_t *hp)
{
    return hp->bind.mask ? &hp->bind : NULL;
}

char *hostpolicy_report(const hostpolicy_t *hp, int nranks, const int *global,
                        const char *host, pid_t pid)
{
    char *out = util_xstrdup("");
    size_t len = 0;
    for (int r = 0; r < nranks; r++) {
        char *where = hp->bind.mask ? binding_describe(hp->binding, r, 1) : NULL;
        size_t cap = strlen(host) + (where ? strlen(where) : 0) + 64;
        out = util_xrealloc(out, len + cap);
        len += (size_t)snprintf(out + len, cap, "[%s:%d] rank %d %s%s\n", host, (int)pid,
                                global ? global[r] : r, where ? "bound to " : "not bound",
                                where ? where : "");
        free(where);
    }
    return out;
}

void hostpolicy_bind_refused(hostpolicy_t *hp, node_t *node, int rank, int err)
{
    char *where = binding_describe(hp->binding, rank, 0);
    util_msg("warning: cannot bind rank %d to %s: %s; the job runs unbound",
             node_global(node, rank), where, strerror(err));
    free(where);
    node_drop_binding(node);
    for (int r = 0; r < rank; r++)
        binding_release(hp->binding, node->rank[r].pid);  /* best effort */
}

int hostpolicy_spawn_error(const hostpolicy_t *hp, const char *prog, int local, int rank,
                           const spawn_err_t *why, char *text, size_t cap)
{
    int err = why->err;
    if (why->stage == SPAWN_STAGE_BIND) {
        char *where = binding_describe(hp->binding, local, 0);
        snprintf(text, cap, "cannot bind rank %d to %s: %s", rank, where, strerror(err));
        free(where);
        return 1;
    }
    if (err == ENOENT || err == EACCES || err == ENOEXEC || err == EISDIR || err == ENOTDIR ||
        err == ELOOP || err == ENAMETOOLONG || err == ETXTBSY) {
        snprintf(text, cap, "cannot execute '%s': %s", prog, strerror(err));
        return 127;
    }
    snprintf(text, cap, "cannot start rank %d: %s", rank, strerror(err));
    return 1;
}

void hostpolicy_close(hostpolicy_t *hp)
{
    binding_close(hp->binding);
    hp->binding = NULL;
}
