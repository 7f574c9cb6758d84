/*
 * I/O forwarding between the ranks and mpirun's own stdin/stdout/stderr.
 *
 * Output (ostream): one per rank and stream (stdout or stderr). Data is forwarded in whole
 * lines, each with one write(2) to the sink, so lines of different ranks never interleave
 * mid-line. A partial line is held back until its newline arrives, the pipe closes, or it
 * reaches IOFWD_MAX_LINE bytes; then it is written as is (with --tag-output it gets its
 * prefix and a terminating newline). Sink write errors (e.g. EPIPE) make the sink discard
 * further output, but the pipes are still drained so ranks never block on a full pipe.
 *
 * Input (istream): mpirun's stdin is copied to rank 0's stdin pipe through a bounded
 * buffer; stdin is not read while the buffer is full, and the pipe is closed once stdin
 * reached EOF and the buffer is empty (or as soon as rank 0 stops reading: EPIPE).
 */
#ifndef MPIRUN_IOFWD_H
#define MPIRUN_IOFWD_H

#include "evloop.h"

#include <stddef.h>

#define IOFWD_MAX_LINE (64 * 1024)
#define IOFWD_STDIN_BUF (64 * 1024)

typedef struct iofwd_sink {
    int fd;          /* mpirun's stdout or stderr */
    int broken;      /* a write failed: discard */
    int tag_output;
    const char *name; /* "stdout" or "stderr" (for the tag) */
} iofwd_sink_t;

typedef struct ostream {
    ev_loop_t *loop;
    iofwd_sink_t *sink;
    int rank;
    int fd;          /* read end of the rank's pipe; -1 once closed */
    char *buf;       /* IOFWD_MAX_LINE bytes */
    size_t len;
} ostream_t;

void ostream_open(ostream_t *o, ev_loop_t *loop, iofwd_sink_t *sink, int rank, int fd);
/* Reads whatever is available now without blocking (the rank is gone); closes on EOF. */
void ostream_drain(ostream_t *o);
/* Flushes a pending partial line and closes the pipe. */
void ostream_close(ostream_t *o);
int ostream_is_open(const ostream_t *o);

typedef struct istream {
    ev_loop_t *loop;
    int in_fd;       /* mpirun's stdin; -1 when not forwarding anymore */
    int out_fd;      /* write end of rank 0's stdin pipe; -1 once closed */
    int eof;
    char *buf;
    size_t head, len;
} istream_t;

void istream_open(istream_t *s, ev_loop_t *loop, int in_fd, int out_fd);
void istream_close(istream_t *s);

#endif
