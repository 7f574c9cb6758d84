/* POSIX shared-memory segments named /metampi.<job_id>.shm.<rank> (see layout.h). */
#ifndef METAMPI_SHM_SEGMENT_H
#define METAMPI_SHM_SEGMENT_H

#include <stddef.h>

/* Writes the segment's name; -1 when it does not fit (or is longer than NAME_MAX). */
int shm_seg_name(char *buf, size_t size, const char *job_id, int rank);
/* Creates (exclusively), sizes and maps rank's segment, zero-filled and sparse: back what
 * is used with shm_seg_back before touching it. */
int shm_seg_create(const char *job_id, int rank, size_t bytes, void **base, char *err,
                   int errlen);
/* Maps an existing segment of rank read-write; *bytes is its size. */
int shm_seg_attach(const char *job_id, int rank, void **base, size_t *bytes, char *err,
                   int errlen);
/* Gives memory to len bytes of a mapped segment from addr (page-aligned): 0, or the errno
 * (EFAULT when /dev/shm is full) instead of a SIGBUS at the first access. */
int shm_seg_back(void *addr, size_t len);
/* Removes the name; the memory lives on while mapped. -1 with errno on failure. */
int shm_seg_unlink(const char *job_id, int rank);

#endif
