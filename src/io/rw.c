/* Reads and writes through the view: the file runs of the requested range of the view's
 * stream (view.c), each moved with one pwritev/preadv whose iovecs are the matching pieces
 * of the memory buffer (the datatype engine's cursor over (memtype, buf, count)). A
 * contiguous buffer is one iovec per run; no per-element loop anywhere. With the
 * "external32" representation the data goes through a packed buffer converted by
 * datatype/external32.c, with a representation of MPI_Register_datarep through its
 * conversion functions; the view's layout is then that of the file twins (reptype.c). */
#include "io/file.h"

#include "datatype/construct.h"
#include "datatype/external32.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define IOV_PER_CALL 64

/* Data sieving (romio_ds_read): gaps up to this size join a window in "automatic" mode (a
 * wider gap costs more to read than another system call); "enable" joins any gap. */
#define SIEVE_GAP_AUTO (16 << 10)
/* runs remembered per window */
#define SIEVE_RUNS 1024

typedef struct transfer {
    int fd;
    int write;
    dt_cursor_t mem;          /* the memory side, advanced run by run */
    size_t done;              /* stream bytes moved */
    int eof;                  /* a read met the end of the file */
    int err;                  /* errno of a failed call */
    /* data sieving of a read: the pending window [runs[0].off, end of runs[n - 1]) */
    unsigned char *sieve;     /* NULL: no sieving */
    size_t sieve_cap;
    int64_t gap_max;
    struct { int64_t off; size_t len; } runs[SIEVE_RUNS];
    size_t nruns;
} transfer_t;

/* Moves len bytes at file offset `offset` from/to the next len bytes of the memory cursor;
 * retries short transfers, stops a read at the end of the file. */
static int move_run(void *arg, MPI_Offset offset, size_t len)
{
    transfer_t *t = arg;
    while (len > 0) {
        struct iovec iov[IOV_PER_CALL];
        size_t covered;
        int n = dt_iov(&t->mem, iov, IOV_PER_CALL, len, &covered);
        if (n <= 0)
            return 1;
        struct iovec *v = iov;
        size_t left = covered;
        while (left > 0) {
            ssize_t r = t->write ? pwritev(t->fd, v, n, (off_t)offset)
                                 : preadv(t->fd, v, n, (off_t)offset);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                t->err = errno;
                return 1;
            }
            if (r == 0) { /* a read at the end of the file (a write never returns 0) */
                t->eof = 1;
                return 1;
            }
            t->done += (size_t)r;
            offset += r;
            left -= (size_t)r;
            /* skip what went; a partly moved iovec continues from its rest */
            while (n > 0 && (size_t)r >= v->iov_len) {
                r -= (ssize_t)v->iov_len;
                v++;
                n--;
            }
            if (n > 0) {
                v->iov_base = (char *)v->iov_base + r;
                v->iov_len -= (size_t)r;
            }
        }
        len -= covered;
    }
    return 0;
}

/* The pending window of a sieved read: one pread of its whole span into the sieve buffer,
 * then each run's bytes to memory. A lone run goes straight to memory (move_run). */
