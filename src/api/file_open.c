/* Opening, closing and deleting files, and their size (MPI-3.1 §13.2). The mechanism:
 * src/io/. */
#include "api/file_checks.h"

#include "core/errhandler.h"
#include "core/icoll.h"

#include <stdio.h>

#define MODE_ACCESS (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR)
#define MODE_ALL                                                                               \
    (MODE_ACCESS | MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE |                \
     MPI_MODE_UNIQUE_OPEN | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL)

/* MPI-3.1 §13.2.1: exactly one access mode; no creation of a read-only file; no
 * MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR. NULL, or what is wrong. */
static const char *amode_error(int amode)
{
    int access = amode & MODE_ACCESS;
    if (amode & ~MODE_ALL)
        return "unknown bits (not an MPI_MODE_* of MPI_File_open)";
    if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
        return "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is needed";
    if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR";
    return NULL;
}

API_EXPORT int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                              MPI_File *fh)
{
    API_ENTER();
    static const char *const F = "MPI_File_open";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    if (comm_is_inter(c))
        return err_raise(comm, MPI_ERR_COMM, F,
                         "files need an intra-communicator (%s is an inter-communicator)",
                         comm_name(comm));
    if (!filename)
        return file_raise_null(MPI_ERR_ARG, F, "argument filename is NULL");
    if (!fh)
        return file_raise_null(MPI_ERR_ARG, F, "argument fh is NULL");
    const char *bad = amode_error(amode);
    if (bad)
        return file_raise_null(MPI_ERR_AMODE, F, "invalid amode 0x%x: %s", (unsigned)amode,
                               bad);
    info_t *i = NULL;
    if (info != MPI_INFO_NULL && !(i = info_lookup(info)))
        return file_raise_null(MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    /* the same amode everywhere (erroneous otherwise, but a clear error rather than a
     * file opened differently by different members) */
    int modes[2] = { amode, -amode };
    int rc = icoll_allreduce_int(c, modes, 2, ICOLL_MAX);
    if (rc == MPI_SUCCESS && modes[0] != -modes[1])
        return file_raise_null(MPI_ERR_NOT_SAME, F,
                               "the members of %s passed different amodes (this one 0x%x)",
                               comm_name(comm), (unsigned)amode);
    io_file_t *f = NULL;
    if (rc == MPI_SUCCESS)
        rc = io_open(c, filename, amode, i, &f);
    if (rc != MPI_SUCCESS)
        return file_raise_null(rc, F, "cannot open '%s' (rank %d of %s)", filename, c->rank,
                               comm_name(comm));
    *fh = f->handle;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_open)

API_EXPORT int PMPI_File_close(MPI_File *fh)
{
    API_ENTER();
    static const char *const F = "MPI_File_close";
    state_require_initialized(F);
    if (!fh)
        return file_raise_null(MPI_ERR_ARG, F, "argument fh is NULL");
    API_GET_FILE(f, *fh, F);
    MPI_Errhandler eh = f->errhandler;
    errhandler_retain(eh);
    char path[256];
    snprintf(path, sizeof path, "%s", f->path);
    int rc = io_close(f);
    *fh = MPI_FILE_NULL;
    if (rc != MPI_SUCCESS)
        rc = err_raise_on(eh, MPI_FILE_NULL, rc, F, "closing '%s' failed", path);
    errhandler_release(eh);
    return rc;
}
API_WEAK_ALIAS(File_close)

API_EXPORT int PMPI_File_delete(const char *filename, MPI_Info info)
{
    API_ENTER();
    static const char *const F = "MPI_File_delete";
    state_require_initialized(F);
    if (!filename)
        return file_raise_null(MPI_ERR_ARG, F, "argument filename is NULL");
    if (info != MPI_INFO_NULL && !info_lookup(info))
        return file_raise_null(MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    int rc = io_delete(filename);
    if (rc != MPI_SUCCESS)
        return file_raise_null(rc, F, "cannot delete '%s'", filename);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_delete)

API_EXPORT int PMPI_File_sync(MPI_File fh)
{
    API_ENTER();
    static const char *const F = "MPI_File_sync";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    int rc = io_sync(f);
    return rc == MPI_SUCCESS ? rc : file_raise(f, rc, F, "fsync failed");
}
API_WEAK_ALIAS(File_sync)

/* set_size and preallocate: collective, the same size everywhere, a file open for writing */
static int resize(MPI_File fh, MPI_Offset size, int preallocate, const char *func)
{
    state_require_initialized(func);
    API_GET_FILE(f, fh, func);
    if (size < 0)
        return file_raise(f, MPI_ERR_ARG, func, "negative size %lld", (long long)size);
    int rc = file_check_not_sequential(f, func);
    if (rc == MPI_SUCCESS)
        rc = file_check_writable(f, func);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = preallocate ? io_preallocate(f, size) : io_set_size(f, size);
    if (rc != MPI_SUCCESS)
        return file_raise(f, rc, func, "cannot make the file %lld bytes long", (long long)size);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    API_ENTER();
    return resize(fh, size, 0, "MPI_File_set_size");
}
API_WEAK_ALIAS(File_set_size)

API_EXPORT int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    API_ENTER();
    return resize(fh, size, 1, "MPI_File_preallocate");
}
API_WEAK_ALIAS(File_preallocate)

API_EXPORT int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_size";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, size, F, "size");
    int rc = file_check_reachable(f, F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = io_get_size(f, size);
    return rc == MPI_SUCCESS ? rc : file_raise(f, rc, F, "fstat failed");
}
API_WEAK_ALIAS(File_get_size)
