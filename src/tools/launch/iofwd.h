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
 * A sink either writes to an fd (mpirun's own stdout/stderr, with the --tag-output prefix) or
 * hands each line to a callback (the per-host helper, which sends it to mpirun in a frame
 * and lets mpirun add the prefix: iofwd_sink_write there).
 *
 * Input (istream): mpirun's stdin is copied to rank 0's stdin pipe through a bounded
 * buffer; stdin is not read while the buffer is full, and the pipe is closed once stdin
 * reached EOF and the buffer is empty (or as soon as rank 0 stops reading: EPIPE). Without
 * an input fd (in_fd < 0) the data is pushed in by the owner (istream_push: the helper gets
 * it from mpirun), who is told through `consumed` how much went into the pipe, so it can keep
 * what is in flight within the buffer (credit-based flow control), and through `closed`
 * that the pipe is gone.
 */
#ifndef MPIRUN_IOFWD_H
#define MPIRUN_IOFWD_H

#include "evloop.h"

#include <stddef.h>

#define IOFWD_MAX_LINE (64 * 1024)
#define IOFWD_STDIN_BUF (64 * 1024)

typedef struct iofwd_sink iofwd_sink_t;

/* A line (or a held-back partial line, then add_newline is 1) of a rank's output. */
typedef void (*iofwd_emit_fn)(void *ctx, const iofwd_sink_t *sink, int rank, const char *data,
                              size_t len, int add_newline);

struct iofwd_sink {
    int fd;          /* mpirun's stdout or stderr (unused with emit) */
    int broken;      /* a write failed: discard */
    int tag_output;
    const char *name; /* "stdout" or "stderr" (for the tag) */
    iofwd_emit_fn emit;  /* NULL: write to fd */
    void *emit_ctx;
};

/* Writes one line of rank's output to the sink's fd, with its prefix under --tag-output
 * ("[1,rank]<name>:"), in one write(2); add_newline ends a partial line (tagged only). */
void iofwd_sink_write(iofwd_sink_t *k, int rank, const char *data, size_t len, int add_newline);

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
    int in_fd;       /* mpirun's stdin; -1 when not forwarding anymore (or pushed) */
    int out_fd;      /* write end of rank 0's stdin pipe; -1 once closed */
    int eof;
    char *buf;
    size_t head, len;
    /* pushed input only (in_fd < 0 at open): */
    void (*consumed)(void *ctx, size_t n);  /* n bytes went into the pipe */
    void (*closed)(void *ctx);              /* the pipe is closed: push nothing more */
    void *ctx;
} istream_t;

/* in_fd < 0: the input is pushed (istream_push, istream_push_eof); set consumed/closed/ctx
 * before pushing. */
void istream_open(istream_t *s, ev_loop_t *loop, int in_fd, int out_fd);
/* Appends data (pushed input). Returns 0, or -1 when it does not fit in the buffer (the
 * pusher broke the flow control) or the pipe is closed. */
int istream_push(istream_t *s, const void *data, size_t len);
void istream_push_eof(istream_t *s);
void istream_close(istream_t *s);

#endif
