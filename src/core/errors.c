#include "core/errors.h"

#include "core/comm.h"
#include "core/state.h"
#include "runtime/job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const struct {
    const char *name, *text;
} classes[] = {
    [MPI_SUCCESS] = {"MPI_SUCCESS", "no error"},
    [MPI_ERR_BUFFER] = {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    [MPI_ERR_COUNT] = {"MPI_ERR_COUNT", "invalid count argument"},
    [MPI_ERR_TYPE] = {"MPI_ERR_TYPE", "invalid datatype"},
    [MPI_ERR_TAG] = {"MPI_ERR_TAG", "invalid tag argument"},
    [MPI_ERR_COMM] = {"MPI_ERR_COMM", "invalid communicator"},
    [MPI_ERR_RANK] = {"MPI_ERR_RANK", "invalid rank"},
    [MPI_ERR_REQUEST] = {"MPI_ERR_REQUEST", "invalid request"},
    [MPI_ERR_ROOT] = {"MPI_ERR_ROOT", "invalid root"},
    [MPI_ERR_GROUP] = {"MPI_ERR_GROUP", "invalid group"},
    [MPI_ERR_OP] = {"MPI_ERR_OP", "invalid reduction operation"},
    [MPI_ERR_TOPOLOGY] = {"MPI_ERR_TOPOLOGY", "invalid topology"},
    [MPI_ERR_DIMS] = {"MPI_ERR_DIMS", "invalid dimension argument"},
    [MPI_ERR_ARG] = {"MPI_ERR_ARG", "invalid argument"},
    [MPI_ERR_UNKNOWN] = {"MPI_ERR_UNKNOWN", "unknown error"},
    [MPI_ERR_TRUNCATE] = {"MPI_ERR_TRUNCATE", "message truncated"},
    [MPI_ERR_OTHER] = {"MPI_ERR_OTHER", "other error"},
    [MPI_ERR_INTERN] = {"MPI_ERR_INTERN", "internal error"},
    [MPI_ERR_PENDING] = {"MPI_ERR_PENDING", "operation pending"},
    [MPI_ERR_IN_STATUS] = {"MPI_ERR_IN_STATUS", "error code is in status"},
    [MPI_ERR_ACCESS] = {"MPI_ERR_ACCESS", "permission denied"},
    [MPI_ERR_AMODE] = {"MPI_ERR_AMODE", "invalid access mode"},
    [MPI_ERR_ASSERT] = {"MPI_ERR_ASSERT", "invalid assert argument"},
    [MPI_ERR_BAD_FILE] = {"MPI_ERR_BAD_FILE", "invalid file name"},
    [MPI_ERR_BASE] = {"MPI_ERR_BASE", "invalid base address"},
    [MPI_ERR_CONVERSION] = {"MPI_ERR_CONVERSION", "data conversion failed"},
    [MPI_ERR_DISP] = {"MPI_ERR_DISP", "invalid displacement"},
    [MPI_ERR_DUP_DATAREP] = {"MPI_ERR_DUP_DATAREP", "data representation already defined"},
    [MPI_ERR_FILE_EXISTS] = {"MPI_ERR_FILE_EXISTS", "file exists"},
    [MPI_ERR_FILE_IN_USE] = {"MPI_ERR_FILE_IN_USE", "file in use"},
    [MPI_ERR_FILE] = {"MPI_ERR_FILE", "invalid file handle"},
    [MPI_ERR_INFO_KEY] = {"MPI_ERR_INFO_KEY", "invalid info key"},
    [MPI_ERR_INFO_NOKEY] = {"MPI_ERR_INFO_NOKEY", "info key not defined"},
    [MPI_ERR_INFO_VALUE] = {"MPI_ERR_INFO_VALUE", "invalid info value"},
    [MPI_ERR_INFO] = {"MPI_ERR_INFO", "invalid info object"},
    [MPI_ERR_IO] = {"MPI_ERR_IO", "I/O error"},
    [MPI_ERR_KEYVAL] = {"MPI_ERR_KEYVAL", "invalid attribute key"},
    [MPI_ERR_LOCKTYPE] = {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    [MPI_ERR_NAME] = {"MPI_ERR_NAME", "invalid service name"},
    [MPI_ERR_NO_MEM] = {"MPI_ERR_NO_MEM", "out of memory"},
    [MPI_ERR_NOT_SAME] = {"MPI_ERR_NOT_SAME", "arguments not the same on all processes"},
    [MPI_ERR_NO_SPACE] = {"MPI_ERR_NO_SPACE", "no space left"},
    [MPI_ERR_NO_SUCH_FILE] = {"MPI_ERR_NO_SUCH_FILE", "no such file"},
    [MPI_ERR_PORT] = {"MPI_ERR_PORT", "invalid port name"},
    [MPI_ERR_QUOTA] = {"MPI_ERR_QUOTA", "quota exceeded"},
    [MPI_ERR_READ_ONLY] = {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    [MPI_ERR_RMA_CONFLICT] = {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    [MPI_ERR_RMA_SYNC] = {"MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    [MPI_ERR_SERVICE] = {"MPI_ERR_SERVICE", "invalid service"},
    [MPI_ERR_SIZE] = {"MPI_ERR_SIZE", "invalid size"},
    [MPI_ERR_SPAWN] = {"MPI_ERR_SPAWN", "error spawning processes"},
    [MPI_ERR_UNSUPPORTED_DATAREP] = {"MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    [MPI_ERR_UNSUPPORTED_OPERATION] = {"MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation"},
    [MPI_ERR_WIN] = {"MPI_ERR_WIN", "invalid window"},
    [MPI_ERR_RMA_RANGE] = {"MPI_ERR_RMA_RANGE", "target memory outside the window"},
    [MPI_ERR_RMA_ATTACH] = {"MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    [MPI_ERR_RMA_SHARED] = {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    [MPI_ERR_RMA_FLAVOR] = {"MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
};

#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

const char *err_class_name(int errclass)
{
    return errclass >= 0 && errclass < NCLASSES ? classes[errclass].name : NULL;
}

const char *err_class_text(int errclass)
{
    return errclass >= 0 && errclass < NCLASSES ? classes[errclass].text : NULL;
}

static _Noreturn void fatal_report(int errclass, const char *func, const char *detail)
{
    char msg[MPI_MAX_ERROR_STRING + 256];
    if (state.phase == STATE_PRE_INIT)
        job_identify_early();
    const char *name = err_class_name(errclass);
    if (state.phase == STATE_INITIALIZED || state.phase == STATE_FINALIZED)
        snprintf(msg, sizeof msg, "%s: %s (%s)", func, detail, name ? name : "MPI_ERR_UNKNOWN");
    else
        snprintf(msg, sizeof msg, "%s: %s", func, detail);

    job_abort(errclass, msg);
}

#define FORMAT_DETAIL(detail, fmt)                                                             \
    char detail[MPI_MAX_ERROR_STRING];                                                         \
    va_list ap;                                                                                \
    va_start(ap, fmt);                                                                         \
    vsnprintf(detail, sizeof detail, fmt, ap);                                                 \
    va_end(ap)

void err_fatal(int errclass, const char *func, const char *fmt, ...)
{
    FORMAT_DETAIL(detail, fmt);
    fatal_report(errclass, func, detail);
}

int err_raise(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...)
{
    comm_t *c = comm_lookup(comm);
    if (!c)
        c = comm_lookup(MPI_COMM_WORLD);
    if (c->errhandler == MPI_ERRORS_RETURN)
        return errclass;
    FORMAT_DETAIL(detail, fmt);
    fatal_report(errclass, func, detail);
}
