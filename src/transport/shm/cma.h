/* Remote read and write by Linux cross-memory attach (process_vm_readv / process_vm_writev):
 * one copy, kernel to kernel. */
#ifndef METAMPI_SHM_CMA_H
#define METAMPI_SHM_CMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Lets any process of ours read this one (Yama ptrace_scope 1); harmless without Yama. */
void shm_cma_allow_readers(void);
/* Copies the bytes of process pid (rank peer) described by the remote iovecs into the local
 * iovecs (equal totals). TR_RMA_OK; TR_RMA_UNSUPPORTED when the kernel refuses (EPERM, ENOSYS)
 * before anything was copied; -1 with a message otherwise. */
int shm_cma_readv(pid_t pid, int peer, const struct iovec *local, int nlocal,
                  const struct iovec *remote, int nremote, char *err, int errlen);
/* The same, copying the local iovecs into process pid's memory at the remote ones. */
int shm_cma_writev(pid_t pid, int peer, const struct iovec *local, int nlocal,
                   const struct iovec *remote, int nremote, char *err, int errlen);

#endif
