/*
 * Frames to ourselves. send() copies the frame into a queue and progress() delivers it, so a
 * send to self never waits for its receive and deliver() never runs inside send(). Remote
 * read of our own memory is a memcpy: rendezvous to self is single-copy.
 */
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct self_frame {
    struct self_frame *next;
    size_t len;
    char data[];
} self_frame_t;

static tr_deliver_fn deliver_up;
static int my_rank;
static self_frame_t *head, *tail;

static int self_open(const tr_boot_t *boot, tr_deliver_fn deliver, char *err, int errlen)
{
    (void)err;
    (void)errlen;
    deliver_up = deliver;
    my_rank = boot->rank;
    return 0;
}

static int self_nothing(char *err, int errlen)
{
    (void)err;
    (void)errlen;
    return 0;
}

static int self_reaches(int peer)
{
    return peer == my_rank;
}

static int self_send(int dst_rank, const struct iovec *iov, int iovcnt, char *err, int errlen)
{
    (void)dst_rank;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    self_frame_t *f = malloc(sizeof *f + len);
    if (!f) {
        snprintf(err, (size_t)errlen, "out of memory for a %zu-byte message to self", len);
        return -1;
    }
    f->next = NULL;
    f->len = len;
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len)
            memcpy(f->data + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    if (tail)
        tail->next = f;
    else
        head = f;
    tail = f;
    return 1;
}

/* Delivers the frames queued when the call began; frames sent while delivering wait for the
 * next call, so one call does bounded work. */
static int self_progress(char *err, int errlen)
{
    (void)err;
    (void)errlen;
    self_frame_t *last = tail;
    int n = 0;
    while (head && last) {
        self_frame_t *f = head;
        head = f->next;
        if (!head)
            tail = NULL;
        int was_last = f == last;
        deliver_up(my_rank, f->data, f->len);
        free(f);
        n++;
        if (was_last)
            break;
    }
    return n;
}

static int self_rma_read(int src_rank, uint64_t remote_addr, void *local, size_t len,
                         char *err, int errlen)
{
    (void)src_rank;
    (void)err;
    (void)errlen;
    memmove(local, (const void *)(uintptr_t)remote_addr, len);
    return TR_RMA_OK;
}

static void self_sleep_hook(void)
{
}

static int self_pollfds(struct pollfd *fds, int max)
{
    (void)fds;
    (void)max;
    return 0;
}

static void self_close(void)
{
    while (head) {
        self_frame_t *f = head;
        head = f->next;
        free(f);
    }
    tail = NULL;
}

const transport_t transport_self = {
    .name = "self",
    .open = self_open,
    .connect = self_nothing,
    .ready = self_nothing,
    .reaches = self_reaches,
    .max_frame = (size_t)1 << 40,
    .send = self_send,
    .progress = self_progress,
    .rma_read = self_rma_read,
    .prepare_sleep = self_sleep_hook,
    .end_sleep = self_sleep_hook,
    .pollfds = self_pollfds,
    .close = self_close,
};
