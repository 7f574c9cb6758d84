/* File views (MPI-3.1 §13.3) and the queries that depend on them (§13.4.3, §13.5.1). */
#include "api/file_checks.h"

#include "core/icoll.h"
#include "datatype/construct.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int known_datarep(const char *d)
{
    return strcmp(d, "native") == 0 || strcmp(d, "internal") == 0 ||
           strcmp(d, "external32") == 0 || io_datarep_find(d) != NULL;
}

/* Collective: *at as the holder of this member's shared pointer has it. */
static int shared_position(io_file_t *f, int64_t *at)
{
    if (f->sites != IO_SITES_EACH)
        return icoll_bcast_i64(f->comm, at, 1, 0);
    int64_t *all = malloc((size_t)f->comm->size * sizeof *all);
    if (!all) /* the others wait in the allgather: the job cannot go on */
        err_fatal(MPI_ERR_NO_MEM, "MPI_File_set_view", "out of memory for %d offsets",
                  f->comm->size);
    int rc = icoll_allgather_u64(f->comm, (uint64_t *)at, 1, (uint64_t *)all);
    *at = all[io_shared_holder(f)];
    free(all);
    return rc;
}

/* Collective: the same datarep and etype size everywhere (MPI_ERR_NOT_SAME otherwise). A
 * member whose local checks failed contributes its class and nothing else (INT_MIN/2 never
 * wins a maximum); every member returns the same class. */
static int agree_view(io_file_t *f, int rc, const dtype_t *etype, const char *datarep)
{
    int ok = rc == MPI_SUCCESS;
    int size = ok ? (int)etype->size : INT_MIN / 2;
    int rep = !ok ? INT_MIN / 2
              : strcmp(datarep, "external32") == 0 ? 2
              : io_datarep_find(datarep) ? 3 : 1;
    int v[5] = { rc, size, ok ? -size : INT_MIN / 2, rep, ok ? -rep : INT_MIN / 2 };
    int all = icoll_allreduce_int(f->comm, v, 5, ICOLL_MAX);
    if (all != MPI_SUCCESS)
        return all;
    if (v[0] != MPI_SUCCESS)
        return v[0];
    return v[1] != -v[2] || v[3] != -v[4] ? MPI_ERR_NOT_SAME : MPI_SUCCESS;
}

