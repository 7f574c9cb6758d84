/* Completion and request management (MPI-3.1 §3.7.3–3.7.5, §3.8.4): Wait/Test and their
 * any/all/some forms, MPI_Request_free, MPI_Request_get_status, MPI_Cancel,
 * MPI_Test_cancelled. */
#include "api/api.h"

#include "core/grequest.h"
#include "core/isendrecv.h"
#include "core/match.h"
#include "core/p2p.h"
#include "core/progress.h"

#include <stdio.h>

/* Looks up a handle of a request array or argument: MPI_REQUEST_NULL gives NULL and
 * MPI_SUCCESS; an invalid handle raises MPI_ERR_REQUEST. */
static int lookup(MPI_Request h, request_t **out, const char *func, const char *arg, int index)
{
    *out = NULL;
    if (h == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    request_t *r = request_lookup(h);
    if (!r) {
        if (index >= 0)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, func,
                             "%s[%d] (0x%x) is not a valid request handle", arg, index,
                             (unsigned)h);
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, func,
                         "%s (0x%x) is not a valid request handle", arg, (unsigned)h);
    }
    *out = r;
    return MPI_SUCCESS;
}

static int check_array(int count, const MPI_Request *reqs, const char *func)
{
    if (count < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, func, "negative count %d", count);
    if (count > 0 && !reqs)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, func, "array_of_requests is NULL");
    for (int i = 0; i < count; i++) {
        request_t *r;
        int rc = lookup(reqs[i], &r, func, "array_of_requests", i);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Null handles and inactive persistent requests take part in nothing. */
static int is_active(const request_t *r)
{
    return r && r->active;
}

/* Reports a completed request: copies its status, then frees it (or, persistent, makes it
 * inactive). with_error: write its error class into MPI_ERROR (the ERR_IN_STATUS calls). */
static int finish(request_t *r, MPI_Request *h, MPI_Status *st, int with_error)
{
    int err = r->error;
    if (r->kind == REQ_GREQ) {
        /* query_fn's error wins over free_fn's; the request goes either way */
        MPI_Status local;
        MPI_Status *s = st ? st : &local;
        int keep = s->MPI_ERROR;
        err = grequest_query(r, s);
        int free_err = grequest_release(r);
        if (err == MPI_SUCCESS)
            err = free_err;
        s->MPI_ERROR = with_error ? err : keep;
        *h = MPI_REQUEST_NULL;
        return err;
    }
    if (st) {
        int keep = st->MPI_ERROR;
        *st = r->status;
        st->MPI_ERROR = with_error ? err : keep;
    }
    if (r->persistent) {
        r->active = 0;
    } else {
        request_free(r);
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

static void empty_status(MPI_Status *st)
{
    MPI_Status empty;
    status_set_empty(&empty);
    status_report(st, &empty);
}

/* The error of one completed request, raised on its communicator: by the object, whose
 * handle the program may have freed while the request was pending (the object lives on). */
static int raise_request_error(const request_t *r, int err, const MPI_Status *st,
                               const char *func)
{
    if (err == MPI_SUCCESS)
        return err;
    if (err == MPI_ERR_TRUNCATE)
        return err_raise_on(r->comm->errhandler, r->comm->handle, err, func,
                            "message of %zu bytes from rank %d (tag %d) truncated to the %zu "
                            "bytes of the receive buffer",
                            r->op.msg_bytes, st->MPI_SOURCE, st->MPI_TAG, r->bytes);
    if (err == MPI_ERR_CONVERSION)
        return err_raise_on(r->comm->errhandler, r->comm->handle, err, func,
                            "%s", proto_conversion_error());
    if (r->kind == REQ_GREQ)
        return err_raise_on(r->comm->errhandler, r->comm->handle, err, func,
                            "a callback of the generalized request (query_fn or free_fn) "
                            "returned error %d",
                            err);
    if (err == MPI_ERR_NOT_SAME) /* a collective's (core/match.h) */
        return err_raise_on(r->comm->errhandler, r->comm->handle, err, func,
                            "the members called collective operations in different orders: %s",
                            match_last_clash());
    return err_raise_on(r->comm->errhandler, r->comm->handle, err, func, "the request failed");
}

/* Reports a completed request and raises its error. finish frees r, and with it perhaps
 * the last reference to its communicator (the program freed it while r was pending): the
 * error is raised on that communicator, which therefore lives until its handler returned. */
static int finish_and_raise(request_t *r, MPI_Request *h, MPI_Status *st, const char *func)
{
    request_t copy = *r; /* the error report needs its fields */
    comm_retain(copy.comm);
    int err = finish(r, h, st, 0);
    err = raise_request_error(&copy, err, st, func);
    comm_release(copy.comm);
    return err;
}

static int single(MPI_Request *request, int *flag, MPI_Status *status, int wait,
                  const char *func)
{
    state_require_initialized(func);
    API_CHECK_PTR(request, MPI_COMM_WORLD, func, "request");
    if (!wait)
        API_CHECK_PTR(flag, MPI_COMM_WORLD, func, "flag");
    request_t *r;
    int rc = lookup(*request, &r, func, "request", -1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_active(r)) {
        empty_status(status);
        if (flag)
            *flag = 1;
        return MPI_SUCCESS;
    }
    if (wait)
        p2p_wait(r);
    else if (!r->complete)
        progress_poll();
    if (flag)
        *flag = r->complete;
    if (!r->complete)
        return MPI_SUCCESS;
    MPI_Status local;
    MPI_Status *st = status ? status : &local;
    if (r->error == MPI_SUCCESS && r->kind != REQ_GREQ)
        return finish(r, request, st, 0);
    return finish_and_raise(r, request, st, func);
}

API_EXPORT int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    API_ENTER();
    return single(request, NULL, status, 1, "MPI_Wait");
}
API_WEAK_ALIAS(Wait)

API_EXPORT int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    API_ENTER();
    return single(request, flag, status, 0, "MPI_Test");
}
API_WEAK_ALIAS(Test)

/* first: all_complete's cursor, the first request not yet seen complete (those before it are
 * complete or inactive: a request stays complete until a completion call reports it, and the
 * wait that reports these holds them), so a wait looks at each request once, not once per
 * pass of the progress engine. */
typedef struct array_arg {
    int count;
    const MPI_Request *reqs;
    int first;
} array_arg_t;

static int any_complete(void *arg)
{
    const array_arg_t *a = arg;
    for (int i = 0; i < a->count; i++) {
        request_t *r = request_lookup(a->reqs[i]);
        if (is_active(r) && r->complete)
            return 1;
    }
    return 0;
}

static int all_complete(void *arg)
{
    array_arg_t *a = arg;
    for (; a->first < a->count; a->first++) {
        request_t *r = request_lookup(a->reqs[a->first]);
        if (is_active(r) && !r->complete)
            return 0;
    }
    return 1;
}

static int count_active(int count, const MPI_Request *reqs)
{
    int n = 0;
    for (int i = 0; i < count; i++)
        n += is_active(request_lookup(reqs[i]));
    return n;
}

static int any(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
               int wait, const char *func)
{
    state_require_initialized(func);
    int rc = check_array(count, reqs, func);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(index, MPI_COMM_WORLD, func, "index");
    if (!wait)
        API_CHECK_PTR(flag, MPI_COMM_WORLD, func, "flag");
    array_arg_t a = { count, reqs, 0 };
    *index = MPI_UNDEFINED;
    if (count_active(count, reqs) == 0) {
        empty_status(status);
        if (flag)
            *flag = 1;
        return MPI_SUCCESS;
    }
    if (wait)
        progress_wait_until(any_complete, &a);
    else if (!any_complete(&a))
        progress_poll();
    if (flag)
        *flag = 0;
    for (int i = 0; i < count; i++) {
        request_t *r = request_lookup(reqs[i]);
        if (!is_active(r) || !r->complete)
            continue;
        *index = i;
        if (flag)
            *flag = 1;
        MPI_Status local;
        MPI_Status *st = status ? status : &local;
        return finish_and_raise(r, &reqs[i], st, func);
    }
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                            MPI_Status *status)
{
    API_ENTER();
    return any(count, array_of_requests, index, NULL, status, 1, "MPI_Waitany");
}
API_WEAK_ALIAS(Waitany)

API_EXPORT int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                            MPI_Status *status)
{
    API_ENTER();
    return any(count, array_of_requests, index, flag, status, 0, "MPI_Testany");
}
API_WEAK_ALIAS(Testany)

