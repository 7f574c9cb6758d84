/* Remote read by Linux cross-memory attach (process_vm_readv): one copy, kernel to kernel. */
#ifndef METAMPI_SHM_CMA_H
#define METAMPI_SHM_CMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Lets any process of ours read this one (Yama ptrace_scope 1); harmless without Yama. */
void shm_cma_allow_readers(void);
/* Copies len bytes at remote_addr in process pid (rank peer) into local. TR_RMA_OK;
 * TR_RMA_UNSUPPORTED when the kernel refuses (EPERM, ENOSYS); -1 with a message otherwise. */
int shm_cma_read(pid_t pid, int peer, uint64_t remote_addr, void *local, size_t len, char *err,
                 int errlen);

#endif
