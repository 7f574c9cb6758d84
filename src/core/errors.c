#include "core/errors.h"

#include "core/comm.h"
#include "core/errhandler.h"
#include "core/lock.h"
#include "core/state.h"
#include "runtime/job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    [MPI_T_ERR_MEMORY] = {"MPI_T_ERR_MEMORY", "out of memory (tools interface)"},
    [MPI_T_ERR_NOT_INITIALIZED] = {"MPI_T_ERR_NOT_INITIALIZED", "the tools interface is not initialized"},
    [MPI_T_ERR_CANNOT_INIT] = {"MPI_T_ERR_CANNOT_INIT", "the tools interface cannot be initialized"},
    [MPI_T_ERR_INVALID_INDEX] = {"MPI_T_ERR_INVALID_INDEX", "invalid or deleted variable or category index"},
    [MPI_T_ERR_INVALID_ITEM] = {"MPI_T_ERR_INVALID_ITEM", "invalid item index of an enumeration"},
    [MPI_T_ERR_INVALID_HANDLE] = {"MPI_T_ERR_INVALID_HANDLE", "invalid tools-interface handle"},
    [MPI_T_ERR_OUT_OF_HANDLES] = {"MPI_T_ERR_OUT_OF_HANDLES", "no more tools-interface handles"},
    [MPI_T_ERR_OUT_OF_SESSIONS] = {"MPI_T_ERR_OUT_OF_SESSIONS", "no more performance-variable sessions"},
    [MPI_T_ERR_INVALID_SESSION] = {"MPI_T_ERR_INVALID_SESSION", "invalid performance-variable session"},
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = {"MPI_T_ERR_CVAR_SET_NOT_NOW", "the control variable cannot be set now"},
    [MPI_T_ERR_CVAR_SET_NEVER] = {"MPI_T_ERR_CVAR_SET_NEVER", "the control variable can never be set"},
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = {"MPI_T_ERR_PVAR_NO_STARTSTOP", "the performance variable cannot be started or stopped"},
    [MPI_T_ERR_PVAR_NO_WRITE] = {"MPI_T_ERR_PVAR_NO_WRITE", "the performance variable cannot be written or reset"},
    [MPI_T_ERR_PVAR_NO_ATOMIC] = {"MPI_T_ERR_PVAR_NO_ATOMIC", "the performance variable cannot be read and reset atomically"},
    [MPI_T_ERR_INVALID_NAME] = {"MPI_T_ERR_INVALID_NAME", "no variable or category of that name"},
    [MPI_T_ERR_INVALID] = {"MPI_T_ERR_INVALID", "invalid use of the tools interface"},
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

/* ---- user-defined classes and codes ------------------------------------------------------ */

typedef struct user_code {
    int errclass;   /* itself for a class */
    char *string;   /* NULL until MPI_Add_error_string */
} user_code_t;

static user_code_t *user_codes; /* user_codes[i] is code MPI_ERR_LASTCODE + 1 + i */
static int nuser, user_cap;
static int last_used_code = MPI_ERR_LASTCODE;

static const user_code_t *user_code(int code)
{
    if (code <= MPI_ERR_LASTCODE || code > MPI_ERR_LASTCODE + nuser)
        return NULL;
    return &user_codes[code - MPI_ERR_LASTCODE - 1];
}

static int add_code(int errclass, int *code)
{
    if (nuser == user_cap) {
        int cap = user_cap ? 2 * user_cap : 16;
        user_code_t *u = realloc(user_codes, (size_t)cap * sizeof *u);
        if (!u)
            return MPI_ERR_NO_MEM;
        user_codes = u;
        user_cap = cap;
    }
    int c = MPI_ERR_LASTCODE + 1 + nuser;
    user_codes[nuser++] = (user_code_t){ errclass < 0 ? c : errclass, NULL };
    last_used_code = c;
    *code = c;
    return MPI_SUCCESS;
}

int err_add_class(int *errclass)
{
    return add_code(-1, errclass);
}

int err_add_code(int errclass, int *errcode)
{
    return add_code(errclass, errcode);
}

int err_is_class(int errclass)
{
    const user_code_t *u = user_code(errclass);
    return err_class_name(errclass) != NULL || (u && u->errclass == errclass);
}

int err_code_class(int code)
{
    if (err_class_name(code))
        return code; /* our predefined codes are the classes themselves */
    const user_code_t *u = user_code(code);
    return u ? u->errclass : -1;
}

