/* The file's size and durability: sync, set_size, preallocate, get_size. The collective
 * ones change the file at rank 0 alone (with a file per site, at each site's lowest rank:
 * io_sites_keeper), then synchronize, so every member sees the new size
 * when the call returns at it. */
#include "io/file.h"

#include "core/icoll.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every member returns the keepers' result (rank 0's, or with a file per site the worst of
 * the sites' lowest ranks), after the collective that orders the change. */
static int from_root(io_file_t *f, int rc)
{
    int all = icoll_allreduce_int(f->comm, &rc, 1, ICOLL_MAX);
    return all != MPI_SUCCESS ? all : rc;
}

int io_sync(io_file_t *f)
{
    int rc = f->fd < 0 || fsync(f->fd) == 0 || errno == EINVAL ? MPI_SUCCESS
                                                                : io_errno_class(errno);
    int all = icoll_barrier(f->comm);
    return rc != MPI_SUCCESS ? rc : all;
}

int io_set_size(io_file_t *f, MPI_Offset size)
{
    int rc = MPI_SUCCESS;
    if (io_sites_keeper(f) && ftruncate(f->fd, (off_t)size) != 0)
        rc = io_errno_class(errno);
    return from_root(f, rc);
}

int io_preallocate(io_file_t *f, MPI_Offset size)
{
    int rc = MPI_SUCCESS;
    if (io_sites_keeper(f) && size > 0) {
        /* posix_fallocate returns the error instead of setting errno */
        int err = posix_fallocate(f->fd, 0, (off_t)size);
        if (err == EOPNOTSUPP || err == EINVAL) {
            /* a file system without fallocate: at least the size (MPI-3.1 §13.2.5) */
            struct stat st;
            err = fstat(f->fd, &st) != 0 ? errno
                  : st.st_size < size && ftruncate(f->fd, (off_t)size) != 0 ? errno : 0;
        }
        if (err)
            rc = io_errno_class(err);
    }
    return from_root(f, rc);
}

int io_get_size(io_file_t *f, MPI_Offset *size)
{
    struct stat st;
    if (f->fd < 0)
        return MPI_ERR_UNSUPPORTED_OPERATION; /* the file is at another site (sites.c) */
    if (fstat(f->fd, &st) != 0)
        return io_errno_class(errno);
    *size = (MPI_Offset)st.st_size;
    return MPI_SUCCESS;
}
