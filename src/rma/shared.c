/* Shared-memory windows (MPI_Win_allocate_shared): one segment per window on the one host
 * all members share, the members' parts contiguous in rank order (MPI-3.1 §11.2.3 default),
 * mapped by each member; its name starts with "metampi.<job id>." so the launcher sweeps it
 * after a crash, and it is unlinked as soon as every member mapped it. Operations through
 * MPI calls still travel as messages (the target writes into the segment); loads and stores
 * through MPI_Win_shared_query's pointers are direct. */
#include "rma/win.h"

#include "core/icoll.h"
#include "core/p2p.h"
#include "runtime/job.h"

#include <fcntl.h>
#include <stdio.h>
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

static size_t total_bytes(const win_t *w)
{
    size_t t = 0;
    for (int r = 0; r < w->comm->size; r++)
        t += (size_t)w->sizes[r];
    return t;
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
    size_t map = total_bytes(w) ? total_bytes(w) : 1;
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
    w->base = w->size ? (char *)p + rma_shared_offset(w, w->comm->rank) : NULL;
    return MPI_SUCCESS;
}

size_t rma_shared_offset(const win_t *w, int rank)
{
    size_t off = 0;
    for (int r = 0; r < rank; r++)
        off += (size_t)w->sizes[r];
    return off;
}

void rma_shared_unmap(win_t *w)
{
    if (w->shared_seg)
        munmap(w->shared_seg, w->shared_bytes);
    w->shared_seg = NULL;
}
