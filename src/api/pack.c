/* Packing (MPI-3.1 §4.2) and the portable "external32" packing (§4.3). A packed buffer holds
 * the data of the typemap in order without gaps: MPI_Pack's format is the native bytes
 * (what the datatype engine's cursor streams), MPI_Pack_external's is external32. On a
 * communicator whose members are of several architectures, a buffer begun at position 0
 * starts with a header naming the writer's architecture (datatype/engine/packed_arch.h), and
 * MPI_Unpack converts what an unlike writer packed. */
#include "api/type_common.h"

#include "core/comm_arch.h"
#include "datatype/engine/convert.h"
#include "datatype/external32.h"
#include "datatype/engine/packed_arch.h"
#include "datatype/predefined.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* The checks of the typed-buffer side: a count and a live, committed type. *bytes is the
 * packed size (per_element bytes per element). MPI_BOTTOM (NULL) is a valid buffer for a
 * derived type with absolute addresses, not for a predefined one. */
static int check_typed(MPI_Comm comm, const void *buf, int count, MPI_Datatype datatype,
                       const char *countname, int external, dtype_t **tp, MPI_Aint *bytes,
                       const char *F)
{
    if (count < 0)
        return err_raise(comm, MPI_ERR_COUNT, F, "negative %s %d", countname, count);
    API_GET_TYPE(t, datatype, comm, F, "datatype");
    API_CHECK_COMMITTED(t, comm, F);
    MPI_Count per = external ? t->ext32_size : t->size;
    if (count > 0 && per > 0 && !buf && t->predefined)
        return err_raise(comm, MPI_ERR_BUFFER, F, "buffer is NULL but %s is %d", countname,
                         count);
    if (__builtin_mul_overflow((MPI_Count)count, per, bytes))
        return err_raise(comm, MPI_ERR_ARG, F, "%d elements of this type exceed MPI_Aint",
                         count);
    *tp = t;
    return MPI_SUCCESS;
}

