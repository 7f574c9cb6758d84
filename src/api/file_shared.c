/* Data access with the shared file pointer (MPI-3.1 §13.4.4): independent (read_shared,
 * write_shared) and ordered collective (read_ordered, write_ordered), seek_shared and
 * get_position_shared. The pointer is a counter at rank 0 of the file, or one per site's file
 * at each site's lowest rank (io/shared.c). */
#include "api/file_access.h"

#include "core/icoll.h"

#include <stdlib.h>

/* Checks an access; *t and the etypes it covers */
static int check_access(io_file_t *f, int count, MPI_Datatype datatype, int write, dtype_t **t,
                        MPI_Offset *etypes, const char *func)
{
    int rc = write ? file_check_writable(f, func) : file_check_readable(f, func);
    if (rc == MPI_SUCCESS)
        rc = file_check_reachable(f, func);
    if (rc == MPI_SUCCESS)
        rc = file_check_data(f, count, datatype, t, func);
    if (rc == MPI_SUCCESS)
        *etypes = (MPI_Offset)count * io_rep_size(&f->rep, *t) / f->fetype->size;
    return rc;
}

static int move(io_file_t *f, MPI_Offset at, void *buf, int count, dtype_t *t, int write,
                MPI_Status *status, const char *func)
{
    size_t done = 0;
    MPI_Offset start = at * f->fetype->size;
    int rc = write ? io_write(f, start, buf, (size_t)count, t, &done)
                   : io_read(f, start, buf, (size_t)count, t, &done);
    file_set_status(f, t, status, done);
    if (rc != MPI_SUCCESS)
        return file_raise(f, rc, func, "%s at shared position %lld failed after %zu bytes",
                          write ? "writing" : "reading", (long long)at, done);
    return MPI_SUCCESS;
}

/* The pointer moves by the whole request first (atomically), then the data moves: accesses
 * of different members never overlap, in an order the file system does not decide. */
int file_access_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status, int write, const char *func)
{
    state_require_initialized(func);
    API_GET_FILE(f, fh, func);
    dtype_t *t;
    MPI_Offset n, at;
    int rc = check_access(f, count, datatype, write, &t, &n, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = io_shared_fetch_add(f, n, &at)) != MPI_SUCCESS)
        return file_raise(f, rc, func, "cannot move the shared file pointer");
    return move(f, at, buf, count, t, write, status, func);
}

API_EXPORT int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                     MPI_Status *status)
{
    API_ENTER();
    return file_access_shared(fh, buf, count, datatype, status, 0, "MPI_File_read_shared");
}
API_WEAK_ALIAS(File_read_shared)

API_EXPORT int PMPI_File_write_shared(MPI_File fh, const void *buf, int count,
                                      MPI_Datatype datatype, MPI_Status *status)
{
    API_ENTER();
    return file_access_shared(fh, (void *)buf, count, datatype, status, 1, "MPI_File_write_shared");
}
API_WEAK_ALIAS(File_write_shared)

/* Collective: rank order. Every member's size is gathered, rank 0 moves the pointer by the
 * total and broadcasts where it was; member r starts after the data of ranks 0..r-1. A member
 * whose checks failed takes part with nothing, so none waits, and returns its error. */
