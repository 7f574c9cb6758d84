/*
 * Doorbells: each rank binds a nonblocking datagram socket at the abstract address
 * "\0metampi.<job_id>.bell.<rank>"; a peer wakes it by sending one byte. The socket is what the
 * rank sleeps on in poll(); only the fact that it is readable matters, never the bytes.
 */
#ifndef METAMPI_SHM_DOORBELL_H
#define METAMPI_SHM_DOORBELL_H

#include <sys/socket.h>
#include <sys/un.h>

typedef struct shm_bell_addr {
    struct sockaddr_un sa;
    socklen_t len;
} shm_bell_addr_t;

int shm_bell_addr(shm_bell_addr_t *a, const char *job_id, int rank);
/* Returns the bound socket, or -1 with a message. */
int shm_bell_open(const char *job_id, int rank, char *err, int errlen);
/* Rings (best effort: a full queue already means "readable", a dead peer is not ours to
 * report). Sends from fd, our own bound socket. */
void shm_bell_ring(int fd, const shm_bell_addr_t *a);
/* Reads everything queued so that the socket is no longer readable. */
void shm_bell_drain(int fd);

#endif