API_EXPORT int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    API_ENTER();
    static const char *const F = "MPI_File_set_view";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    dtype_t *et = NULL, *ft = NULL, *fet = NULL, *fft = NULL;
    /* local checks first, remembered, so that every member still takes part in the
     * agreement and none waits for another that returned early */
    int rc = file_check_type(f, etype, &et, "etype", F);
    if (rc == MPI_SUCCESS)
        rc = file_check_type(f, filetype, &ft, "filetype", F);
    if (rc == MPI_SUCCESS && !datarep)
        rc = file_raise(f, MPI_ERR_ARG, F, "argument datarep is NULL");
    if (rc == MPI_SUCCESS && !known_datarep(datarep))
        rc = file_raise(f, MPI_ERR_UNSUPPORTED_DATAREP, F,
                        "data representation '%s' (known: native, internal, external32)",
                        datarep);
    /* the view is measured in the file's representation (MPI-3.1 §13.5.1) */
    io_rep_t rep = { 0, NULL };
    if (rc == MPI_SUCCESS) {
        rep.external32 = strcmp(datarep, "external32") == 0;
        rep.user = io_datarep_find(datarep);
        rc = io_rep_type(&rep, et, &fet);
        if (rc == MPI_SUCCESS)
            rc = io_rep_type(&rep, ft, &fft);
        if (rc != MPI_SUCCESS)
            rc = file_raise(f, rc, F,
                            "cannot measure the etype and filetype in data representation '%s'%s",
                            datarep, rep.user ? " (its extent function failed)" : "");
    }
    const char *bad = NULL;
    /* a filetype not made of etypes: MPI_ERR_ARG, as MPICH and Open MPI say */
    if (rc == MPI_SUCCESS && fet->size > 0 && fft->size % fet->size)
        rc = file_raise(f, MPI_ERR_ARG, F,
                        "invalid view: the filetype's size (%lld) is not a multiple of the "
                        "etype's (%lld)",
                        (long long)fft->size, (long long)fet->size);
    if (rc == MPI_SUCCESS && (bad = io_view_check(fet, fft)) != NULL)
        rc = file_raise(f, MPI_ERR_TYPE, F, "invalid view: %s", bad);
    if (rc == MPI_SUCCESS && disp == MPI_DISPLACEMENT_CURRENT &&
        !(f->amode & MPI_MODE_SEQUENTIAL))
        rc = file_raise(f, MPI_ERR_ARG, F,
                        "MPI_DISPLACEMENT_CURRENT needs a file opened with MPI_MODE_SEQUENTIAL");
    else if (rc == MPI_SUCCESS && disp != MPI_DISPLACEMENT_CURRENT && disp < 0)
        rc = file_raise(f, MPI_ERR_ARG, F, "negative displacement %lld", (long long)disp);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && !info_lookup(info))
        rc = file_raise(f, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    int all = agree_view(f, rc, fet, datarep);
    if (rc != MPI_SUCCESS || all != MPI_SUCCESS) {
        if (fet)
            dtype_release(fet);
        if (fft)
            dtype_release(fft);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (all != MPI_SUCCESS)
        return file_raise(f, all, F,
                          all == MPI_ERR_NOT_SAME
                              ? "the members passed different data representations or etype sizes"
                              : "another member's view was invalid");
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        /* the shared pointer's byte offset in the old view, at its holder's */
        int64_t at = 0;
        if (io_sites_keeper(f))
            at = io_view_byte_offset(f, io_shared_local_get(f) * f->fetype->size);
        if ((all = shared_position(f, &at)) != MPI_SUCCESS) {
            dtype_release(fet);
            dtype_release(fft);
            return file_raise(f, all, F, "cannot agree on the current displacement");
        }
        disp = (MPI_Offset)at;
    }
    io_set_view(f, disp, et, ft, fet, fft, datarep, rep);
    if ((all = io_hints_set(f, info_lookup(info))) != MPI_SUCCESS)
        return file_raise(f, all, F, "cannot set the hints");
    /* both pointers restart at 0; the holders reset the shared one between the agreement
     * (every earlier access is complete) and this barrier (no later one has begun) */
    if (io_sites_keeper(f))
        io_shared_local_set(f, 0);
    if ((all = icoll_barrier(f->comm)) != MPI_SUCCESS)
        return file_raise(f, all, F, "the closing barrier failed");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_set_view)

/* A handle the caller owns: predefined types as they are, derived ones as a new handle to
 * the same type (freed by MPI_Type_free, MPI-3.1 §13.3). */
static MPI_Datatype give_type(dtype_t *t)
{
    if (t->predefined)
        return t->handle;
    MPI_Datatype h;
    dtype_retain(t);
    dtype_publish(t, &h);
    return h;
}

API_EXPORT int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                                  MPI_Datatype *filetype, char *datarep)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_view";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, disp, F, "disp");
    FILE_CHECK_PTR(f, etype, F, "etype");
    FILE_CHECK_PTR(f, filetype, F, "filetype");
    FILE_CHECK_PTR(f, datarep, F, "datarep");
    *disp = f->disp;
    *etype = give_type(f->etype);
    *filetype = give_type(f->filetype);
    snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->datarep);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_view)

/* The extent in the file's representation: that of the type's file twin (io/reptype.c). */
API_EXPORT int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_type_extent";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, extent, F, "extent");
    dtype_t *t = dtype_lookup_user(datatype);
    if (!t)
        return file_raise(f, MPI_ERR_TYPE, F, "invalid datatype handle 0x%x",
                          (unsigned)datatype);
    dtype_t *twin;
    int rc = io_rep_type(&f->rep, t, &twin);
    if (rc != MPI_SUCCESS)
        return file_raise(f, rc, F, "cannot measure the datatype in data representation '%s'",
                          f->datarep);
    *extent = twin->ub - twin->lb;
    dtype_release(twin);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_type_extent)

API_EXPORT int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_byte_offset";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, disp, F, "disp");
    int rc = file_check_not_sequential(f, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (offset < 0)
        return file_raise(f, MPI_ERR_ARG, F, "negative offset %lld", (long long)offset);
    *disp = io_view_byte_offset(f, offset * f->fetype->size);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_byte_offset)