static int sieve_flush(transfer_t *t)
{
    size_t n = t->nruns;
    t->nruns = 0;
    if (n == 0)
        return 0;
    if (n == 1)
        return move_run(t, t->runs[0].off, t->runs[0].len);
    int64_t lo = t->runs[0].off, hi = t->runs[n - 1].off + (int64_t)t->runs[n - 1].len;
    size_t got = 0, span = (size_t)(hi - lo);
    while (got < span) {
        ssize_t r = pread(t->fd, t->sieve + got, span - got, (off_t)(lo + (int64_t)got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            t->err = errno;
            return 1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t at = t->runs[i].off - lo;
        size_t have = (int64_t)got > at ? got - (size_t)at : 0;
        size_t take = have < t->runs[i].len ? have : t->runs[i].len;
        dt_unpack(&t->mem, t->sieve + at, take);
        t->done += take;
        if (take < t->runs[i].len) {
            t->eof = 1;
            return 1;
        }
    }
    return 0;
}

/* A run of a sieved read: joins the pending window when the window stays within the buffer
 * and the gap is small enough, else the window is read first. */
static int sieve_run(void *arg, MPI_Offset off, size_t len)
{
    transfer_t *t = arg;
    if (t->nruns > 0) {
        int64_t lo = t->runs[0].off, end = t->runs[t->nruns - 1].off +
                                           (int64_t)t->runs[t->nruns - 1].len;
        if (t->nruns == SIEVE_RUNS || off - end > t->gap_max ||
            off + (int64_t)len - lo > (int64_t)t->sieve_cap) {
            if (sieve_flush(t))
                return 1;
        }
    }
    if (len > t->sieve_cap)
        return move_run(t, off, len);
    t->runs[t->nruns].off = off;
    t->runs[t->nruns++].len = len;
    return 0;
}

/* Atomic mode (MPI-3.1 §13.6.1): a byte-range lock over the span of the access, shared for
 * reads and exclusive for writes, so that concurrent overlapping accesses of the members
 * (on any host of a file system with POSIX locks) are serialised. Open file description
 * locks where the kernel has them: they belong to this descriptor, so no other descriptor
 * of the process (the user's own open of the file) can drop them. */
#ifdef F_OFD_SETLKW
#define IO_SETLKW F_OFD_SETLKW
#else
#define IO_SETLKW F_SETLKW
#endif

static int range_lock(io_file_t *f, MPI_Offset start, size_t bytes, short type)
{
    struct flock fl = { 0 };
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    if (type != F_UNLCK) {
        MPI_Offset lo = io_view_byte_offset(f, start);
        MPI_Offset hi = io_view_byte_offset(f, start + (MPI_Offset)bytes - 1) + 1;
        fl.l_start = (off_t)lo;
        fl.l_len = (off_t)(hi - lo);
        f->locked_start = fl.l_start;
        f->locked_len = fl.l_len;
    } else {
        fl.l_start = f->locked_start;
        fl.l_len = f->locked_len;
    }
    while (fcntl(f->fd, IO_SETLKW, &fl) != 0) {
        if (errno != EINTR)
            return io_errno_class(errno);
    }
    return MPI_SUCCESS;
}

static int transfer(io_file_t *f, MPI_Offset start, void *buf, size_t count, dtype_t *memtype,
                    int write, size_t *done)
{
    *done = 0;
    size_t bytes = count * (size_t)memtype->size;
    if (bytes == 0)
        return MPI_SUCCESS;
    const dt_layout_t *ml = dtype_layout(memtype);
    if (!ml)
        return MPI_ERR_NO_MEM;
    transfer_t *t = malloc(sizeof *t);
    if (!t)
        return MPI_ERR_NO_MEM;
    *t = (transfer_t){ .fd = f->fd, .write = write };
    dt_cursor_init(&t->mem, ml, (uintptr_t)buf, count);
    /* data sieving: reads of a view of several runs (the buffer is never larger than the
     * request's span needs) */
    if (!write && f->hints.ds_read != IO_HINT_DISABLE &&
        !io_view_contiguous(f, start, (MPI_Offset)bytes)) {
        t->sieve_cap = (size_t)f->hints.ind_rd_buffer_size;
        MPI_Offset span = io_view_byte_offset(f, start + (MPI_Offset)bytes - 1) + 1 -
                          io_view_byte_offset(f, start);
        if ((MPI_Offset)t->sieve_cap > span)
            t->sieve_cap = (size_t)span;
        t->gap_max = f->hints.ds_read == IO_HINT_ENABLE ? INT64_MAX : SIEVE_GAP_AUTO;
        t->sieve = malloc(t->sieve_cap ? t->sieve_cap : 1);
        if (!t->sieve) {
            free(t);
            return MPI_ERR_NO_MEM;
        }
    }
    if (f->atomic) {
        int rc = range_lock(f, start, bytes, write ? F_WRLCK : F_RDLCK);
        if (rc != MPI_SUCCESS) {
            free(t->sieve);
            free(t);
            return rc;
        }
    }
    if (t->sieve) {
        if (!io_view_runs(f, start, (MPI_Offset)bytes, sieve_run, t))
            sieve_flush(t);
    } else {
        io_view_runs(f, start, (MPI_Offset)bytes, move_run, t);
    }
    if (f->atomic)
        range_lock(f, start, bytes, F_UNLCK);
    *done = t->done;
    int err = t->err;
    free(t->sieve);
    free(t);
    if (err)
        return io_errno_class(err);
    return MPI_SUCCESS;
}

/* The file representation of count elements of memtype at buf, packed (external32, or a
 * registered representation's write function; MPI_CONVERSION_FN_NULL: the native bytes). */
int io_rep_pack(io_file_t *f, const void *buf, size_t count, dtype_t *memtype,
                unsigned char **packed, size_t *bytes)
{
    MPI_Count each = io_rep_size(&f->rep, memtype);
    *packed = NULL;
    if (each < 0)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    if (f->rep.user && count > INT_MAX)
        return MPI_ERR_COUNT;
    *bytes = count * (size_t)each;
    if (!(*packed = malloc(*bytes ? *bytes : 1)))
        return MPI_ERR_NO_MEM;
    int rc;
    if (f->rep.external32) {
        rc = ext32_pack(memtype, buf, count, *packed);
    } else if (f->rep.user && f->rep.user->write) {
        rc = io_datarep_write(f->rep.user, (void *)buf, memtype, (int)count, *packed);
    } else if (each == memtype->size) {
        dt_cursor_t cur;
        dt_cursor_init(&cur, dtype_layout(memtype), (uintptr_t)buf, count);
        dt_pack(&cur, *packed, *bytes);
        rc = MPI_SUCCESS;
    } else { /* no function, yet the file's sizes are not the memory's */
        rc = MPI_ERR_UNSUPPORTED_DATAREP;
    }
    if (rc != MPI_SUCCESS) {
        free(*packed);
        *packed = NULL;
    }
    return rc;
}

int io_rep_unpack(io_file_t *f, const unsigned char *packed, size_t bytes, void *buf,
                  dtype_t *memtype)
{
    MPI_Count each = io_rep_size(&f->rep, memtype);
    if (each <= 0)
        return each < 0 ? MPI_ERR_UNSUPPORTED_DATAREP : MPI_SUCCESS;
    /* whole elements only: a read cut by the end of the file converts what it got */
    size_t whole = bytes / (size_t)each;
    if (whole == 0)
        return MPI_SUCCESS;
    if (f->rep.external32)
        return ext32_unpack(memtype, packed, whole, buf);
    if (f->rep.user && f->rep.user->read)
        return io_datarep_read(f->rep.user, buf, memtype, (int)whole, (void *)packed);
    if (each != memtype->size)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    dt_cursor_t cur;
    dt_cursor_init(&cur, dtype_layout(memtype), (uintptr_t)buf, whole);
    dt_unpack(&cur, packed, whole * (size_t)each);
    return MPI_SUCCESS;
}

/* A representation other than native: the data goes through a packed buffer of file data. */
static int transfer_rep(io_file_t *f, MPI_Offset start, void *buf, size_t count,
                        dtype_t *memtype, int write, size_t *done)
{
    *done = 0;
    dtype_t *byte = dtype_lookup(MPI_BYTE);
    unsigned char *packed;
    size_t bytes;
    int rc;
    if (write) {
        rc = io_rep_pack(f, buf, count, memtype, &packed, &bytes);
        if (rc == MPI_SUCCESS)
            rc = transfer(f, start, packed, bytes, byte, 1, done);
    } else {
        MPI_Count each = io_rep_size(&f->rep, memtype);
        if (each < 0)
            return MPI_ERR_UNSUPPORTED_DATAREP;
        if (f->rep.user && count > INT_MAX)
            return MPI_ERR_COUNT;
        bytes = count * (size_t)each;
        if (!(packed = malloc(bytes ? bytes : 1)))
            return MPI_ERR_NO_MEM;
        rc = transfer(f, start, packed, bytes, byte, 0, done);
        if (rc == MPI_SUCCESS)
            rc = io_rep_unpack(f, packed, *done, buf, memtype);
    }
    free(packed);
    return rc;
}

int io_write(io_file_t *f, MPI_Offset start, const void *buf, size_t count, dtype_t *memtype,
             size_t *done)
{
    if (f->rep.external32 || f->rep.user)
        return transfer_rep(f, start, (void *)buf, count, memtype, 1, done);
    return transfer(f, start, (void *)buf, count, memtype, 1, done);
}

int io_read(io_file_t *f, MPI_Offset start, void *buf, size_t count, dtype_t *memtype,
            size_t *done)
{
    if (f->rep.external32 || f->rep.user)
        return transfer_rep(f, start, buf, count, memtype, 0, done);
    return transfer(f, start, buf, count, memtype, 0, done);
}
