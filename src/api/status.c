/* Status queries (MPI-3.1 §3.2.5, §4.1.11, §12.3): counts and elements of a status, and
 * setting them. A status holds the received size in bytes; elements are basic elements of
 * the typemap, counted with the type's layout when the size ends inside an element. */
#include "api/api.h"

#include "api/type_common.h"
#include "core/request.h"
#include "datatype/engine/convert.h"
#include "datatype/engine/packed_arch.h"
#include "datatype/predefined.h"
#include "runtime/peer_arch.h"

#include <limits.h>

/* A status of a probed message from a sender of another architecture counts its bytes:
 * whole and basic elements of t in that architecture's packed stream (-1 where not whole,
 * -2 when out of memory). 0 when the status holds this architecture's bytes. */
static int foreign_counts(const MPI_Status *status, dtype_t *t, long long *whole,
                          long long *basic)
{
    int rank = (status->metampi_cancelled >> 1) - 1;
    if (rank < 0)
        return 0;
    const dt_layout_t *l = dtype_layout(t);
    if (!l) {
        *whole = *basic = -2;
        return 1;
    }
    dt_conv_stream_count(l, peer_arch(rank), (uint64_t)status->metampi_count, whole, basic);
    /* received as MPI_PACKED, the message gets the header naming its sender in front
     * (core/p2p_packed.h): the count a receive buffer needs */
    if (t->handle == MPI_PACKED && status->metampi_count > 0)
        *whole = *basic = status->metampi_count + PACKED_ARCH_HEADER;
    return 1;
}

/* Whole elements of t in the status's byte count (-1: not a whole number; 0 for a type of
 * size 0, as MPI-3.1 §3.2.5 says). */
static long long whole(const MPI_Status *status, dtype_t *t)
{
    long long bytes = status->metampi_count, w, b;
    if (foreign_counts(status, t, &w, &b))
        return w < 0 ? -1 : w;
    if (t->size == 0)
        return 0;
    return bytes % t->size ? -1 : bytes / t->size;
}

/* Basic elements of t in the status's byte count (-1: it ends inside a basic element; -2:
 * no memory for the layout of an uncommitted type). */
static long long basic_elements(const MPI_Status *status, dtype_t *t)
{
    long long bytes = status->metampi_count, w, b;
    if (foreign_counts(status, t, &w, &b))
        return b;
    if (t->size == 0)
        return 0;
    long long n = bytes / t->size * t->nelems, rest = bytes % t->size;
    if (rest == 0)
        return n;
    if (t->basic > 0)
        return -1;
    const dt_layout_t *l = dtype_layout(t);
    if (!l)
        return -2;
    long long e = dt_layout_elements(l, (size_t)rest);
    return e < 0 ? -1 : n + e;
}

/* The checks the count queries share; sets *t. */
static int count_args(const MPI_Status *status, MPI_Datatype datatype, const void *count,
                      dtype_t **t, const char *func)
{
    state_require_initialized(func);
    API_CHECK_PTR(status, MPI_COMM_WORLD, func, "status");
    API_CHECK_PTR(count, MPI_COMM_WORLD, func, "count");
    API_GET_TYPE(type, datatype, MPI_COMM_WORLD, func, "datatype");
    *t = type;
    return MPI_SUCCESS;
}

static int elements(const MPI_Status *status, MPI_Datatype datatype, const void *count,
                    long long *n, const char *func)
{
    dtype_t *t;
    int rc = count_args(status, datatype, count, &t, func);
    if (rc != MPI_SUCCESS)
        return rc;
    *n = basic_elements(status, t);
    if (*n == -2)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, func, "out of memory");
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    API_ENTER();
    dtype_t *t;
    int rc = count_args(status, datatype, count, &t, "MPI_Get_count");
    if (rc == MPI_SUCCESS) {
        long long n = whole(status, t);
        *count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return rc;
}
API_WEAK_ALIAS(Get_count)

API_EXPORT int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    API_ENTER();
    long long n;
    int rc = elements(status, datatype, count, &n, "MPI_Get_elements");
    if (rc == MPI_SUCCESS)
        *count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}
API_WEAK_ALIAS(Get_elements)