int file_access_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status, int write, const char *func)
{
    state_require_initialized(func);
    API_GET_FILE(f, fh, func);
    dtype_t *t = NULL;
    MPI_Offset n = 0;
    int bad = check_access(f, count, datatype, write, &t, &n, func);
    if (bad != MPI_SUCCESS)
        n = 0;
    int size = f->comm->size, rank = f->comm->rank;
    /* every member's count, then every holder's (base, outcome) */
    int64_t mine = (int64_t)n, *all = malloc(2 * (size_t)size * sizeof *all);
    if (!all)
        return file_raise(f, MPI_ERR_NO_MEM, func, "out of memory");
    int rc = icoll_allgather_u64(f->comm, (uint64_t *)&mine, 1, (uint64_t *)all);
    /* in rank order among the members that share this member's pointer */
    int holder = io_shared_holder(f);
    int64_t before = 0, total = 0;
    for (int r = 0; r < size; r++) {
        if (f->sites == IO_SITES_EACH && f->site[r] != f->site[rank])
            continue; /* another site's file, another pointer */
        if (r < rank)
            before += all[r];
        total += all[r];
    }
    MPI_Offset base = 0;
    int moved = MPI_SUCCESS;
    if (rc == MPI_SUCCESS && rank == holder)
        moved = io_shared_fetch_add(f, (MPI_Offset)total, &base);
    /* every holder's (base, outcome) to everyone; each takes its holder's */
    int64_t b[2] = { (int64_t)base, moved };
    if (rc == MPI_SUCCESS)
        rc = icoll_allgather_u64(f->comm, (uint64_t *)b, 2, (uint64_t *)all);
    b[0] = all[2 * holder], b[1] = all[2 * holder + 1];
    free(all);
    if (bad != MPI_SUCCESS)
        return bad;
    if (rc == MPI_SUCCESS)
        rc = (int)b[1];
    if (rc != MPI_SUCCESS)
        return file_raise(f, rc, func, "cannot move the shared file pointer");
    return move(f, (MPI_Offset)b[0] + before, buf, count, t, write, status, func);
}

API_EXPORT int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                      MPI_Status *status)
{
    API_ENTER();
    return file_access_ordered(fh, buf, count, datatype, status, 0, "MPI_File_read_ordered");
}
API_WEAK_ALIAS(File_read_ordered)

API_EXPORT int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count,
                                       MPI_Datatype datatype, MPI_Status *status)
{
    API_ENTER();
    return file_access_ordered(fh, (void *)buf, count, datatype, status, 1,
                          "MPI_File_write_ordered");
}
API_WEAK_ALIAS(File_write_ordered)

/* Collective: after a barrier (every member's earlier shared access is complete) each holder
 * sets its pointer and the worst outcome reaches everyone (so later accesses see the new
 * value). */
API_EXPORT int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    API_ENTER();
    static const char *const F = "MPI_File_seek_shared";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    int bad = whence == MPI_SEEK_SET || whence == MPI_SEEK_CUR || whence == MPI_SEEK_END
                  ? MPI_SUCCESS : MPI_ERR_ARG;
    int rc = icoll_barrier(f->comm);
    int outcome = bad;
    if (rc == MPI_SUCCESS && io_sites_keeper(f) && bad == MPI_SUCCESS) {
        MPI_Offset base = 0, size;
        if (whence == MPI_SEEK_CUR)
            base = io_shared_local_get(f);
        else if (whence == MPI_SEEK_END) {
            outcome = io_get_size(f, &size);
            if (outcome == MPI_SUCCESS)
                base = (io_view_bytes_below(f, size) + f->fetype->size - 1) / f->fetype->size;
        }
        if (outcome == MPI_SUCCESS && base + offset < 0)
            outcome = MPI_ERR_ARG;
        if (outcome == MPI_SUCCESS)
            io_shared_local_set(f, base + offset);
    }
    if (rc == MPI_SUCCESS)
        rc = icoll_allreduce_int(f->comm, &outcome, 1, ICOLL_MAX);
    if (rc == MPI_SUCCESS)
        rc = bad != MPI_SUCCESS ? bad : outcome;
    if (rc != MPI_SUCCESS)
        return file_raise(f, rc, F,
                          bad != MPI_SUCCESS ? "whence %d is none of MPI_SEEK_SET, "
                                               "MPI_SEEK_CUR, MPI_SEEK_END"
                                             : "cannot move the shared pointer (whence %d): "
                                               "before the start of the view?",
                          whence);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_seek_shared)

API_EXPORT int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_position_shared";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, offset, F, "offset");
    int rc = io_shared_fetch_add(f, 0, offset);
    return rc == MPI_SUCCESS ? rc : file_raise(f, rc, F, "cannot read the shared pointer");
}
API_WEAK_ALIAS(File_get_position_shared)
