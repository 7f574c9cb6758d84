/* What a path means in a job across sites (docs/io.md, "Paths in a job across sites"): the
 * info key metampi_file_sites of MPI_File_open, rank 0's value for everyone:
 *
 *   shared (default)  every member reaches the same file under the path (one host, a
 *                     cluster's shared file system, sites sharing one file system);
 *   root              the file lives on the file system of the site of rank 0 of the
 *                     communicator: only the members of that site open it; collective data
 *                     access aggregates there (aggregators of that site alone, so the data of
 *                     the other sites crosses the WAN once); the other members cannot access
 *                     it independently (MPI_ERR_UNSUPPORTED_OPERATION);
 *   each              every site has its own file of that name: the lowest rank of each site
 *                     creates, resizes and deletes it, and collective access aggregates per
 *                     site (no file data crosses the WAN).
 *
 * The emulated metacomputer runs every site on one machine; METAMPI_IO_SITE_DIRS=DIR gives
 * each site a file system of its own for relative paths: a member at site S opens DIR/S/path
 * (DIR/S created when missing), so the modes can be told apart in tests. */
#include "io/file.h"

#include "core/errors.h"
#include "core/icoll.h"
#include "core/p2p.h"
#include "runtime/sites.h"
#include "runtime/tunables.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int io_sites_setup(io_file_t *f, const info_t *info)
{
    comm_t *c = f->comm;
    int mode = IO_SITES_SHARED;
    /* a value not understood is the default, like any hint; rank 0's choice for everyone */
    const char *v = info ? info_get(info, "metampi_file_sites") : NULL;
    if (v && strcmp(v, "root") == 0)
        mode = IO_SITES_ROOT;
    else if (v && strcmp(v, "each") == 0)
        mode = IO_SITES_EACH;
    /* rank 0's mode and its map of the members' sites: the members' own maps may number
     * the sites differently (the parts of a job grown by MPI_Comm_spawn), and everything
     * decided from the map (who opens, the aggregators, two-phase's domains) must agree */
    int *all = malloc(((size_t)c->size + 1) * sizeof *all);
    if (!all) /* the others wait in the broadcast: the job cannot go on */
        err_fatal(MPI_ERR_NO_MEM, "MPI_File_open", "out of memory for %d sites", c->size);
    all[0] = mode;
    for (int r = 0; r < c->size; r++)
        all[r + 1] = p2p_site_of(comm_peer_world_rank(c, r));
    int rc = icoll_bcast_ints(c, all, c->size + 1, 0);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    f->sites = all[0];
    memmove(all, all + 1, (size_t)c->size * sizeof *all);
    f->site = all;
    f->site_leader = 0;
    while (f->site[f->site_leader] != f->site[c->rank])
        f->site_leader++;
    f->opens = mode != IO_SITES_ROOT || f->site[c->rank] == f->site[0];
    return MPI_SUCCESS;
}

int io_sites_path(int site_of_caller, const char *path, char **out)
{
    *out = NULL;
    const char *dirs = tun_string(TUN_IO_SITE_DIRS);
    if (!dirs || !*dirs || path[0] == '/') {
        *out = strdup(path);
        return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    const char *name = sites_name(site_of_caller);
    char site[32];
    if (!name || !*name) {
        snprintf(site, sizeof site, "site%d", site_of_caller);
        name = site;
    }
    size_t n = strlen(dirs) + strlen(name) + strlen(path) + 3;
    if (!(*out = malloc(n)))
        return MPI_ERR_NO_MEM;
    snprintf(*out, n, "%s/%s", dirs, name);
    if (mkdir(*out, 0777) != 0 && errno != EEXIST)
        return io_errno_class(errno);
    snprintf(*out, n, "%s/%s/%s", dirs, name, path);
    return MPI_SUCCESS;
}

int io_sites_my_site(void)
{
    comm_t *w = comm_lookup(MPI_COMM_WORLD);
    return w ? p2p_site_of(comm_peer_world_rank(w, w->rank)) : 0;
}

int io_sites_same_file(const io_file_t *f, int r)
{
    switch (f->sites) {
    case IO_SITES_ROOT:
        return f->site[r] == f->site[0];
    case IO_SITES_EACH:
        return f->site[r] == f->site[f->comm->rank];
    default:
        return 1;
    }
}

int io_sites_keeper(const io_file_t *f)
{
    return f->sites == IO_SITES_EACH ? f->comm->rank == f->site_leader : f->comm->rank == 0;
}