int err_set_string(int code, const char *string)
{
    user_code_t *u = (user_code_t *)user_code(code);
    char *copy = strdup(string);
    if (!copy)
        return MPI_ERR_NO_MEM;
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}

const char *err_user_string(int code)
{
    const user_code_t *u = user_code(code);
    return u ? (u->string ? u->string : "") : NULL;
}

int *err_last_used_code(void)
{
    return &last_used_code;
}

/* ---- raising ------------------------------------------------------------------------------- */

/* "(MPI_ERR_RANK)", or a user code's string and number */
static void describe(int code, char *buf, size_t len)
{
    const char *name = err_class_name(code), *user = err_user_string(code);
    if (name)
        snprintf(buf, len, "(%s)", name);
    else if (user && user[0])
        snprintf(buf, len, "(error code %d: %s)", code, user);
    else if (user)
        snprintf(buf, len, "(user-defined error code %d)", code);
    else
        snprintf(buf, len, "(error code %d, MPI_ERR_UNKNOWN)", code);
}

static _Noreturn void fatal_report(int errclass, const char *func, const char *detail)
{
    char msg[3 * MPI_MAX_ERROR_STRING], what[MPI_MAX_ERROR_STRING + 64];
    if (state.phase == STATE_PRE_INIT)
        job_identify_early();
    if (state.phase == STATE_INITIALIZED || state.phase == STATE_FINALIZED) {
        describe(errclass, what, sizeof what);
        snprintf(msg, sizeof msg, "%s: %s %s", func, detail, what);
    } else {
        snprintf(msg, sizeof msg, "%s: %s", func, detail);
    }

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

/* The handler of comm (MPI_COMM_WORLD's when comm is not a communicator) and the handle the
 * user handler is given. */
static MPI_Errhandler handler_of(MPI_Comm *comm)
{
    comm_t *c = comm_lookup_pending(*comm);
    if (!c) {
        *comm = MPI_COMM_WORLD;
        c = comm_lookup(MPI_COMM_WORLD);
    }
    return c->errhandler;
}

/* MPI-3.1 §8.3.1: a user handler gets the communicator and the code; when it returns, the
 * call that raised the error returns the code. It runs without the core lock
 * (core_lock_callout_begin): errors are raised by the API functions as they return, with
 * nothing of theirs left half done. */
static int call_user(MPI_Errhandler eh, MPI_Comm comm, int code)
{
    errhandler_fn *fn = errhandler_function(eh);
    if (!fn)
        return 0;
    /* the handler may free its own handle or set another one on comm: keep it alive */
    errhandler_retain(eh);
    int levels = core_lock_callout_begin();
    fn(&comm, &code);
    core_lock_callout_end(levels);
    errhandler_release(eh);
    return 1;
}

/* Anything but MPI_ERRORS_RETURN and a user handler is fatal. */
int err_raise(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...)
{
    MPI_Errhandler eh = handler_of(&comm);
    if (eh == MPI_ERRORS_RETURN || call_user(eh, comm, errclass))
        return errclass;
    FORMAT_DETAIL(detail, fmt);
    fatal_report(errclass, func, detail);
}

int err_raise_on(MPI_Errhandler eh, int object, int errclass, const char *func,
                 const char *fmt, ...)
{
    if (eh == MPI_ERRORS_RETURN || call_user(eh, object, errclass))
        return errclass;
    FORMAT_DETAIL(detail, fmt);
    fatal_report(errclass, func, detail);
}

void err_call_handler_on(MPI_Errhandler eh, int object, int code, const char *func)
{
    if (eh == MPI_ERRORS_RETURN || call_user(eh, object, code))
        return;
    fatal_report(code, func, "the error handler of the window or file was called");
}

void err_call_handler(MPI_Comm comm, int code, const char *func)
{
    MPI_Errhandler eh = handler_of(&comm);
    if (eh == MPI_ERRORS_RETURN || call_user(eh, comm, code))
        return;
    fatal_report(code, func, "the error handler of the communicator was called");
}

void state_require_initialized(const char *func)
{
    if (state.phase == STATE_INITIALIZED)
        return;
    if (state.phase == STATE_FINALIZED)
        err_fatal(MPI_ERR_OTHER, func, "called after MPI_Finalize");
    err_fatal(MPI_ERR_OTHER, func, "called before MPI_Init");
}