/* The checks of the packed-buffer side: *position within [0, size], and room for bytes. */
static int check_packed(MPI_Comm comm, const void *packed, MPI_Aint size, MPI_Aint position,
                        MPI_Aint bytes, int packing, const char *F)
{
    if (size < 0)
        return err_raise(comm, MPI_ERR_ARG, F, "negative %s %lld", packing ? "outsize" : "insize",
                         (long long)size);
    if (position < 0 || position > size)
        return err_raise(comm, MPI_ERR_ARG, F, "position %lld is outside the buffer of %lld bytes",
                         (long long)position, (long long)size);
    if (bytes > size - position)
        return err_raise(comm, MPI_ERR_TRUNCATE, F,
                         packing ? "%lld bytes to pack do not fit at position %lld of %lld"
                                 : "%lld bytes to unpack, but only %lld of %lld remain",
                         (long long)bytes,
                         packing ? (long long)position : (long long)(size - position),
                         (long long)size);
    if (bytes > 0 && !packed)
        return err_raise(comm, MPI_ERR_ARG, F, "the %s buffer is NULL",
                         packing ? "output" : "input");
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                         int outsize, int *position, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Pack";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(position, comm, F, "position");
    dtype_t *t;
    MPI_Aint bytes, head = 0;
    int rc = check_typed(comm, inbuf, incount, datatype, "incount", 0, &t, &bytes, F);
    if (rc == MPI_SUCCESS && *position == 0 && comm_arch_mixed(c))
        head = PACKED_ARCH_HEADER;
    if (rc == MPI_SUCCESS)
        rc = check_packed(comm, outbuf, outsize, *position, bytes + head, 1, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (head) {
        packed_arch_write(outbuf);
        *position = (int)head;
    }
    dt_cursor_t cur;
    dt_cursor_init(&cur, t->layout, (uintptr_t)inbuf, (size_t)incount);
    dt_pack(&cur, (char *)outbuf + *position, (size_t)bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Pack)

/* MPI_Unpack of what a writer of another architecture packed: its sizes, converted. */
static int unpack_converted(MPI_Comm comm, const void *inbuf, int insize, int *position,
                            MPI_Aint pos, dtype_t *t, void *outbuf, int outcount,
                            const arch_desc_t *writer)
{
    static const char *const F = "MPI_Unpack";
    uint64_t bytes = dt_conv_stream_size(t->layout, writer, (size_t)outcount);
    if (bytes > (uint64_t)INT_MAX)
        return err_raise(comm, MPI_ERR_ARG, F,
                         "%d elements of this type exceed the packed buffer's size", outcount);
    int rc = check_packed(comm, inbuf, insize, pos, (MPI_Aint)bytes, 0, F);
    if (rc != MPI_SUCCESS)
        return rc;
    dt_conv_t cv;
    dt_conv_init(&cv, writer, t->layout, (uintptr_t)outbuf, (size_t)outcount);
    dt_conv_unpack(&cv, (const char *)inbuf + pos, (size_t)bytes);
    *position = (int)(pos + (MPI_Aint)bytes);
    char why[300], name[96];
    if (dt_conv_failure(&cv, why, sizeof why))
        return err_raise(comm, MPI_ERR_CONVERSION, F, "data packed on %s: %s",
                         arch_describe(writer, name, sizeof name), why);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                           int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Unpack";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(position, comm, F, "position");
    dtype_t *t;
    MPI_Aint bytes, pos = *position;
    arch_desc_t writer;
    int rc = check_typed(comm, outbuf, outcount, datatype, "outcount", 0, &t, &bytes, F);
    if (rc == MPI_SUCCESS && comm_arch_mixed(c) && insize > 0 &&
        packed_arch_read(inbuf, (size_t)insize, &writer)) {
        /* a second header: data its writer packed, forwarded by the first's (packed_arch.h) */
        MPI_Aint data = PACKED_ARCH_HEADER;
        if (packed_arch_read((const char *)inbuf + data, (size_t)(insize - data), &writer))
            data += PACKED_ARCH_HEADER;
        else
            packed_arch_read(inbuf, (size_t)insize, &writer);
        if (pos == 0)
            pos = data;
        if (!arch_same(&writer, arch_local()))
            return unpack_converted(comm, inbuf, insize, position, pos, t, outbuf, outcount,
                                    &writer);
    }
    if (rc == MPI_SUCCESS)
        rc = check_packed(comm, inbuf, insize, pos, bytes, 0, F);
    if (rc != MPI_SUCCESS)
        return rc;
    *position = (int)pos;
    dt_cursor_t cur;
    dt_cursor_init(&cur, t->layout, (uintptr_t)outbuf, (size_t)outcount);
    dt_unpack(&cur, (const char *)inbuf + *position, (size_t)bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Unpack)

/* MPI_Pack's format is exactly the data (and the header on a mixed communicator), so the
 * bound is exact. */
API_EXPORT int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    API_ENTER();
    static const char *const F = "MPI_Pack_size";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(size, comm, F, "size");
    if (incount < 0)
        return err_raise(comm, MPI_ERR_COUNT, F, "negative incount %d", incount);
    API_GET_TYPE(t, datatype, comm, F, "datatype");
    MPI_Count bytes;
    /* the bound covers the header a buffer begun on a mixed communicator starts with */
    MPI_Count head = comm_arch_mixed(c) ? PACKED_ARCH_HEADER : 0;
    if (__builtin_mul_overflow((MPI_Count)incount, t->size, &bytes) ||
        __builtin_add_overflow(bytes, head, &bytes) || bytes > INT_MAX)
        return err_raise(comm, MPI_ERR_ARG, F,
                         "%d elements of this type pack into more than INT_MAX bytes", incount);
    *size = (int)bytes;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Pack_size)

static int check_datarep(const char *datarep, const char *F)
{
    API_CHECK_PTR(datarep, MPI_COMM_WORLD, F, "datarep");
    if (strcmp(datarep, "external32") != 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "data representation \"%.64s\" is not \"external32\"", datarep);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                                  MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                                  MPI_Aint *position)
{
    API_ENTER();
    static const char *const F = "MPI_Pack_external";
    state_require_initialized(F);
    API_CHECK_PTR(position, MPI_COMM_WORLD, F, "position");
    dtype_t *t;
    MPI_Aint bytes;
    int rc = check_datarep(datarep, F);
    if (rc == MPI_SUCCESS)
        rc = check_typed(MPI_COMM_WORLD, inbuf, incount, datatype, "incount", 1, &t, &bytes, F);
    if (rc == MPI_SUCCESS)
        rc = check_packed(MPI_COMM_WORLD, outbuf, outsize, *position, bytes, 1, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ext32_pack(t, inbuf, (size_t)incount, (char *)outbuf + *position) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_CONVERSION, F,
                         "a value does not fit its external32 size (e.g. a long beyond 32 bits)");
    *position += bytes;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Pack_external)

API_EXPORT int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                    MPI_Aint *position, void *outbuf, int outcount,
                                    MPI_Datatype datatype)
{
    API_ENTER();
    static const char *const F = "MPI_Unpack_external";
    state_require_initialized(F);
    API_CHECK_PTR(position, MPI_COMM_WORLD, F, "position");
    dtype_t *t;
    MPI_Aint bytes;
    int rc = check_datarep(datarep, F);
    if (rc == MPI_SUCCESS)
        rc = check_typed(MPI_COMM_WORLD, outbuf, outcount, datatype, "outcount", 1, &t, &bytes,
                         F);
    if (rc == MPI_SUCCESS)
        rc = check_packed(MPI_COMM_WORLD, inbuf, insize, *position, bytes, 0, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ext32_unpack(t, (const char *)inbuf + *position, (size_t)outcount, outbuf) !=
        MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_CONVERSION, F,
                         "a value does not fit its native type");
    *position += bytes;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Unpack_external)

API_EXPORT int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                       MPI_Aint *size)
{
    API_ENTER();
    static const char *const F = "MPI_Pack_external_size";
    state_require_initialized(F);
    API_CHECK_PTR(size, MPI_COMM_WORLD, F, "size");
    if (check_datarep(datarep, F) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    if (incount < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, F, "negative incount %d", incount);
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    if (__builtin_mul_overflow((MPI_Aint)incount, (MPI_Aint)t->ext32_size, size))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "%d elements of this type exceed MPI_Aint", incount);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Pack_external_size)
