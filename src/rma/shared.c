/* The segment of a window on one host (MPI_Win_allocate_shared, and MPI_Win_allocate with
 * direct access): one per window, mapped by each member; its name starts with
 * "metampi.<job id>." so the launcher sweeps it after a crash, and it is unlinked as soon as
 * every member mapped it. Layout: one rma_ctrl_t per member (direct.c's lock words), then the
 * members' parts in rank order: contiguous for a shared window (MPI-3.1 §11.2.3 default),
 * each starting on a cache line for MPI_Win_allocate (whose base a user expects aligned);
 * none for MPI_Win_create with direct access (the control blocks only). */
#include "rma/win.h"

#include "core/errors.h"
#include "core/icoll.h"
#include "core/p2p.h"
#include "runtime/job.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned windows_made; /* shared windows this process named as member 0 */

int rma_shared_on_one_host(const comm_t *c)
{
    int host = p2p_host_of(comm_peer_world_rank(c, 0));
    for (int r = 1; r < c->size; r++)
        if (p2p_host_of(comm_peer_world_rank(c, r)) != host)
            return 0;
    return 1;
}

/* MPI_Win_allocate's parts start on a page, as memory from the system would: a copy into
 * a part whose offset in its page differs from the user buffer's by a few cache lines ran
 * 10 % slower (4K aliasing of loads and stores). MPI_Win_allocate_shared's parts follow
 * each other without a gap (MPI-3.1 §11.2.3), from the first page. */
enum { PART_ALIGN = 4096 };
_Static_assert(PART_ALIGN % sizeof(rma_ctrl_t) == 0, "the control blocks fill whole pages");

static size_t page_round(size_t n)
{
    return (n + PART_ALIGN - 1) / PART_ALIGN * PART_ALIGN;
}

static size_t part_bytes(const win_t *w, int rank)
{
    size_t n = w->flavor == MPI_WIN_FLAVOR_CREATE ? 0 : (size_t)w->sizes[rank];
    return w->flavor == MPI_WIN_FLAVOR_SHARED ? n : page_round(n);
}

/* Where rank's part starts in the segment (rank = the number of members: its size). */
static size_t shared_offset(const win_t *w, int rank)
{
    size_t off = page_round((size_t)w->comm->size * sizeof(rma_ctrl_t));
    for (int r = 0; r < rank; r++)
        off += part_bytes(w, r);
    return off;
}

static size_t total_bytes(const win_t *w)
{
    return shared_offset(w, w->comm->size);
}

/* Member 0 creates and backs the segment, the others map it once it exists; the name goes
 * once all mapped. Each step ends with an agreement, so all members fail together. */
int rma_shared_map(win_t *w)
{
    /* member 0 names the segment: unique in the job by its job rank and its count of shared
     * windows (emulated hosts share one /dev/shm); the others learn the name with the verdict */
    struct {
        int ok;
        char name[124];
    } seg = { 0, "" };
    size_t map = total_bytes(w);
    void *p = MAP_FAILED;
    if (w->comm->rank == 0) {
        int len = snprintf(seg.name, sizeof seg.name, "/metampi.%s.win.%d.%u", job.id,
                           comm_peer_world_rank(w->comm, 0), windows_made++);
        int fd = len > 0 && (size_t)len < sizeof seg.name
                     ? shm_open(seg.name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)
                     : -1;
        if (fd >= 0) {
            if (ftruncate(fd, (off_t)map) == 0 && posix_fallocate(fd, 0, (off_t)map) == 0)
                p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (p == MAP_FAILED)
                shm_unlink(seg.name);
        }
        seg.ok = p != MAP_FAILED;
    }
    int rc = icoll_bcast(w->comm, &seg, sizeof seg, 0);
    int ok = seg.ok;
    if (rc == MPI_SUCCESS && ok && w->comm->rank != 0) {
        int fd = shm_open(seg.name, O_RDWR | O_CLOEXEC, 0);
        if (fd >= 0) {
            p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
        }
        ok = p != MAP_FAILED;
    }
    if (rc == MPI_SUCCESS)
        rc = icoll_allreduce_int(w->comm, &ok, 1, ICOLL_MIN);
    if (w->comm->rank == 0 && p != MAP_FAILED)
        shm_unlink(seg.name);
    if (rc == MPI_SUCCESS && !ok)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        if (p != MAP_FAILED)
            munmap(p, map);
        return rc;
    }
    w->shared_seg = p;
    w->shared_bytes = map;
    w->ctrl = p;
    if (w->flavor == MPI_WIN_FLAVOR_CREATE)
        return MPI_SUCCESS;  /* control blocks only: the memory is the user's */
    w->parts = malloc((size_t)w->comm->size * sizeof *w->parts);
    if (!w->parts)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win_allocate", "out of memory for %d members",
                  w->comm->size);
    for (int r = 0; r < w->comm->size; r++)
        w->parts[r] = (char *)p + shared_offset(w, r);
    w->base = w->size ? w->parts[w->comm->rank] : NULL;
    return MPI_SUCCESS;
}

void rma_shared_unmap(win_t *w)
{
    if (w->shared_seg)
        munmap(w->shared_seg, w->shared_bytes);
    w->shared_seg = NULL;
    free(w->parts);
    w->parts = NULL;
}
