/* MPI_Comm_spawn and MPI_Comm_spawn_multiple (MPI-3.1 §10.3): the arguments, the info keys
 * metampi reads (api/dynproc_info.h) and the error codes. The protocol: core/dynproc.h,
 * docs/dynproc.md. */
#include "api/api.h"
#include "api/dynproc_info.h"
#include "core/dynproc.h"
#include "core/info.h"
#include "core/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks root's arguments of application a: MPI_SUCCESS, or a class and the reason. */
static int check_app(int count, int a, const char *command, int maxprocs, MPI_Info info,
                     char *why, size_t cap)
{
    char which[32] = "";
    if (count > 1)
        snprintf(which, sizeof which, " of application %d", a);
    if (!command || !*command) {
        snprintf(why, cap, "the command%s is %s", which, command ? "empty" : "NULL");
        return MPI_ERR_ARG;
    }
    if (maxprocs <= 0) {
        snprintf(why, cap, "invalid maxprocs %d%s (must be positive)", maxprocs, which);
        return MPI_ERR_ARG;
    }
    if (info != MPI_INFO_NULL && !info_lookup(info)) {
        snprintf(why, cap, "invalid info handle 0x%x%s", (unsigned)info, which);
        return MPI_ERR_INFO;
    }
    return MPI_SUCCESS;
}

static int spawn(const char *F, int count, char *commands[], char **argvs[],
                 const int maxprocs[], const MPI_Info infos[], int root, MPI_Comm comm,
                 MPI_Comm *intercomm, int errcodes[])
{
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(intercomm, comm, F, "intercomm");
    if (comm_is_inter(c))
        return err_raise(comm, MPI_ERR_COMM, F, "comm is an inter-communicator");
    if (root < 0 || root >= c->size)
        return err_raise(comm, MPI_ERR_ROOT, F, "invalid root %d in a communicator of size %d",
                         root, c->size);
    /* the rest is significant at root only: a bad argument there fails every member */
    char why[384] = "";
    int bad = MPI_SUCCESS, total = 0;
    job_spawn_app_t *apps = NULL;
    spawn_info_t *si = NULL;   /* per application */
    int nsi = 0;
    if (c->rank == root) {
        apps = calloc((size_t)(count > 0 ? count : 1), sizeof *apps);
        si = calloc((size_t)(count > 0 ? count : 1), sizeof *si);
        if (!apps || !si) {
            bad = MPI_ERR_NO_MEM;
            snprintf(why, sizeof why, "out of memory");
        } else if (count <= 0) {
            bad = MPI_ERR_ARG;
            snprintf(why, sizeof why, "invalid count %d (must be positive)", count);
        } else if (!commands || !maxprocs) {
            bad = MPI_ERR_ARG;
            snprintf(why, sizeof why, "argument %s is NULL",
                     !commands ? "array_of_commands" : "array_of_maxprocs");
        }
        for (int a = 0; bad == MPI_SUCCESS && a < count; a++) {
            MPI_Info info = infos ? infos[a] : MPI_INFO_NULL;
            bad = check_app(count, a, commands[a], maxprocs[a], info, why, sizeof why);
            if (bad == MPI_SUCCESS && total > INT32_MAX - maxprocs[a]) {
                bad = MPI_ERR_ARG;
                snprintf(why, sizeof why, "too many processes in all");
            }
            if (bad != MPI_SUCCESS)
                break;
            total += maxprocs[a];   /* its error codes are filled from here on */
            if ((bad = spawn_info_read(info, &si[a], why, sizeof why)) != MPI_SUCCESS)
                break;
            nsi = a + 1;
            apps[a] = (job_spawn_app_t){ .command = commands[a],
                                         .argv = argvs ? argvs[a] : NULL,
                                         .maxprocs = maxprocs[a],
                                         .info = si[a].kv, .ninfo = si[a].n };
        }
    }
    comm_t *out = NULL;
    int spawned = 0;
    int rc = dynproc_spawn(c, root, apps, count, bad, why, &out, &spawned, why, sizeof why);
    free(apps);
    for (int a = 0; a < nsi; a++)
        spawn_info_free(&si[a]);
    free(si);
    /* errcodes: one per process asked for; metampi starts all of them or none. Root knows
     * how many it asked for; the others learn it from a success (as MPICH, they fill the
     * array too). */
    int ncodes = c->rank == root ? total : spawned;
    for (int i = 0; errcodes && i < ncodes; i++)
        errcodes[i] = rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_SPAWN;
    if (rc != MPI_SUCCESS) {
        *intercomm = MPI_COMM_NULL;
        if (rc == MPI_ERR_NOT_SAME)
            return err_raise(comm, rc, F, "the members called collective operations in "
                             "different orders: %s", match_last_clash());
        return err_raise(comm, rc, F, "%s", why);
    }
    *intercomm = out->handle;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info,
                               int root, MPI_Comm comm, MPI_Comm *intercomm,
                               int array_of_errcodes[])
{
    API_ENTER();
    static const char *const F = "MPI_Comm_spawn";
    state_require_initialized(F);
    char *cmd = (char *)command;
    char **argvs[1] = { argv };
    return spawn(F, 1, &cmd, argvs, &maxprocs, &info, root, comm, intercomm,
                 array_of_errcodes);
}
API_WEAK_ALIAS(Comm_spawn)

API_EXPORT int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[],
                                        char **array_of_argv[], const int array_of_maxprocs[],
                                        const MPI_Info array_of_info[], int root, MPI_Comm comm,
                                        MPI_Comm *intercomm, int array_of_errcodes[])
{
    API_ENTER();
    static const char *const F = "MPI_Comm_spawn_multiple";
    state_require_initialized(F);
    return spawn(F, count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info,
                 root, comm, intercomm, array_of_errcodes);
}
API_WEAK_ALIAS(Comm_spawn_multiple)