/* Reports every completed active request i with report(i): fills statuses[slot] and, when
 * one failed, returns MPI_ERR_IN_STATUS raised on the first failing request's communicator. */
static int report_completed(int count, MPI_Request reqs[], MPI_Status statuses[], int *indices,
                            int *outcount, const char *func)
{
    int n = 0;
    comm_t *failed = NULL; /* referenced: see finish_and_raise */
    for (int i = 0; i < count; i++) {
        request_t *r = request_lookup(reqs[i]);
        int slot = indices ? n : i;
        if (!is_active(r)) {
            if (!indices && statuses) {
                status_set_empty(&statuses[slot]);
            }
            continue;
        }
        if (!r->complete) {
            if (!indices && statuses)
                statuses[slot].MPI_ERROR = MPI_ERR_PENDING;
            continue;
        }
        MPI_Status local;
        comm_t *comm = r->comm;
        comm_retain(comm);
        int err = finish(r, &reqs[i], statuses ? &statuses[slot] : &local, 1);
        if (err != MPI_SUCCESS && !failed)
            failed = comm;
        else
            comm_release(comm);
        if (indices)
            indices[n] = i;
        n++;
    }
    if (outcount)
        *outcount = n;
    if (!failed)
        return MPI_SUCCESS;
    int rc = err_raise_on(failed->errhandler, failed->handle, MPI_ERR_IN_STATUS, func,
                          "a request failed: see the MPI_ERROR field of its status");
    comm_release(failed);
    return rc;
}

