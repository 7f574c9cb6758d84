#include "api/checks.h"

#include "api/api.h"

#include "core/bsend.h"
#include "core/errors.h"
#include "datatype/dtype.h"
#include "datatype/predefined.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int api_raise_bad_comm(MPI_Comm comm, const char *func)
{
    if (comm == MPI_COMM_NULL)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COMM, func, "communicator is MPI_COMM_NULL");
    if (comm_lookup_pending(comm))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COMM, func,
                         "communicator 0x%x is still being created by MPI_Comm_idup: "
                         "only local calls may use it before its request completes",
                         (unsigned)comm);
    return err_raise(MPI_COMM_WORLD, MPI_ERR_COMM, func, "invalid communicator handle 0x%x",
                     (unsigned)comm);
}

int check_datatype(MPI_Comm comm, MPI_Datatype t, const char *func)
{
    if (t == MPI_DATATYPE_NULL)
        return err_raise(comm, MPI_ERR_TYPE, func, "datatype is MPI_DATATYPE_NULL");
    if (!dtype_is_predefined(t))
        return err_raise(comm, MPI_ERR_TYPE, func, "invalid datatype handle 0x%x", (unsigned)t);
    return MPI_SUCCESS;
}

int check_buffer(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, size_t *bytes,
                 const char *func)
{
    if (count < 0)
        return err_raise(comm, MPI_ERR_COUNT, func, "negative count %d", count);
    int rc = check_datatype(comm, t, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count > 0 && !buf)
        return err_raise(comm, MPI_ERR_BUFFER, func, "buffer is NULL but count is %d", count);
    *bytes = (size_t)count * dtype_predefined_size(t);
    return MPI_SUCCESS;
}

int check_data(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, p2p_data_t *d,
               const char *func)
{
    if (dtype_is_predefined(t)) {
        *d = (p2p_data_t){ .buf = (void *)buf, .type = t };
        if (count >= 0 && (count == 0 || buf)) { /* valid: check_buffer only reports */
            d->bytes = (size_t)count * dtype_predefined_size(t);
            return MPI_SUCCESS;
        }
        return check_buffer(comm, buf, count, t, &d->bytes, func);
    }
    if (count < 0)
        return err_raise(comm, MPI_ERR_COUNT, func, "negative count %d", count);
    dtype_t *dt = dtype_lookup_user(t);
    if (!dt)
        return err_raise(comm, MPI_ERR_TYPE, func,
                         t == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL"
                                                : "invalid datatype handle 0x%x",
                         (unsigned)t);
    if (!dt->committed || !dt->layout)
        return err_raise(comm, MPI_ERR_TYPE, func, "datatype 0x%x is not committed",
                         (unsigned)t);
    const dt_layout_t *l = dt->layout;
    size_t size = dt_layout_size(l);
    if (size && (size_t)count > SIZE_MAX / size)
        return err_raise(comm, MPI_ERR_COUNT, func,
                         "%d elements of %zu bytes do not fit in memory", count, size);
    *d = (p2p_data_t){ .buf = (void *)buf, .bytes = (size_t)count * size, .type = t };
    d->dtype = dt; /* a request holds it: the layout, or the typemap conversion reads */
    if (dt_layout_contiguous(l, (size_t)count)) /* MPI_BOTTOM: absolute addresses */
        d->buf = (void *)((uintptr_t)buf + (uintptr_t)dt_layout_true_lb(l));
    else
        d->layout = l, d->count = (size_t)count;
    return MPI_SUCCESS;
}

int check_dest_tag(const comm_t *c, int dest, int tag, const char *func)
{
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= comm_peer_size(c)))
        return err_raise(c->handle, MPI_ERR_RANK, func,
                         "invalid destination rank %d in a communicator of size %d%s", dest,
                         comm_peer_size(c), comm_is_inter(c) ? " (remote group)" : "");
    if (tag < 0)
        return err_raise(c->handle, MPI_ERR_TAG, func,
                         "invalid tag %d (send tags are 0..MPI_TAG_UB)", tag);
    return MPI_SUCCESS;
}

int check_source_tag(const comm_t *c, int source, int tag, const char *func)
{
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE &&
        (source < 0 || source >= comm_peer_size(c)))
        return err_raise(c->handle, MPI_ERR_RANK, func,
                         "invalid source rank %d in a communicator of size %d%s", source,
                         comm_peer_size(c), comm_is_inter(c) ? " (remote group)" : "");
    if (tag != MPI_ANY_TAG && tag < 0)
        return err_raise(c->handle, MPI_ERR_TAG, func,
                         "invalid tag %d (receive tags are 0..MPI_TAG_UB or MPI_ANY_TAG)", tag);
    return MPI_SUCCESS;
}

int check_replace(MPI_Comm comm, const comm_t *c, void *buf, int count, MPI_Datatype datatype,
                  int dest, int sendtag, int source, int recvtag, p2p_data_t *d,
                  p2p_data_t *sd, void **copy, const char *func)
{
    int rc = check_data(comm, buf, count, datatype, d, func);
    if (rc == MPI_SUCCESS)
        rc = check_dest_tag(c, dest, sendtag, func);
    if (rc == MPI_SUCCESS)
        rc = check_source_tag(c, source, recvtag, func);
    if (rc != MPI_SUCCESS)
        return rc;
    *copy = malloc(d->bytes ? d->bytes : 1);
    if (!*copy)
        return err_raise(comm, MPI_ERR_NO_MEM, func, "no memory for a %zu-byte copy", d->bytes);
    if (d->layout) {
        dt_cursor_t cur;
        dt_cursor_init(&cur, d->layout, (uintptr_t)d->buf, d->count);
        dt_pack(&cur, *copy, d->bytes);
    } else if (d->bytes) {
        memcpy(*copy, d->buf, d->bytes);
    }
    *sd = (p2p_data_t){ .buf = *copy, .bytes = d->bytes };
    return MPI_SUCCESS;
}

int raise_bsend_no_room(MPI_Comm comm, size_t bytes, const char *func)
{
    return err_raise(comm, MPI_ERR_BUFFER, func,
                     "the attached buffer has no room for %zu bytes (a message needs its size "
                     "plus MPI_BSEND_OVERHEAD)", bsend_needed(bytes));
}
