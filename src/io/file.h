/*
 * Parallel I/O (MPI-3.1 chapter 13): file objects on a POSIX file system (docs/io.md).
 *
 * A file owns a private duplicate of the communicator it was opened on (io_file_t.comm), so
 * the collectives of its calls never match a user message. Every member opens the path with
 * open(2) and keeps its own descriptor; data moves with pread/pwrite (preadv/pwritev) at
 * explicit offsets, so no descriptor offset is ever shared state, and O_APPEND is never
 * passed (Linux's pwrite would ignore the offset).
 *
 * The view (MPI-3.1 §13.3): the file seen by this process is the packed stream of the
 * filetype tiled from byte `disp` on; positions are counted in etypes of that stream. The
 * filetype's layout (datatype engine) is walked by a cursor whose base is the displacement,
 * so the "addresses" it yields are file offsets: io_view_runs (view.c) turns a range of the
 * stream into (offset, length) runs without a per-element loop.
 *
 * Errors: functions return MPI_SUCCESS or an error class; *_errno variants keep errno's
 * mapping in one place (io_errno_class).
 */
#ifndef METAMPI_IO_FILE_H
#define METAMPI_IO_FILE_H

#include "core/comm.h"
#include "rma/win.h"
#include "core/info.h"
#include "datatype/dtype.h"

#include <mpi.h>

#define FILE_KIND 0x28000000u

/* A file's data representation: native/internal (both 0), external32, or one of
 * MPI_Register_datarep (user). */
typedef struct io_rep {
    int external32;
    const struct io_datarep *user;
} io_rep_t;

/* The hints acted on (hints.c); switches are IO_HINT_*. */
enum { IO_HINT_AUTO, IO_HINT_ENABLE, IO_HINT_DISABLE };
typedef struct io_hints {
    long long cb_buffer_size;     /* bytes an aggregator moves per cycle of two-phase */
    int cb_nodes;                 /* aggregators asked for (0: one per host) */
    int cb_read, cb_write;        /* romio_cb_read / _write: two-phase or independent */
    long long ind_rd_buffer_size; /* data sieving: the most bytes read at once */
    int ds_read;                  /* romio_ds_read */
} io_hints_t;

/* Where the file lives in a job across sites (sites.c) */
enum { IO_SITES_SHARED, IO_SITES_ROOT, IO_SITES_EACH };

typedef struct io_file {
    MPI_File handle;
    comm_t *comm;                /* the private duplicate (see above) */
    int fd;
    int amode;
    char *path;                  /* as given to MPI_File_open (messages) */
    char *local;                 /* the path this member opens (sites.c), or NULL */
    info_t *info;                /* the hints as last set, with the values in use */
    io_hints_t hints;            /* the same for every member (rank 0's) */
    int *aggr, naggr;            /* the aggregators of two-phase (ranks of comm) */
    int sites;                   /* IO_SITES_* (sites.c) */
    int *site;                   /* the site of every member */
    int site_leader;             /* the lowest rank of my site */
    int opens;                   /* this member has the file open (fd) */
    MPI_Errhandler errhandler;
    int atomic;                  /* MPI_File_set_atomicity */
    long long locked_start, locked_len; /* atomic mode: the range locked (rw.c) */
    /* the view */
    MPI_Offset disp;
    dtype_t *etype, *filetype;   /* referenced */
    io_rep_t rep;                /* the data representation */
    char datarep[MPI_MAX_DATAREP_STRING];
    /* etype and filetype measured in the file's representation (reptype.c): the same objects
     * for native data; every offset, position and stream size of the view uses these */
    dtype_t *fetype, *ftype;
    MPI_Offset pos;              /* the individual file pointer, in etypes of the view */
    win_t *shared;               /* the shared file pointer (shared.c) */
    /* a split collective between its _begin and _end (MPI-3.1 §13.4.5): at most one */
    const char *split;           /* the _begin's name, or NULL */
    int split_rc;
    MPI_Status split_status;
} io_file_t;

/* ---- objects (file.c) --------------------------------------------------------------------- */

/* Collective over c (an intra-communicator): opens path with amode (checked by the caller)
 * at every member. Creation (MPI_MODE_CREATE, _EXCL) is done by rank 0 alone before the
 * others open, so EXCL means "did not exist before this call" for the whole group. Every
 * member returns the same class: MPI_SUCCESS, or the first error of the lowest rank that
 * failed. */
