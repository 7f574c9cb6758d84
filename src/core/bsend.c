#include "core/bsend.h"

#include "core/errors.h"
#include "core/p2p.h"
#include "core/p2p_packed.h"
#include "runtime/peer_arch.h"
#include "core/progress.h"

#include <stdint.h>
#include <string.h>

typedef struct block {
    size_t size;          /* header + data, a multiple of ALIGN */
    int in_use;
    request_t req;        /* the send of this block's copy */
} block_t;

enum { ALIGN = 64 };
/* A message of n bytes takes at most round_up(header) + n + ALIGN - 1 bytes, and attaching
 * may lose up to ALIGN - 1 bytes to alignment: MPI_BSEND_OVERHEAD covers both. */
_Static_assert(((sizeof(block_t) + ALIGN - 1) & ~(size_t)(ALIGN - 1)) + 2 * ALIGN <=
                   MPI_BSEND_OVERHEAD,
               "MPI_BSEND_OVERHEAD too small");

static char *base;        /* the attached buffer, aligned start */
static size_t capacity;   /* usable bytes from base */
static void *user_buf;
static size_t user_size;
static int attached;

static size_t round_up(size_t n)
{
    return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

size_t bsend_needed(size_t bytes)
{
    return MPI_BSEND_OVERHEAD + bytes;
}

int bsend_attach(void *buf, size_t size)
{
    if (attached)
        return MPI_ERR_BUFFER;
    attached = 1;
    user_buf = buf;
    user_size = size;
    uintptr_t start = ((uintptr_t)buf + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    size_t lost = start - (uintptr_t)buf;
    base = (char *)start;
    capacity = size > lost ? (size - lost) & ~(size_t)(ALIGN - 1) : 0;
    if (capacity >= sizeof(block_t)) {
        block_t *b = (block_t *)base;
        b->size = capacity;
        b->in_use = 0;
    } else {
        capacity = 0;
    }
    return MPI_SUCCESS;
}

static int all_free(void *arg)
{
    (void)arg;
    for (size_t off = 0; off < capacity; off += ((block_t *)(base + off))->size)
        if (((block_t *)(base + off))->in_use)
            return 0;
    return 1;
}

void bsend_detach(void **buf, size_t *size)
{
    if (!attached) {
        *buf = NULL;
        *size = 0;
        return;
    }
    progress_wait_until(all_free, NULL);
    *buf = user_buf;
    *size = user_size;
    attached = 0;
    base = NULL;
    capacity = 0;
}

static int all_free_on(void *arg)
{
    const comm_t *comm = arg;
    for (size_t off = 0; off < capacity; off += ((block_t *)(base + off))->size) {
        const block_t *b = (const block_t *)(base + off);
        if (b->in_use && b->req.comm == comm)
            return 0;
    }
    return 1;
}

void bsend_wait_comm(const comm_t *comm)
{
    if (attached)
        progress_wait_until(all_free_on, (void *)comm);
}

static void block_done(proto_op_t *op)
{
    block_t *b = (block_t *)((char *)op - offsetof(block_t, req));
    b->in_use = 0;
}

/* First fit; merges runs of free blocks on the way. */
static block_t *allocate(size_t need)
{
    for (size_t off = 0; off < capacity;) {
        block_t *b = (block_t *)(base + off);
        if (!b->in_use) {
            while (off + b->size < capacity) {
                block_t *nx = (block_t *)(base + off + b->size);
                if (nx->in_use)
                    break;
                b->size += nx->size;
            }
            if (b->size >= need) {
                if (b->size - need >= sizeof(block_t) + ALIGN) {
                    block_t *rest = (block_t *)(base + off + need);
                    rest->size = b->size - need;
                    rest->in_use = 0;
                    b->size = need;
                }
                b->in_use = 1;
                return b;
            }
        }
        off += b->size;
    }
    return NULL;
}

int bsend_start(const request_t *r, const char *func)
{
    size_t need = round_up(sizeof(block_t)) + round_up(r->bytes ? r->bytes : 1);
    block_t *b = attached ? allocate(need) : NULL;
    if (!b) {
        progress_poll(); /* sends that finished since free their blocks */
        b = attached ? allocate(need) : NULL;
    }
    if (!b)
        return MPI_ERR_BUFFER;
    char *data = (char *)b + round_up(sizeof(block_t));
    void *buf = r->buf;
    size_t bytes = r->bytes;
    if (__builtin_expect(!peer_arch_all_same(), 0) && !r->layout &&
        p2p_user_packed(r->type, r->comm->send_ctx))
        p2p_packed_unheader(&buf, &bytes);
    if (r->layout) { /* packed into the attached buffer: MPI_Bsend's own copy */
        dt_cursor_t c;
        dt_cursor_init(&c, r->layout, (uintptr_t)r->buf, r->count);
        dt_pack(&c, data, r->bytes);
    } else if (bytes) {
        memcpy(data, buf, bytes);
    }
    request_init_local(&b->req, REQ_SEND, r->comm);
    b->req.buf = data;
    b->req.bytes = bytes;
    b->req.peer = r->peer;
    b->req.tag = r->tag;
    b->req.mode = MODE_STANDARD;
    b->req.op.done = block_done;
    p2p_start(&b->req, func);
    return MPI_SUCCESS;
}
