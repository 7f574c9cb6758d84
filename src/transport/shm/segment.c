/*
 * Segment lifetime: created in open() with O_EXCL (a leftover of the same job is an error, not
 * something to reuse), sparse, and unlinked in ready() (every local rank has mapped it by then)
 * or in close(). Memory is given to a part of it by shm_seg_back before anyone touches that
 * part: the header, control words and cells in open(), the pages of a pair's data ring by its
 * sender before its first frame that reaches them. So a full /dev/shm is an error with a
 * message instead of a SIGBUS, and a ring costs only the pages its frames reached (at 256
 * ranks on one host, fully allocated rings made 9.4 GB where a few hundred MB were used).
 * Between open() and ready() only the launcher's sweep of /dev/shm/metampi.<job_id>.*
 * removes the file of a crashed rank.
 */
#include "transport/shm/segment.h"

#include "transport/shm/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int shm_seg_name(char *buf, size_t size, const char *job_id, int rank)
{
    int n = snprintf(buf, size, "/metampi.%s.shm.%d", job_id, rank);
    return n < 0 || (size_t)n >= size || n - 1 > NAME_MAX ? -1 : 0;
}

int shm_seg_create(const char *job_id, int rank, size_t bytes, void **base, char *err,
                   int errlen)
{
    char name[NAME_MAX + 2];
    if (shm_seg_name(name, sizeof name, job_id, rank) < 0) {
        snprintf(err, (size_t)errlen, "shm: rank %d: job id '%s' is too long for a segment name",
                 rank, job_id);
        return -1;
    }
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, (size_t)errlen, "shm: rank %d cannot create /dev/shm%s: %s", rank, name,
                 strerror(errno));
        return -1;
    }
    const char *what = "size";
    int e = ftruncate(fd, (off_t)bytes) < 0 ? errno : 0;
    void *p = MAP_FAILED;
    if (!e) {
        what = "map";
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            e = errno;
    }
    close(fd);
    if (e) {
        shm_unlink(name);
        snprintf(err, (size_t)errlen, "shm: rank %d cannot %s its %zu-byte segment /dev/shm%s: %s",
                 rank, what, bytes, name, strerror(e));
        return -1;
    }
    *base = p;
    return 0;
}

int shm_seg_attach(const char *job_id, int rank, void **base, size_t *bytes, char *err,
                   int errlen)
{
    char name[NAME_MAX + 2];
    if (shm_seg_name(name, sizeof name, job_id, rank) < 0) {
        snprintf(err, (size_t)errlen, "shm: job id '%s' is too long for a segment name", job_id);
        return -1;
    }
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, (size_t)errlen, "shm: cannot open the segment /dev/shm%s of rank %d: %s",
                 name, rank, strerror(errno));
        return -1;
    }
    struct stat st;
    void *p = MAP_FAILED;
    int e = fstat(fd, &st) < 0 ? errno : 0;
    if (!e && st.st_size > 0)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (!e && p == MAP_FAILED)
        e = st.st_size > 0 ? errno : EINVAL;
    close(fd);
    if (e) {
        snprintf(err, (size_t)errlen, "shm: cannot map the segment /dev/shm%s of rank %d: %s",
                 name, rank, strerror(e));
        return -1;
    }
    *base = p;
    *bytes = (size_t)st.st_size;
    return 0;
}

int shm_seg_unlink(const char *job_id, int rank)
{
    char name[NAME_MAX + 2];
    if (shm_seg_name(name, sizeof name, job_id, rank) < 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return shm_unlink(name);
}

int shm_seg_back(void *addr, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(addr, len, MADV_POPULATE_WRITE) == 0)
        return 0;
    if (errno != EINVAL)
        return errno;   /* EFAULT: the access would raise SIGBUS (a full /dev/shm); ENOMEM */
#endif
    /* a kernel before 5.14: the pages are touched, and a full /dev/shm is a SIGBUS here */
    for (size_t off = 0; off < len; off += SHM_PAGE)
        ((volatile unsigned char *)addr)[off] = ((volatile unsigned char *)addr)[off];
    return 0;
}