static int all(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[], int wait,
               const char *func)
{
    state_require_initialized(func);
    int rc = check_array(count, reqs, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!wait)
        API_CHECK_PTR(flag, MPI_COMM_WORLD, func, "flag");
    array_arg_t a = { count, reqs, 0 };
    if (wait) {
        progress_wait_until(all_complete, &a);
    } else if (!all_complete(&a)) {
        progress_poll();
        if (!all_complete(&a)) {
            *flag = 0; /* Testall completes nothing unless it completes everything */
            return MPI_SUCCESS;
        }
    }
    if (flag)
        *flag = 1;
    return report_completed(count, reqs, statuses, NULL, NULL, func);
}

API_EXPORT int PMPI_Waitall(int count, MPI_Request array_of_requests[],
                            MPI_Status array_of_statuses[])
{
    API_ENTER();
    return all(count, array_of_requests, NULL, array_of_statuses, 1, "MPI_Waitall");
}
API_WEAK_ALIAS(Waitall)

API_EXPORT int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                            MPI_Status array_of_statuses[])
{
    API_ENTER();
    return all(count, array_of_requests, flag, array_of_statuses, 0, "MPI_Testall");
}
API_WEAK_ALIAS(Testall)

static int some(int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[], int wait, const char *func)
{
    state_require_initialized(func);
    int rc = check_array(incount, reqs, func);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(outcount, MPI_COMM_WORLD, func, "outcount");
    if (incount > 0)
        API_CHECK_PTR(indices, MPI_COMM_WORLD, func, "array_of_indices");
    if (count_active(incount, reqs) == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    array_arg_t a = { incount, reqs, 0 };
    if (wait)
        progress_wait_until(any_complete, &a);
    else if (!any_complete(&a))
        progress_poll();
    return report_completed(incount, reqs, statuses, indices, outcount, func);
}

API_EXPORT int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                            int array_of_indices[], MPI_Status array_of_statuses[])
{
    API_ENTER();
    return some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 1,
                "MPI_Waitsome");
}
API_WEAK_ALIAS(Waitsome)

