/* Reads and writes through the view: the file runs of the requested range of the view's
 * stream (view.c), each moved with one pwritev/preadv whose iovecs are the matching pieces
 * of the memory buffer (the datatype engine's cursor over (memtype, buf, count)). A
 * contiguous buffer is one iovec per run; no per-element loop anywhere. With the
 * "external32" representation the data goes through a packed buffer converted by
 * datatype/external32.c, with a representation of MPI_Register_datarep through its
 * conversion functions (both restricted to types whose file sizes are the native ones:
 * docs/io.md). */
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

/* external32: the packed bytes are the stream's bytes (sizes equal to native ones) */
static int transfer_ext32(io_file_t *f, MPI_Offset start, void *buf, size_t count,
                          dtype_t *memtype, int write, size_t *done)
{
    size_t bytes = count * (size_t)memtype->ext32_size;
    unsigned char *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return MPI_ERR_NO_MEM;
    dtype_t *byte = dtype_lookup(MPI_BYTE);
    int rc = MPI_SUCCESS;
    if (write) {
        rc = ext32_pack(memtype, buf, count, packed);
        if (rc == MPI_SUCCESS)
            rc = transfer(f, start, packed, bytes, byte, 1, done);
    } else {
        rc = transfer(f, start, packed, bytes, byte, 0, done);
        /* whole elements only: a read cut by the end of the file converts what it got */
        size_t whole = memtype->ext32_size ? *done / (size_t)memtype->ext32_size : 0;
        if (rc == MPI_SUCCESS && whole > 0)
            rc = ext32_unpack(memtype, packed, whole, buf);
    }
    free(packed);
    return rc;
}

/* A representation of MPI_Register_datarep: its conversion functions fill or read a packed
 * buffer of file data (MPI_CONVERSION_FN_NULL: the native bytes, moved directly). */
static int transfer_user(io_file_t *f, MPI_Offset start, void *buf, size_t count,
                         dtype_t *memtype, int write, size_t *done)
{
    const io_datarep_t *rep = f->user_rep;
    MPI_Datarep_conversion_function *convert = write ? rep->write : rep->read;
    if (!convert)
        return transfer(f, start, buf, count, memtype, write, done);
    if (count > INT_MAX)
        return MPI_ERR_COUNT;
    size_t bytes = count * (size_t)memtype->size;
    unsigned char *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return MPI_ERR_NO_MEM;
    dtype_t *byte = dtype_lookup(MPI_BYTE);
    int rc = MPI_SUCCESS;
    if (write) {
        rc = convert(buf, memtype->handle, (int)count, packed, 0, rep->extra);
        if (rc == MPI_SUCCESS)
            rc = transfer(f, start, packed, bytes, byte, 1, done);
    } else {
        rc = transfer(f, start, packed, bytes, byte, 0, done);
        size_t whole = memtype->size ? *done / (size_t)memtype->size : 0;
        if (rc == MPI_SUCCESS && whole > 0)
            rc = convert(buf, memtype->handle, (int)whole, packed, 0, rep->extra);
    }
    free(packed);
    return rc;
}

int io_write(io_file_t *f, MPI_Offset start, const void *buf, size_t count, dtype_t *memtype,
             size_t *done)
{
    if (f->external32)
        return transfer_ext32(f, start, (void *)buf, count, memtype, 1, done);
    if (f->user_rep)
        return transfer_user(f, start, (void *)buf, count, memtype, 1, done);
    return transfer(f, start, (void *)buf, count, memtype, 1, done);
}

int io_read(io_file_t *f, MPI_Offset start, void *buf, size_t count, dtype_t *memtype,
            size_t *done)
{
    if (f->external32)
        return transfer_ext32(f, start, buf, count, memtype, 0, done);
    if (f->user_rep)
        return transfer_user(f, start, buf, count, memtype, 0, done);
    return transfer(f, start, buf, count, memtype, 0, done);
}