API_EXPORT int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                                   MPI_Count *count)
{
    API_ENTER();
    long long n;
    int rc = elements(status, datatype, count, &n, "MPI_Get_elements_x");
    if (rc == MPI_SUCCESS)
        *count = n < 0 ? MPI_UNDEFINED : n;
    return rc;
}
API_WEAK_ALIAS(Get_elements_x)

/* Bytes of the first n basic elements of one element of t (n < t->nelems); -1: no memory. */
static long long prefix_bytes(dtype_t *t, long long n)
{
    const dt_layout_t *l = dtype_layout(t);
    if (!l)
        return -1;
    dt_cursor_t c;
    dt_cursor_init(&c, l, 0, 1);
    uintptr_t addr;
    size_t len;
    int basic;
    long long bytes = 0;
    while (n > 0 && dt_next_block(&c, &addr, &len, &basic)) {
        long long size = (long long)dtype_predefined_size(dtype_basic(basic)->handle);
        long long k = (long long)len / size;
        if (k > n)
            k = n;
        bytes += k * size;
        n -= k;
    }
    return bytes;
}

/* Sets the status so that MPI_Get_elements(datatype) reports count basic elements, and
 * MPI_Get_count the matching number of whole elements. */
static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                        const char *func)
{
    state_require_initialized(func);
    API_CHECK_PTR(status, MPI_COMM_WORLD, func, "status");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, func, "datatype");
    if (count < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, func, "negative count %lld", count);
    long long bytes = 0;
    if (t->nelems > 0) {
        long long rest = count % t->nelems, part = 0;
        if (rest && (part = prefix_bytes(t, rest)) < 0)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, func, "out of memory");
        if (__builtin_mul_overflow(count / t->nelems, t->size, &bytes) ||
            __builtin_add_overflow(bytes, part, &bytes))
            return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, func,
                             "%lld elements exceed the size a status can hold", count);
    }
    status->metampi_count = bytes;
    status->metampi_cancelled &= STATUS_CANCELLED; /* the bytes are this architecture's now */
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    API_ENTER();
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}
API_WEAK_ALIAS(Status_set_elements)

API_EXPORT int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                                          MPI_Count count)
{
    API_ENTER();
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
API_WEAK_ALIAS(Status_set_elements_x)

API_EXPORT int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    API_ENTER();
    static const char *const F = "MPI_Status_set_cancelled";
    state_require_initialized(F);
    API_CHECK_PTR(status, MPI_COMM_WORLD, F, "status");
    status->metampi_cancelled = (status->metampi_cancelled & ~STATUS_CANCELLED) | (flag != 0);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Status_set_cancelled)


/* MPI-4.1 §3.2.5's accessors of the public fields, for bindings that cannot reach into the
 * struct (mpi4py, other languages' bindings). */
#define STATUS_FIELD_ACCESSORS(name, FIELD)                                                    \
    API_EXPORT int PMPI_Status_get_##name(MPI_Status *status, int *name)                      \
    {                                                                                          \
        API_ENTER();                                                                           \
        static const char *const F = "MPI_Status_get_" #name;                                  \
        state_require_initialized(F);                                                          \
        API_CHECK_PTR(status, MPI_COMM_WORLD, F, "status");                                    \
        API_CHECK_PTR(name, MPI_COMM_WORLD, F, #name);                                         \
        *name = status->FIELD;                                                                 \
        return MPI_SUCCESS;                                                                    \
    }                                                                                          \
    API_WEAK_ALIAS(Status_get_##name)                                                          \
    API_EXPORT int PMPI_Status_set_##name(MPI_Status *status, int name)                       \
    {                                                                                          \
        API_ENTER();                                                                           \
        static const char *const F = "MPI_Status_set_" #name;                                  \
        state_require_initialized(F);                                                          \
        API_CHECK_PTR(status, MPI_COMM_WORLD, F, "status");                                    \
        status->FIELD = name;                                                                  \
        return MPI_SUCCESS;                                                                    \
    }                                                                                          \
    API_WEAK_ALIAS(Status_set_##name)

STATUS_FIELD_ACCESSORS(source, MPI_SOURCE)
STATUS_FIELD_ACCESSORS(tag, MPI_TAG)
STATUS_FIELD_ACCESSORS(error, MPI_ERROR)