API_EXPORT int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                            int array_of_indices[], MPI_Status array_of_statuses[])
{
    API_ENTER();
    return some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 0,
                "MPI_Testsome");
}
API_WEAK_ALIAS(Testsome)

/* A request argument that must not be MPI_REQUEST_NULL. */
static int lookup_required(MPI_Request h, request_t **out, const char *func)
{
    int rc = lookup(h, out, func, "request", -1);
    if (rc == MPI_SUCCESS && !*out)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, func, "request is MPI_REQUEST_NULL");
    return rc;
}

API_EXPORT int PMPI_Request_free(MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Request_free";
    state_require_initialized(F);
    API_CHECK_PTR(request, MPI_COMM_WORLD, F, "request");
    request_t *r;
    int rc = lookup_required(*request, &r, F);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI-3.1 §5.12: freeing the request of a nonblocking collective operation is erroneous */
    if (r->kind == REQ_COLL)
        return err_raise(r->comm->handle, MPI_ERR_REQUEST, F,
                         "the request of a nonblocking collective operation cannot be freed");
    if (r->kind == REQ_GREQ && r->complete) {
        *request = MPI_REQUEST_NULL;
        int err = grequest_release(r);
        if (err != MPI_SUCCESS)
            return err_raise(MPI_COMM_WORLD, err, F,
                            "the free_fn of the generalized request returned error %d", err);
        return MPI_SUCCESS;
    }
    /* An active operation goes on and frees its request when it completes. */
    if (r->active && !r->complete)
        r->user_freed = 1;
    else
        request_free(r);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Request_free)

API_EXPORT int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    API_ENTER();
    static const char *const F = "MPI_Request_get_status";
    state_require_initialized(F);
    API_CHECK_PTR(flag, MPI_COMM_WORLD, F, "flag");
    request_t *r;
    int rc = lookup(request, &r, F, "request", -1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_active(r)) {
        empty_status(status);
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!r->complete)
        progress_poll();
    *flag = r->complete;
    if (r->complete && r->kind == REQ_GREQ) {
        MPI_Status st;
        int err = grequest_query(r, &st);
        status_report(status, &st);
        if (err != MPI_SUCCESS)
            return err_raise(r->comm->handle, err, F,
                            "the query_fn of the generalized request returned error %d", err);
    } else if (r->complete) {
        status_report(status, &r->status);
    }
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Request_get_status)

API_EXPORT int PMPI_Cancel(MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Cancel";
    state_require_initialized(F);
    API_CHECK_PTR(request, MPI_COMM_WORLD, F, "request");
    request_t *r;
    int rc = lookup_required(*request, &r, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r->active)
        return err_raise(r->comm->handle, MPI_ERR_REQUEST, F,
                         "request is an inactive persistent request");
    if (r->kind == REQ_COLL)
        return err_raise(r->comm->handle, MPI_ERR_REQUEST, F,
                         "a nonblocking collective operation cannot be cancelled");
    /* A started one-sided operation or file access cannot be withdrawn: it completes as
     * usual and MPI_Test_cancelled reports false (either outcome is allowed, MPI-3.1 §3.8.4). */
    if (r->kind == REQ_RMA || r->kind == REQ_IO)
        return MPI_SUCCESS;
    if (r->kind == REQ_GREQ) {
        MPI_Comm comm = r->comm->handle; /* r may be gone when cancel_fn returns */
        int err = grequest_cancel(r);
        if (err != MPI_SUCCESS)
            return err_raise(comm, err, F,
                            "the cancel_fn of the generalized request returned error %d", err);
        return MPI_SUCCESS;
    }
    if (r->kind == REQ_PAIR)
        isendrecv_cancel(r);
    else
        p2p_cancel(r);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Cancel)

API_EXPORT int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    API_ENTER();
    static const char *const F = "MPI_Test_cancelled";
    state_require_initialized(F);
    API_CHECK_PTR(status, MPI_COMM_WORLD, F, "status");
    API_CHECK_PTR(flag, MPI_COMM_WORLD, F, "flag");
    *flag = (status->metampi_cancelled & STATUS_CANCELLED) != 0;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Test_cancelled)