int io_open(comm_t *c, const char *path, int amode, info_t *info, io_file_t **out);
/* Collective: closes (and with DELETE_ON_CLOSE, once everyone closed, removes) the file. */
int io_close(io_file_t *f);
/* Removes path (MPI_File_delete): MPI_ERR_NO_SUCH_FILE, MPI_ERR_ACCESS, ... */
int io_delete(const char *path);
/* The file behind a handle, or NULL. */
io_file_t *io_lookup(MPI_File h);
/* The handler of MPI_FILE_NULL: for new files, MPI_File_open / _delete and bad handles. */
MPI_Errhandler io_default_errhandler(void);
void io_set_default_errhandler(MPI_Errhandler eh);
/* Maps errno after a failed system call to an MPI error class. */
int io_errno_class(int err);

/* ---- hints (hints.c) and aggregators (aggr.c) ------------------------------------------------ */

void io_hints_default(io_hints_t *h);
/* Collective: merges `given` (may be NULL) into f->info, takes rank 0's hint values, chooses
 * the aggregators and writes the values in use into f->info. */
int io_hints_set(io_file_t *f, const info_t *given);
/* Collective: f->aggr and f->naggr, the aggregators of collective I/O (ranks of f->comm):
 * cb_nodes of them (default: the lowest rank of each host), spread over the hosts, as rank 0
 * chooses them. */
int io_aggregators_agree(io_file_t *f);

/* ---- paths across sites (sites.c) --------------------------------------------------------- */

/* Collective: the mode of the info key metampi_file_sites (rank 0's), the members' sites. */
int io_sites_setup(io_file_t *f, const info_t *info);
/* The path a member at site `site` opens (METAMPI_IO_SITE_DIRS: DIR/<site name>/path for a
 * relative path, the directory created); *out malloc'd. */
int io_sites_path(int site, const char *path, char **out);
/* The site of this process (MPI_File_delete). */
int io_sites_my_site(void);
/* Nonzero when member r reaches the same file as this member does (aggregation). */
int io_sites_same_file(const io_file_t *f, int r);
/* Nonzero for the member that creates, resizes and deletes the file this member sees. */
int io_sites_keeper(const io_file_t *f);

/* ---- the file's size and contents (size.c) ------------------------------------------------ */

int io_sync(io_file_t *f);                            /* collective */
int io_set_size(io_file_t *f, MPI_Offset size);       /* collective */
int io_preallocate(io_file_t *f, MPI_Offset size);    /* collective */
int io_get_size(io_file_t *f, MPI_Offset *size);

/* ---- the view (view.c) --------------------------------------------------------------------- */

/* Installs a checked view (both types committed; the filetype's pieces are non-negative,
 * increasing and its repetitions do not overlap: io_view_check on the file twins fetype and
 * ftype, whose references it takes over) and resets the individual file pointer. */
void io_set_view(io_file_t *f, MPI_Offset disp, dtype_t *etype, dtype_t *filetype,
                 dtype_t *fetype, dtype_t *ftype, const char *datarep, io_rep_t rep);
/* NULL when filetype can be a view's filetype over etype, else what is wrong. */
const char *io_view_check(const dtype_t *etype, dtype_t *filetype);
/* One run of file bytes: called for each, in file order, until it returns nonzero. */
typedef int io_run_fn(void *arg, MPI_Offset offset, size_t len);
/* The file runs of bytes [start, start + n) of the view's stream (start counted in bytes
 * from the view's position 0), merged where adjacent; returns the first nonzero value of fn,
 * or 0. */
int io_view_runs(io_file_t *f, MPI_Offset start, MPI_Offset n, io_run_fn *fn, void *arg);
/* Nonzero when bytes [start, start + n) of the stream are one run of the file. */
int io_view_contiguous(io_file_t *f, MPI_Offset start, MPI_Offset n);
/* The absolute byte offset of the view's position `bytes` (MPI_File_get_byte_offset). */
MPI_Offset io_view_byte_offset(io_file_t *f, MPI_Offset bytes);
/* The bytes of the view's stream that lie below file offset `size` (for MPI_SEEK_END). */
MPI_Offset io_view_bytes_below(io_file_t *f, MPI_Offset size);

/* ---- the shared file pointer (shared.c) ----------------------------------------------------
 * One 64-bit counter (etypes of the view) in an internal window of 8 bytes at the pointer's
 * holder: rank 0 of the file's communicator, or with a file per site (metampi_file_sites=each)
 * each site's lowest rank, whose counter is its site's file's pointer, moved by that site's
 * members alone. Members move it with an atomic fetch-and-add (the one-sided emulation,
 * rma/), on one host and across hosts alike. A holder (io_sites_keeper) also writes its
 * counter directly, but only inside collectives, between synchronisations that order the
 * write after every member's earlier use and before every later one. */

