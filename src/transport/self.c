/*
 * Frames to ourselves. send() copies the frame into a queue (a packer packs straight into the
 * queued frame) and progress() delivers it, so a send to self never waits for its receive and
 * deliver() never runs inside send(). Remote read of our own memory is a copy between the two
 * iovec lists: rendezvous to self is single-copy.
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

static int self_send(int dst_rank, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                     char *err, int errlen)
{
    (void)dst_rank;
    size_t len = pk ? pk->len : 0;
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
    if (pk && pk->len)
        pk->pack(pk->ctx, f->data + off, pk->len);
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

static int self_rma_readv(int src_rank, const struct iovec *local, int nlocal,
                          const struct iovec *remote, int nremote, char *err, int errlen)
{
    (void)src_rank;
    (void)err;
    (void)errlen;
    int li = 0, ri = 0;
    size_t loff = 0, roff = 0;
    while (li < nlocal && ri < nremote) {
        size_t l = local[li].iov_len - loff, r = remote[ri].iov_len - roff;
        size_t n = l < r ? l : r;
        if (n)
            memmove((char *)local[li].iov_base + loff, (const char *)remote[ri].iov_base + roff,
                    n);
        loff += n;
        roff += n;
        if (loff == local[li].iov_len)
            li++, loff = 0;
        if (roff == remote[ri].iov_len)
            ri++, roff = 0;
    }
    return TR_RMA_OK;
}

/* Within one process a write is a read with the roles of the buffers swapped. */
static int self_rma_writev(int dst_rank, const struct iovec *local, int nlocal,
                           const struct iovec *remote, int nremote, char *err, int errlen)
{
    return self_rma_readv(dst_rank, remote, nremote, local, nlocal, err, errlen);
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
    .rma_readv = self_rma_readv,
    .rma_writev = self_rma_writev,
    .prepare_sleep = self_sleep_hook,
    .end_sleep = self_sleep_hook,
    .pollfds = self_pollfds,
    .close = self_close,
};
