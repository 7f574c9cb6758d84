/* MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE (MPI-3.1 §10.3.2-3): Fortran's ARGV is an array of
 * blank-padded CHARACTER elements ended by an all-blank one (MPI_ARGV_NULL: none), and
 * ARRAY_OF_ARGV(COUNT, *) holds command i's arguments in its row i. The strings, ARGV and the
 * other root-only arrays are read at the root alone: elsewhere they need not hold anything
 * (they may not even be ended by a blank element). */
#include "fortran/fortran.h"

#include <stdlib.h>
#include <string.h>

static void free_argv(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

/* The elements first, first + step, first + 2 step, ... (of len characters each) up to the
 * first blank one, as a NULL-terminated C argv in *out; 0, or -1 out of memory. */
static int argv_in(const char *first, size_t len, size_t step, char ***out)
{
    size_t n = 0;
    for (;; n++) {
        const char *e = first + n * step * len;
        size_t k = 0;
        while (k < len && e[k] == ' ')
            k++;
        if (k == len)
            break;
    }
    char **argv = calloc(n + 1, sizeof *argv);
    for (size_t i = 0; argv && i < n; i++)
        if (!(argv[i] = fstring_in(first + i * step * len, len))) {
            free_argv(argv);
            argv = NULL;
        }
    *out = argv;
    return argv ? 0 : -1;
}

/* Whether this process is root of comm (a bad comm or root: no, the C call reports it). */
static int at_root(int profiled, MPI_Fint comm, MPI_Fint root)
{
    int rank = -1, flag = 0, inter = 0;
    MPI_Initialized(&flag);
    if (!flag || P(profiled, MPI_Comm_test_inter)((MPI_Comm)comm, &inter) != MPI_SUCCESS ||
        inter)
        return 0;
    return P(profiled, MPI_Comm_rank)((MPI_Comm)comm, &rank) == MPI_SUCCESS && rank == root;
}

static int *errcodes_of(MPI_Fint *errcodes)
{
    return (void *)errcodes == (void *)&mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE
                                                                     : (int *)errcodes;
}

static void comm_spawn(int profiled, const char *command, const char *argv, MPI_Fint *maxprocs,
                       MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                       MPI_Fint *errcodes, MPI_Fint *ierror, size_t command_len,
                       size_t argv_len)
{
    char *c_command = NULL, **c_argv = NULL;
    int mine = at_root(profiled, *comm, *root), failed = 0;
    if (mine) {
        failed = !(c_command = fstring_in(command, command_len));
        if (!failed && argv != &mpi_fortran_argv_null_)
            failed = argv_in(argv, argv_len, 1, &c_argv) != 0;
    }
    if (failed) {
        free(c_command);
        F_RETURN(ierror, fstring_no_memory("MPI_Comm_spawn"));
        return;
    }
    MPI_Comm ic = MPI_COMM_NULL;
    int rc = P(profiled, MPI_Comm_spawn)(mine ? c_command : "", c_argv ? c_argv : MPI_ARGV_NULL,
                                         *maxprocs, (MPI_Info)*info, *root, (MPI_Comm)*comm, &ic,
                                         errcodes_of(errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = (MPI_Fint)ic;
    free(c_command);
    free_argv(c_argv);
    F_RETURN(ierror, rc);
}
F_ENTRIES(comm_spawn, COMM_SPAWN,
          (const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
           MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
           MPI_Fint *ierror, size_t command_len, size_t argv_len),
          comm_spawn, command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierror,
          command_len, argv_len)

static void comm_spawn_multiple(int profiled, MPI_Fint *count, const char *commands,
                                const char *argvs, MPI_Fint *maxprocs, MPI_Fint *infos,
                                MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                                MPI_Fint *errcodes, MPI_Fint *ierror, size_t commands_len,
                                size_t argvs_len)
{
    int mine = at_root(profiled, *comm, *root) && *count > 0, failed = 0;
    size_t n = mine ? (size_t)*count : 0;
    char **c_commands = mine ? calloc(n + 1, sizeof *c_commands) : NULL;
    char ***c_argvs = mine && argvs != &mpi_fortran_argvs_null_ ? calloc(n, sizeof *c_argvs)
                                                                 : NULL;
    failed = mine && (!c_commands || (argvs != &mpi_fortran_argvs_null_ && !c_argvs));
    for (size_t i = 0; !failed && i < n; i++) {
        failed = !(c_commands[i] = fstring_in(commands + i * commands_len, commands_len));
        if (!failed && c_argvs)
            failed = argv_in(argvs + i * argvs_len, argvs_len, n, &c_argvs[i]) != 0;
    }
    int rc = failed ? fstring_no_memory("MPI_Comm_spawn_multiple") : MPI_SUCCESS;
    if (!failed) {
        MPI_Comm ic = MPI_COMM_NULL;
        rc = P(profiled, MPI_Comm_spawn_multiple)(*count, c_commands,
                                                  c_argvs ? c_argvs : MPI_ARGVS_NULL, maxprocs,
                                                  (MPI_Info *)infos, *root, (MPI_Comm)*comm, &ic,
                                                  errcodes_of(errcodes));
        if (rc == MPI_SUCCESS)
            *intercomm = (MPI_Fint)ic;
    }
    for (size_t i = 0; c_commands && i < n; i++) {
        free(c_commands[i]);
        if (c_argvs)
            free_argv(c_argvs[i]);
    }
    free(c_commands);
    free(c_argvs);
    F_RETURN(ierror, rc);
}
F_ENTRIES(comm_spawn_multiple, COMM_SPAWN_MULTIPLE,
          (MPI_Fint *count, const char *commands, const char *argvs, MPI_Fint *maxprocs,
           MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
           MPI_Fint *errcodes, MPI_Fint *ierror, size_t commands_len, size_t argvs_len),
          comm_spawn_multiple, count, commands, argvs, maxprocs, infos, root, comm, intercomm,
          errcodes, ierror, commands_len, argvs_len)
