/* File objects: opening (collective: creation by rank 0, then everyone), handles, closing,
 * deleting (errno.c maps errno to error classes). */
#include "io/file.h"

#include "core/errhandler.h"
#include "core/icoll.h"
#include "util/handles.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static handle_table_t table = HANDLE_TABLE_INIT(FILE_KIND, 1);
/* MPI-3.1 §13.7: files start with MPI_ERRORS_RETURN, the handler of MPI_FILE_NULL */
static MPI_Errhandler default_errhandler = MPI_ERRORS_RETURN;

io_file_t *io_lookup(MPI_File h)
{
    return handle_get(&table, h);
}

MPI_Errhandler io_default_errhandler(void)
{
    return default_errhandler;
}

void io_set_default_errhandler(MPI_Errhandler eh)
{
    errhandler_retain(eh);
    errhandler_release(default_errhandler);
    default_errhandler = eh;
}

static int access_flags(int amode)
{
    if (amode & MPI_MODE_RDONLY)
        return O_RDONLY;
    return amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
}

/* A descriptor, or minus an error class. Rank 0 creates the file (MPI_MODE_CREATE), so that
 * MPI_MODE_EXCL fails for everyone when the file existed before the call, and the others
 * never race it. */
static int create_at_root(const char *path, int amode)
{
    int flags = access_flags(amode) | O_CREAT | O_CLOEXEC;
    if (amode & MPI_MODE_EXCL)
        flags |= O_EXCL;
    int fd = open(path, flags, 0666);
    return fd >= 0 ? fd : -io_errno_class(errno);
}

static void destroy(io_file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    io_shared_free(f);
    if (f->comm)
        comm_free_handle(f->comm);
    if (f->info)
        info_destroy(f->info);
    if (f->etype)
        dtype_release(f->etype);
    if (f->filetype)
        dtype_release(f->filetype);
    if (f->fetype)
        dtype_release(f->fetype);
    if (f->ftype)
        dtype_release(f->ftype);
    errhandler_release(f->errhandler);
    free(f->aggr);
    free(f->site);
    free(f->local);
    free(f->path);
    free(f);
}

/* Every member learns the class of the first failure (lowest rank's), so all return it. */
static int agree(comm_t *c, int rc)
{
    int v[2] = { rc == MPI_SUCCESS ? c->size : c->rank, 0 };
    int all = icoll_allreduce_int(c, v, 1, ICOLL_MIN);
    if (all != MPI_SUCCESS)
        return all;
    if (v[0] == c->size)
        return MPI_SUCCESS;
    int cls = rc;
    all = icoll_bcast_ints(c, &cls, 1, v[0]);
    return all != MPI_SUCCESS ? all : cls;
}

int io_open(comm_t *c, const char *path, int amode, info_t *info, io_file_t **out)
{
    *out = NULL;
    io_file_t *f = calloc(1, sizeof *f);
    if (!f)
        return MPI_ERR_NO_MEM; /* too early to tell the others: a few bytes never fail */
    f->fd = -1;
    f->amode = amode;
    f->errhandler = default_errhandler;
    errhandler_retain(f->errhandler);
    f->etype = dtype_lookup(MPI_BYTE);
    f->filetype = dtype_lookup(MPI_BYTE);
    f->fetype = f->etype;
    f->ftype = f->filetype;
    strcpy(f->datarep, "native");
    int rc = comm_dup(c, &f->comm);
    if (rc != MPI_SUCCESS) {
        f->comm = NULL;
        destroy(f);
        return rc;
    }
    c = f->comm;
    f->path = strdup(path);
    io_hints_default(&f->hints);
    if (!f->path)
        rc = MPI_ERR_NO_MEM;
    int sites = io_sites_setup(f, info); /* collective: called by every member */
    rc = agree(c, rc != MPI_SUCCESS ? rc : sites);
    if (rc == MPI_SUCCESS && f->opens)
        rc = io_sites_path(f->site[c->rank], path, &f->local);
    /* creation first, by rank 0 (with metampi_file_sites=each, by each site's lowest rank),
     * then everyone opens what exists */
    if (amode & MPI_MODE_CREATE) {
        int created = MPI_SUCCESS;
        if (io_sites_keeper(f) && rc == MPI_SUCCESS) {
            int fd = create_at_root(f->local, amode);
            if (fd < 0)
                created = -fd;
            else
                f->fd = fd;
        }
        rc = agree(c, rc != MPI_SUCCESS ? rc : created);
    }
    if (rc == MPI_SUCCESS && f->fd < 0 && f->opens) {
        f->fd = open(f->local, access_flags(amode) | O_CLOEXEC);
        if (f->fd < 0)
            rc = io_errno_class(errno);
    }
    if (rc == MPI_SUCCESS && f->fd >= 0) {
        struct stat st;
        if (fstat(f->fd, &st) == 0 && S_ISDIR(st.st_mode))
            rc = MPI_ERR_BAD_FILE;
    }
    rc = agree(c, rc);
    if (rc == MPI_SUCCESS && (amode & MPI_MODE_APPEND)) {
        /* the pointers start at the end of the file (the view is the whole file in bytes);
         * members without the file take rank 0's */
        off_t end = f->opens ? lseek(f->fd, 0, SEEK_END) : 0;
        if (end < 0)
            rc = io_errno_class(errno);
        else
            f->pos = end;
        rc = agree(c, rc);
        int64_t at = f->pos;
        if (rc == MPI_SUCCESS && f->sites == IO_SITES_ROOT &&
            (rc = icoll_bcast_i64(c, &at, 1, 0)) == MPI_SUCCESS)
            f->pos = at;
    }
    if (rc == MPI_SUCCESS)
        rc = agree(c, io_hints_set(f, info));
    if (rc == MPI_SUCCESS)
        rc = agree(c, io_shared_create(f, f->pos));
    if (rc == MPI_SUCCESS && !(f->handle = handle_new(&table, f)))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        destroy(f);
        return rc;
    }
    *out = f;
    return MPI_SUCCESS;
}

int io_close(io_file_t *f)
{
    int rc = MPI_SUCCESS;
    if (f->fd >= 0 && close(f->fd) != 0)
        rc = io_errno_class(errno);
    f->fd = -1;
    io_shared_free(f); /* collective: after every member's last use of the pointer */
    /* everyone has closed before the file goes */
    int all = icoll_barrier(f->comm);
    if (all == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && io_sites_keeper(f) &&
        f->local && unlink(f->local) != 0 && rc == MPI_SUCCESS)
        rc = io_errno_class(errno);
    handle_release(&table, f->handle);
    destroy(f);
    return rc != MPI_SUCCESS ? rc : all;
}

int io_delete(const char *path)
{
    char *local;
    int rc = io_sites_path(io_sites_my_site(), path, &local);
    if (rc != MPI_SUCCESS) {
        free(local);
        return rc;
    }
    struct stat st;
    if (stat(local, &st) == 0 && S_ISDIR(st.st_mode))
        rc = MPI_ERR_BAD_FILE;
    else if (unlink(local) != 0)
        rc = io_errno_class(errno);
    free(local);
    return rc;
}
