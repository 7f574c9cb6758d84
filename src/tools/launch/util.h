/*
 * Small helpers shared by the launcher's modules (time is net/clock.h's): blocking writes
 * that survive EINTR/EAGAIN, the host name, and the single way mpirun prints its own messages.
 */
#ifndef MPIRUN_UTIL_H
#define MPIRUN_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Writes all of buf to fd, retrying on EINTR and waiting in poll(2) on EAGAIN (fd may have
 * been made non-blocking by whoever shares it). Returns 0, or -1 with errno (e.g. EPIPE). */
int util_write_all(int fd, const void *buf, size_t len);

/* gethostname(), cached; never fails (falls back to "localhost"). */
const char *util_hostname(void);

/* Prints "mpirun: <formatted text>\n" to stderr with a single write(2), so it never
 * interleaves mid-line with forwarded rank output. With a hook set (the per-host helper,
 * whose messages travel to mpirun), the text (no prefix, no newline) goes to the hook. */
void util_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void util_set_msg_hook(void (*hook)(const char *text));

/* Copies src into dst (capacity cap) making it safe to print on one line: control and
 * non-ASCII bytes become '?', and text beyond max_chars is cut and ends in "...". */
void util_sanitize(char *dst, size_t cap, const char *src, size_t srclen, size_t max_chars);

void *util_xmalloc(size_t n);
void *util_xrealloc(void *p, size_t n);
char *util_xstrdup(const char *s);

/* Sets or clears O_NONBLOCK / FD_CLOEXEC. */
int util_set_nonblock(int fd);
/* Blocks SIGCHLD, SIGINT, SIGTERM, SIGHUP and returns a signalfd for them (-1: errno);
 * ignores SIGPIPE. The launcher's programs take signals only through their event loop. */
int util_signalfd(void);
int util_set_cloexec(int fd);

#endif
