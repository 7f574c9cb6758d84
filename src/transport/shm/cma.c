#include "transport/shm/cma.h"

#include "transport/transport.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>

void shm_cma_allow_readers(void)
{
    /* EINVAL: no Yama in this kernel, and then nothing restricts same-user readers. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

int shm_cma_read(pid_t pid, int peer, uint64_t remote_addr, void *local, size_t len, char *err,
                 int errlen)
{
    /* The kernel may copy less than asked (it stops at a page it cannot fault in, and caps one
     * call at MAX_RW_COUNT); a short count at a valid address just means "call again". */
    unsigned char *dst = local;
    size_t done = 0;
    while (done < len) {
        struct iovec l = {dst + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(remote_addr + done), len - done};
        ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EPERM || errno == ENOSYS) && done == 0)
            return TR_RMA_UNSUPPORTED;
        snprintf(err, (size_t)errlen,
                 "shm: cannot read %zu bytes at 0x%llx from rank %d (pid %d) after %zu bytes: %s",
                 len, (unsigned long long)(remote_addr + done), peer, (int)pid, done,
                 n == 0 ? "no progress" : strerror(errno));
        return -1;
    }
    return TR_RMA_OK;
}
