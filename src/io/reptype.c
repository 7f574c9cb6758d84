/* Types measured in a file's data representation (MPI-3.1 §13.5.1).
 *
 * In external32 or a representation of MPI_Register_datarep, a basic element occupies its
 * file size (Table 13.2, or the extent function's answer) rather than its native size. The
 * view's etype and filetype, and MPI_File_get_type_extent, are measured in those sizes: the
 * "file twin" of a type is the same construction with every predefined type replaced by a
 * run of bytes of its file size. Constructors that count in elements of their old type
 * (contiguous, vector, indexed, indexed_block, subarray, darray) therefore scale with it, as
 * the standard asks of portable types; constructors that take byte displacements (hvector,
 * hindexed, struct, resized) keep them as given ("no scaling will be done").
 *
 * A twin is the type itself (retained) whenever none of its parts changes, so a native-sized
 * view costs nothing. */
#include "io/file.h"

#include "datatype/construct.h"
#include "datatype/predefined.h"

#include <stdlib.h>

MPI_Aint io_rep_basic_size(const io_rep_t *rep, int basic)
{
    const dtype_basic_info_t *b = dtype_basic(basic);
    if (!b)
        return -1;
    if (!rep->user)
        return rep->external32 ? b->ext32_size : (MPI_Aint)dtype_predefined_size(b->handle);
    MPI_Aint extent = -1;
    if (io_datarep_extent(rep->user, b->handle, &extent) != MPI_SUCCESS)
        return -1;
    return extent;
}

MPI_Count io_rep_size(const io_rep_t *rep, dtype_t *t)
{
    if (!rep->external32 && !rep->user)
        return t->size;
    if (rep->external32)
        return t->ext32_size;
    const dt_layout_t *l = dtype_layout(t);
    if (!l)
        return -1;
    /* one element's leaf blocks, each a whole number of its basic type */
    dt_cursor_t c;
    dt_cursor_init(&c, l, 0, 1);
    uintptr_t addr;
    size_t len;
    int basic;
    MPI_Count total = 0;
    while (dt_next_block(&c, &addr, &len, &basic)) {
        MPI_Aint each = io_rep_basic_size(rep, basic);
        size_t native = dtype_basic(basic) ? dtype_predefined_size(dtype_basic(basic)->handle)
                                           : 0;
        if (each < 0 || native == 0)
            return -1;
        total += (MPI_Count)(len / native) * each;
    }
    return total;
}

/* A predefined type: itself when its file size is its size and it has no gaps, else a run of
 * bytes of its file size. */
static int twin_predefined(const io_rep_t *rep, dtype_t *t, dtype_t **out)
{
    MPI_Count size = io_rep_size(rep, t);
    if (size < 0)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    if (size == t->size && t->ub - t->lb == t->size) {
        dtype_retain(t);
        *out = t;
        return MPI_SUCCESS;
    }
    return dtype_contiguous(size, dtype_lookup(MPI_BYTE), out);
}

enum { TWIN_DEPTH_MAX = 10000 };

static int twin(const io_rep_t *rep, dtype_t *t, dtype_t **out, int depth);

/* The twins of t's envelope types; *changed when any differs from its original. */
static int twin_parts(const io_rep_t *rep, dtype_t *t, dtype_t **parts, int *changed,
                      int depth)
{
    *changed = 0;
    for (int i = 0; i < t->ntypes; i++)
        parts[i] = NULL;
    for (int i = 0; i < t->ntypes; i++) {
        dtype_t *old = dtype_lookup(t->types[i]);
        int rc = old ? twin(rep, old, &parts[i], depth + 1) : MPI_ERR_TYPE;
        if (rc != MPI_SUCCESS)
            return rc;
        *changed |= parts[i] != old;
    }
    return MPI_SUCCESS;
}

static int rebuild(dtype_t *t, dtype_t **parts, dtype_t **out)
{
    const int *in = t->ints;
    switch (t->combiner) {
    case MPI_COMBINER_DUP:
        dtype_retain(parts[0]);
        *out = parts[0];
        return MPI_SUCCESS;
    case MPI_COMBINER_SUBARRAY: {
        int nd = in[0];
        return dtype_subarray(nd, in + 1, in + 1 + nd, in + 1 + 2 * nd, in[1 + 3 * nd],
                              parts[0], out);
    }
    case MPI_COMBINER_DARRAY: {
        int nd = in[2];
        return dtype_darray(in[0], in[1], nd, in + 3, in + 3 + nd, in + 3 + 2 * nd,
                            in + 3 + 3 * nd, in[3 + 4 * nd], parts[0], out);
    }
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_HVECTOR_INTEGER:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_INTEGER:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_STRUCT_INTEGER:
    case MPI_COMBINER_RESIZED:
        return dtype_create(t->combiner, t->nints, t->ints, t->naddrs, t->addrs, t->ntypes,
                            parts, out);
    default:
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
}

static int twin(const io_rep_t *rep, dtype_t *t, dtype_t **out, int depth)
{
    *out = NULL;
    if (depth > TWIN_DEPTH_MAX)
        return MPI_ERR_TYPE;
    if (t->predefined)
        return twin_predefined(rep, t, out);
    if (t->combiner == MPI_COMBINER_F90_INTEGER || t->combiner == MPI_COMBINER_F90_REAL ||
        t->combiner == MPI_COMBINER_F90_COMPLEX)
        return t->equiv ? twin(rep, t->equiv, out, depth + 1) : MPI_ERR_TYPE;
    dtype_t **parts = calloc((size_t)(t->ntypes > 0 ? t->ntypes : 1), sizeof *parts);
    if (!parts)
        return MPI_ERR_NO_MEM;
    int changed = 0;
    int rc = twin_parts(rep, t, parts, &changed, depth);
    if (rc == MPI_SUCCESS && !changed) {
        dtype_retain(t);
        *out = t;
    } else if (rc == MPI_SUCCESS) {
        rc = rebuild(t, parts, out);
    }
    for (int i = 0; i < t->ntypes; i++)
        if (parts[i])
            dtype_release(parts[i]);
    free(parts);
    return rc;
}

int io_rep_type(const io_rep_t *rep, dtype_t *t, dtype_t **out)
{
    if (!rep->external32 && !rep->user) {
        dtype_retain(t);
        *out = t;
        return MPI_SUCCESS;
    }
    int rc = twin(rep, t, out, 0);
    if (rc == MPI_SUCCESS && *out != t)
        rc = dtype_commit(*out);
    if (rc != MPI_SUCCESS && *out) {
        dtype_release(*out);
        *out = NULL;
    }
    return rc;
}
