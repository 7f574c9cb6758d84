/* The view (MPI-3.1 §13.3): the filetype tiled from `disp`, walked by the datatype engine's
 * cursor with base = disp, so its "addresses" are file offsets. */
#include "io/file.h"

#include "datatype/construct.h"

#include <stdio.h>
#include <string.h>

/* Runs fetched per cursor step */
#define RUNS_PER_STEP 64

void io_set_view(io_file_t *f, MPI_Offset disp, dtype_t *etype, dtype_t *filetype,
                 dtype_t *fetype, dtype_t *ftype, const char *datarep, io_rep_t rep)
{
    dtype_retain(etype);
    dtype_retain(filetype);
    dtype_release(f->etype);
    dtype_release(f->filetype);
    dtype_release(f->fetype);
    dtype_release(f->ftype);
    f->etype = etype;
    f->filetype = filetype;
    f->fetype = fetype;
    f->ftype = ftype;
    f->disp = disp;
    f->pos = 0;
    f->rep = rep;
    snprintf(f->datarep, sizeof f->datarep, "%s", datarep);
}

const char *io_view_check(const dtype_t *etype, dtype_t *filetype)
{
    if (etype->size <= 0)
        return "the etype holds no data";
    if (filetype->size <= 0 || filetype->size % etype->size)
        return "the filetype's size is not a positive multiple of the etype's";
    if (filetype->true_lb < 0)
        return "the filetype has a negative displacement";
    if (filetype->true_ub - filetype->true_lb > filetype->ub - filetype->lb)
        return "the filetype's repetitions overlap (its extent is smaller than its data's)";
    const dt_layout_t *l = dtype_layout(filetype);
    if (!l)
        return "out of memory";
    /* one element, piece by piece: the pieces must not go back or overlap (§13.3) */
    dt_cursor_t c;
    dt_cursor_init(&c, l, 0, 1);
    struct iovec iov[RUNS_PER_STEP];
    uintptr_t end = 0;
    size_t got;
    int n;
    while ((n = dt_iov(&c, iov, RUNS_PER_STEP, SIZE_MAX, &got)) > 0) {
        for (int i = 0; i < n; i++) {
            uintptr_t at = (uintptr_t)iov[i].iov_base;
            if (at < end)
                return "the filetype's pieces are not in increasing order of displacement";
            end = at + iov[i].iov_len;
        }
    }
    return NULL;
}

/* Repetitions of the filetype that hold the stream up to byte `upto`. */
static size_t reps_for(const io_file_t *f, MPI_Offset upto)
{
    MPI_Offset per = f->ftype->size;
    return (size_t)((upto + per - 1) / per);
}

int io_view_runs(io_file_t *f, MPI_Offset start, MPI_Offset n, io_run_fn *fn, void *arg)
{
    if (n <= 0)
        return 0;
    const dt_layout_t *l = dtype_layout(f->ftype);
    size_t reps = reps_for(f, start + n);
    if (dt_layout_contiguous(l, reps)) {
        /* one run: the data of every repetition follows the previous one's */
        return fn(arg, f->disp + f->ftype->true_lb + start, (size_t)n);
    }
    dt_cursor_t c;
    dt_cursor_init(&c, l, (uintptr_t)f->disp, reps);
    dt_cursor_seek(&c, (size_t)start);
    struct iovec iov[RUNS_PER_STEP];
    size_t left = (size_t)n, got;
    while (left > 0) {
        int k = dt_iov(&c, iov, RUNS_PER_STEP, left, &got);
        if (k <= 0)
            break;
        for (int i = 0; i < k; i++) {
            int rc = fn(arg, (MPI_Offset)(uintptr_t)iov[i].iov_base, iov[i].iov_len);
            if (rc)
                return rc;
        }
        left -= got;
    }
    return 0;
}

int io_view_contiguous(io_file_t *f, MPI_Offset start, MPI_Offset n)
{
    return dt_layout_contiguous(dtype_layout(f->ftype), reps_for(f, start + n));
}

static int first_run(void *arg, MPI_Offset offset, size_t len)
{
    (void)len;
    *(MPI_Offset *)arg = offset;
    return 1;
}

MPI_Offset io_view_byte_offset(io_file_t *f, MPI_Offset bytes)
{
    MPI_Offset at = f->disp; /* always replaced: a view's stream has no end */
    io_view_runs(f, bytes, 1, first_run, &at);
    return at;
}

/* Counts the stream's bytes below a file offset: runs come in increasing order. */
typedef struct below {
    MPI_Offset limit, bytes;
} below_t;

static int count_below(void *arg, MPI_Offset offset, size_t len)
{
    below_t *b = arg;
    if (offset >= b->limit)
        return 1;
    MPI_Offset end = offset + (MPI_Offset)len;
    b->bytes += (end <= b->limit ? end : b->limit) - offset;
    return end >= b->limit;
}

MPI_Offset io_view_bytes_below(io_file_t *f, MPI_Offset size)
{
    const dtype_t *t = f->ftype;
    MPI_Offset ext = t->ub - t->lb;
    if (size <= f->disp + t->true_lb)
        return 0;
    /* whole repetitions lie below `size`; the walk covers the (at most few) that straddle */
    MPI_Offset whole = ext > 0 ? (size - f->disp - t->true_ub) / ext + 1 : 0;
    if (whole < 0 || size - f->disp - t->true_ub < 0)
        whole = 0;
    below_t b = { size, whole * t->size };
    MPI_Offset span = (t->true_ub - t->true_lb) / (ext > 0 ? ext : 1) + 2;
    io_view_runs(f, b.bytes, (span + 1) * t->size, count_below, &b);
    return b.bytes;
}
