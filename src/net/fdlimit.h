/*
 * Descriptors: a daemon or a rank that may hold a connection per peer raises its soft limit
 * (RLIMIT_NOFILE) towards the hard one (mpirun and its helpers to the hard limit, which their
 * ranks inherit), and a listener that runs out anyway sheds connections instead of failing.
 * Shared by the library's TCP transport, the launcher's helpers and the gateway.
 */
#ifndef METAMPI_FDLIMIT_H
#define METAMPI_FDLIMIT_H

/* Raises the soft limit to at least want descriptors (want < 0: to the hard limit), as far as
 * the hard limit allows. Returns the soft limit now in force. */
long fdlimit_raise(long want);

/* A descriptor kept in reserve for the classic answer to EMFILE on accept(): give it up,
 * accept the connection that waits and close it at once, take it again. This keeps a flood
 * from making a listener spin on a connection it cannot take. */
void fdlimit_reserve(void);
/* Accepts one waiting connection on lfd and closes it (after EMFILE/ENFILE). 0 when one was
 * taken off the queue, -1 when that was not possible. */
int fdlimit_shed(int lfd);

#endif
