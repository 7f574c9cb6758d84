/*
 * Socket helpers of every owner of a TCP connection: options, listening, addresses for
 * messages, bounded blocking waits and reads, the end of a connection without a reset, and
 * the TCP congestion control by name.
 */
#ifndef METAMPI_NET_SOCK_H
#define METAMPI_NET_SOCK_H

#include "net/addr.h"

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

enum { NET_CONGESTION_MAX = 16 /* the kernel's TCP_CA_NAME_MAX */ };

/* "IPv4:port" or "[IPv6]:port" ("?" for another family). */
void net_addr_text(const struct sockaddr *a, char *out, size_t cap);

/* A connection's options: non-blocking, TCP_NODELAY, and liveness for a peer timeout of
 * timeout_s seconds (liveness.h: keepalive, and the opening bound until liveness_opening(fd,
 * T, 0) once the connection is up; 0: the kernel's defaults). 0, or -1 (errno). */
int net_stream_options(int fd, int timeout_s);

/* Explicit socket buffer sizes (bytes; 0 leaves one to the kernel). An explicit size switches
 * the kernel's autotuning off, which already sizes buffers to a link's bandwidth x delay:
 * they are for links where its limits are too low, and for measurements. force: beyond the
 * system's maximum (SO_*BUFFORCE, privileged). */
void net_set_buffers(int fd, int sndbuf, int rcvbuf, int force);

/* A listening socket (non-blocking, close-on-exec) bound to *a, of a's family; a port 0 in *a
 * becomes the port the kernel chose. The IPv6 wildcard (::) listens on both families (IPV6_V6ONLY
 * off: IPv4 peers arrive as ::ffff:a.b.c.d), any other IPv6 address on IPv6 alone. reuse:
 * SO_REUSEADDR. The descriptor, or -1 (errno). */
int net_listen(net_addr_t *a, int backlog, int reuse);
/* As net_listen, on a free port of lo..hi (a firewall's range: mpirun --port-range), tried
 * from a point that differs per process so that processes of one host starting together
 * rarely try the same one; lo = 0: a's own port. -1 with errno (EADDRINUSE: none is free). */
int net_listen_range(net_addr_t *a, int backlog, int reuse, int lo, int hi);
/* "LO-HI" with 1 <= LO <= HI <= 65535: 0, or -1. */
int net_port_range_parse(const char *s, int *lo, int *hi);

/* A TCP socket (close-on-exec) of a's family, non-blocking if nonblock: the descriptor, or -1
 * (errno; EAFNOSUPPORT where the host has no such family). */
int net_socket_for(const net_addr_t *a, int nonblock);

/* Waits until fd has one of events, at most until deadline (ms, net_now_ms): 0 ready, -1 not
 * in time (or a poll error). */
int net_wait(int fd, short events, long long deadline);
/* Reads exactly n bytes from a non-blocking fd by the deadline: 0, or -1 (end of stream, an
 * error, the deadline). */
int net_read_full(int fd, void *buf, size_t n, long long deadline);
/* After shutting down its sending side: reads and discards until the peer's end of stream,
 * an error or the deadline, so that no socket is closed with unread data (which would reset
 * the connection and could lose the peer's last bytes). */
void net_drain_to_eof(int fd, long long deadline);

/* Whether name can be a TCP congestion control's name: 1..NET_CONGESTION_MAX-1 of a-z, 0-9,
 * _ (what the kernel's are made of). */
int net_congestion_name_ok(const char *name);
/* Whether this process may use the congestion control `name`, tried on a socket of its own:
 * 0, or the kernel's errno (ENOENT: unknown; EPERM: not allowed without privileges). */
int net_congestion_try(const char *name);
/* Sets it on fd (tried before: its result is not looked at). */
void net_congestion_set(int fd, const char *name);

#endif