/* Collective: creates the counter with value `initial` / frees it. */
int io_shared_create(io_file_t *f, MPI_Offset initial);
void io_shared_free(io_file_t *f);
/* Atomically adds delta (etypes) and returns the value before in *old. */
int io_shared_fetch_add(io_file_t *f, MPI_Offset delta, MPI_Offset *old);
/* The rank that holds this member's pointer. */
int io_shared_holder(const io_file_t *f);
/* At a holder only, inside a collective (see above). */
MPI_Offset io_shared_local_get(io_file_t *f);
void io_shared_local_set(io_file_t *f, MPI_Offset value);

/* ---- data representations of MPI_Register_datarep (datarep.c) -------------------------------
 * The extent function sizes the file layout (reptype.c); the conversion functions fill or
 * read a packed buffer of file data. Registrations live until the process ends (MPI-3.1
 * §13.5.3 gives them no end either). */

typedef struct io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read, *write; /* may be MPI_CONVERSION_FN_NULL */
    MPI_Datarep_extent_function *extent;
    void *extra;
} io_datarep_t;

/* MPI_SUCCESS, MPI_ERR_DUP_DATAREP (the name is taken, predefined ones included) or
 * MPI_ERR_NO_MEM. */
int io_datarep_register(const io_datarep_t *rep);
/* The representation of that name, or NULL. */
const io_datarep_t *io_datarep_find(const char *name);
/* rep's functions, called without the core lock (core_lock_callout_begin: like every callback
 * of the program, they may wait for a lock of its own that another thread holds while it
 * calls MPI). Meanwhile the conversions keep memtype referenced (another thread may free its
 * handle); the buffers are the caller's own. */
int io_datarep_extent(const io_datarep_t *rep, MPI_Datatype basic, MPI_Aint *extent);
int io_datarep_read(const io_datarep_t *rep, void *userbuf, dtype_t *memtype, int count,
                    void *filebuf);
int io_datarep_write(const io_datarep_t *rep, void *userbuf, dtype_t *memtype, int count,
                     void *filebuf);

/* ---- types in a representation (reptype.c) -------------------------------------------------
 * The file size of one basic element (a predefined.h index), or -1 when an extent function
 * fails; of one element of t (the bytes of the view's stream it fills); and t's "file twin":
 * t built again with every basic element at its file size (MPI-3.1 §13.5.1: constructors
 * counting in elements scale, byte displacements stay), committed, t itself (retained) when
 * nothing changes. The caller releases *out. MPI_ERR_UNSUPPORTED_DATAREP when an extent
 * function fails or a part cannot be rebuilt. */
MPI_Aint io_rep_basic_size(const io_rep_t *rep, int basic);
MPI_Count io_rep_size(const io_rep_t *rep, dtype_t *t);
int io_rep_type(const io_rep_t *rep, dtype_t *t, dtype_t **out);

/* ---- reads and writes (rw.c) ---------------------------------------------------------------- */

/* count elements of memtype at buf, to or from the view's stream at byte `start`, with
 * pwritev/preadv per file run (no per-element loop). *done: the bytes of the stream moved
 * (a read stops early at the end of the file). MPI_SUCCESS or an error class. */
int io_write(io_file_t *f, MPI_Offset start, const void *buf, size_t count, dtype_t *memtype,
             size_t *done);
int io_read(io_file_t *f, MPI_Offset start, void *buf, size_t count, dtype_t *memtype,
            size_t *done);

/* count elements of memtype at buf in the file's representation: a malloc'd buffer of
 * *bytes bytes (freed by the caller), and back (the whole elements of `bytes`). For native
 * data the packed bytes. */
int io_rep_pack(io_file_t *f, const void *buf, size_t count, dtype_t *memtype,
                unsigned char **packed, size_t *bytes);
int io_rep_unpack(io_file_t *f, const unsigned char *packed, size_t bytes, void *buf,
                  dtype_t *memtype);

/* ---- collective access (twophase.c) ----------------------------------------------------------
 * Collective over the file's members: io_write / io_read of every member, by two-phase
 * aggregation (one aggregator per host, docs/io.md). failed: this member's own checks failed
 * (an error class; it takes part with nothing, so none waits); then every member returns an
 * error. Any data representation (the data moves converted); not in atomic mode (the caller
 * takes the independent path). */
int io_collective(io_file_t *f, MPI_Offset start, void *buf, size_t count, dtype_t *memtype,
                  int write, int failed, size_t *done);

#endif
