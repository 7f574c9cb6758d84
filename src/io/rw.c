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
#include <stdlib.h>
#include <unistd.h>

#define IOV_PER_CALL 64

typedef struct transfer {
    int fd;
    int write;
    dt_cursor_t mem;          /* the memory side, advanced run by run */
    size_t done;              /* stream bytes moved */
    int eof;                  /* a read met the end of the file */
    int err;                  /* errno of a failed call */
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
    transfer_t t = { .fd = f->fd, .write = write };
    dt_cursor_init(&t.mem, ml, (uintptr_t)buf, count);
    if (f->atomic) {
        int rc = range_lock(f, start, bytes, write ? F_WRLCK : F_RDLCK);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    io_view_runs(f, start, (MPI_Offset)bytes, move_run, &t);
    if (f->atomic)
        range_lock(f, start, bytes, F_UNLCK);
    *done = t.done;
    if (t.err)
        return io_errno_class(t.err);
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
        rc = f->rep.user->write((void *)buf, memtype->handle, (int)count, *packed, 0,
                                f->rep.user->extra);
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
        return f->rep.user->read(buf, memtype->handle, (int)whole, (void *)packed, 0,
                                 f->rep.user->extra);
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
