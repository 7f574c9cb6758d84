/*
 * Fuzz target: the protocol layer's frame dispatch (src/proto/) as peers could drive it.
 *
 * This is rank 0 of a 3-rank job whose transports are fakes defined here, under the real
 * transports' names: rank 1 is reached through "shm" (remote reads from a fake address space
 * that the input fills), rank 2 through "tcp" (no remote reads; zero-copy sends; large DATA
 * bodies placed through the placement upcall, as net/rx.c does), "gw" reaches nobody. Before
 * the input's frames arrive, rank 0 holds live operations of every kind a frame can name
 * (the enum of ops below): rendezvous sends waiting for CTS or FIN, a synchronous send
 * waiting for ACK, a send with a CANCEL in flight, and receives (contiguous, typed) waiting for
 * DATA; messages that arrive are matched to a pool of posted receives.
 *
 * Input: byte 0 holds flags (bit 0: the fake sends refuse every other frame, so frames queue;
 * bit 1: the core withdraws what a CANCEL names; bit 2: shm refuses remote reads), then
 * records [sel, len (2 bytes, little-endian), frame]: sel & 3 picks the transport that
 * delivers the frame (self, shm, gw, tcp), (sel >> 2) & 3 its source rank (3: rank 7, not in
 * the job). A record with sel 0xff ends the frames; what follows is the start of rank 1's
 * memory (the rest is zeros).
 *
 * A frame that breaks the protocol ends in job_abort, which returns here by longjmp
 * (FUZZ_PROTO_TRACE=1: the replay prints which operations completed and why a run ended).
 * Checked:
 * nothing is read or written outside a buffer (ASan), no operation completes twice, a receive
 * never reports more than its buffer holds, and everything is freed (LSan).
 */
#include "datatype/compile.h"
#include "proto/proto.h"
#include "proto/wire.h"
#include "runtime/job.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NRANKS = 3,
    MAX_FRAME = 8192,
    EAGER = 256,          /* eager limit of the fakes: larger messages take the rendezvous */
    CHUNK = 512,          /* DATA payload */
    PLACE_MIN = 512,      /* tcp: bodies from this size are offered for placement */
    FAKE_MEM = 1 << 16,   /* rank 1's memory, at FAKE_BASE */
    MAX_ZC = 64,
};
#define FAKE_BASE ((uintptr_t)0x7f0000000000ull)

/* ---- the job (job_abort is the runtime's; here it returns to the harness) --------------- */

static jmp_buf aborted;
static int aborting_allowed;
static char abort_msg[512];

_Noreturn void job_abort(int exitcode, const char *msg)
{
    (void)exitcode;
    snprintf(abort_msg, sizeof abort_msg, "%s", msg);
    if (!aborting_allowed) {
        fprintf(stderr, "job_abort in the setup: %s\n", msg);
        abort(); /* the setup must not fail */
    }
    longjmp(aborted, 1);
}

/* ---- a vector datatype (8 blocks of 2 ints, stride 4 ints), compiled as MPI would --------- */

static dtype_t t_int, t_vec;
static dt_layout_t *vec;

static dtype_t *lookup(MPI_Datatype h)
{
    return h == 1 ? &t_int : h == 2 ? &t_vec : NULL;
}

dtype_t *dtype_lookup(MPI_Datatype h)
{
    return lookup(h);
}

static void make_vector(void)
{
    static int ints[3] = { 8, 2, 4 };
    static MPI_Datatype types[1] = { 1 };
    t_int = (dtype_t){ .handle = 1, .committed = 1, .predefined = 1, .size = 4, .ub = 4,
                       .true_ub = 4, .nelems = 1, .basic = 0x08,
                       .combiner = MPI_COMBINER_NAMED };
    t_vec = (dtype_t){ .handle = 2, .committed = 1, .size = 64, .ub = 120, .true_ub = 120,
                       .nelems = 16, .basic = -1, .combiner = MPI_COMBINER_VECTOR, .nints = 3,
                       .ntypes = 1, .ints = ints, .types = types };
    vec = dt_compile_tree(&t_vec, lookup);
    if (!vec)
        abort();
}
#define VEC_SIZE 64
#define VEC_EXTENT 120

/* ---- fake transports ---------------------------------------------------------------------- */

static tr_deliver_fn delivers[4];
static tr_place_fn places[4];
static int refusing, refuse_toggle, no_rma;
static unsigned char frame_out[MAX_FRAME];
static volatile unsigned char checksum;
static unsigned char *memory; /* rank 1's, FAKE_MEM bytes */

static struct zc {
    void (*sent)(void *);
    void *ctx;
} zc[MAX_ZC];
static int nzc;

/* The frames rank 0 sent, for the seeds: kind and the ids they carry. */
static unsigned char sent_log[64][40];
static int nsent;

static int take_frame(const struct iovec *iov, int n, const tr_packer_t *pk, char *err,
                      int errlen)
{
    if (refusing && (refuse_toggle ^= 1))
        return 0;
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (iov[i].iov_len > MAX_FRAME - len) {
            snprintf(err, (size_t)errlen, "frame too large");
            return -1;
        }
        memcpy(frame_out + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    if (pk) {
        if (pk->len > MAX_FRAME - len) {
            snprintf(err, (size_t)errlen, "frame too large");
            return -1;
        }
        size_t half = pk->len / 2; /* in two pieces, as a ring that wraps */
        if (pk->pack(pk->ctx, frame_out + len, half) != half ||
            pk->pack(pk->ctx, frame_out + len + half, pk->len - half) != pk->len - half)
            abort();
        len += pk->len;
    }
    if (len == 0)
        abort();
    for (size_t i = 0; i < len; i++)
        checksum ^= frame_out[i];
    if (nsent < 64) {
        memset(sent_log[nsent], 0, sizeof sent_log[nsent]);
        memcpy(sent_log[nsent++], frame_out, len < 40 ? len : 40);
    }
    return 1;
}

static int fake_send(int dst, const struct iovec *iov, int n, const tr_packer_t *pk, char *err,
                     int errlen)
{
    if (dst < 0 || dst >= NRANKS)
        abort();
    return take_frame(iov, n, pk, err, errlen);
}

static int fake_send_zc(int dst, const struct iovec *iov, int n, void (*sent)(void *ctx),
                        void *ctx, char *err, int errlen)
{
    if (nzc == MAX_ZC)
        return 0;
    int rc = fake_send(dst, iov, n, NULL, err, errlen);
    if (rc == 1)
        zc[nzc++] = (struct zc){ sent, ctx };
    return rc;
}

static int fake_progress(char *err, int errlen)
{
    (void)err;
    (void)errlen;
    int n = nzc;
    for (int i = 0; i < n; i++)
        zc[i].sent(zc[i].ctx); /* from progress, never from send_zc */
    memmove(zc, zc + n, (size_t)(nzc - n) * sizeof *zc);
    nzc -= n;
    return n;
}

/* Remote reads from rank 1's fake memory: like cross-memory attach, an address outside it is
 * an error (EFAULT), never a read of something else. */
static int fake_rma_readv(int src, const struct iovec *local, int nlocal,
                          const struct iovec *remote, int nremote, char *err, int errlen)
{
    if (src != 1)
        abort(); /* proto reads only from the rank the transport carries */
    if (no_rma)
        return TR_RMA_UNSUPPORTED;
    size_t lt = 0, rt = 0;
    for (int i = 0; i < nlocal; i++)
        lt += local[i].iov_len;
    for (int i = 0; i < nremote; i++) {
        uintptr_t a = (uintptr_t)remote[i].iov_base;
        if (remote[i].iov_len && (a < FAKE_BASE || a - FAKE_BASE > FAKE_MEM ||
                                  remote[i].iov_len > FAKE_MEM - (a - FAKE_BASE))) {
            snprintf(err, (size_t)errlen, "cannot read rank 1's memory at %#lx: Bad address",
                     (unsigned long)a);
            return -1;
        }
        rt += remote[i].iov_len;
    }
    if (lt != rt)
        abort(); /* transport.h: both lists cover the same bytes */
    int li = 0, ri = 0;
    size_t lo = 0, ro = 0;
    while (li < nlocal && ri < nremote) {
        size_t l = local[li].iov_len - lo, r = remote[ri].iov_len - ro, k = l < r ? l : r;
        if (k)
            memcpy((char *)local[li].iov_base + lo,
                   memory + ((uintptr_t)remote[ri].iov_base - FAKE_BASE) + ro, k);
        lo += k;
        ro += k;
        if (lo == local[li].iov_len)
            li++, lo = 0;
        if (ro == remote[ri].iov_len)
            ri++, ro = 0;
    }
    return TR_RMA_OK;
}

static int fake_rma_writev(int dst, const struct iovec *local, int nlocal,
                           const struct iovec *remote, int nremote, char *err, int errlen)
{
    (void)dst, (void)local, (void)nlocal, (void)remote, (void)nremote, (void)err, (void)errlen;
    return TR_RMA_UNSUPPORTED;
}

static int ok_phase(char *err, int errlen)
{
    (void)err;
    (void)errlen;
    return 0;
}
static void nothing(void)
{
}
static int no_fds(struct pollfd *fds, int max)
{
    (void)fds;
    (void)max;
    return 0;
}
static void fake_close(void)
{
    nzc = 0;
}

#define FAKE_OPEN(i)                                                                           \
    static int open_##i(const tr_boot_t *b, tr_deliver_fn d, char *err, int errlen)            \
    {                                                                                          \
        (void)err, (void)errlen;                                                               \
        delivers[i] = d;                                                                       \
        places[i] = b->place;                                                                  \
        return 0;                                                                              \
    }
FAKE_OPEN(0)
FAKE_OPEN(1)
FAKE_OPEN(2)
FAKE_OPEN(3)
static int reaches_none(int peer)
{
    (void)peer;
    return 0;
}
static int reaches_1(int peer)
{
    return peer == 1;
}
static int reaches_2(int peer)
{
    return peer == 2;
}

#define FAKE(i, nm, reach, zcf, rma, rmaw)                                                     \
    {                                                                                          \
        .name = nm, .open = open_##i, .connect = ok_phase, .ready = ok_phase,                  \
        .reaches = reach, .max_frame = MAX_FRAME, .eager_default = EAGER,                      \
        .chunk_default = CHUNK, .send = fake_send, .send_zc = zcf, .progress = fake_progress,  \
        .rma_readv = rma, .rma_writev = rmaw, .prepare_sleep = nothing, .end_sleep = nothing,  \
        .pollfds = no_fds, .close = fake_close                                                 \
    }
const transport_t transport_self = FAKE(0, "self", reaches_none, NULL, NULL, NULL);
const transport_t transport_shm = FAKE(1, "shm", reaches_1, NULL, fake_rma_readv,
                                       fake_rma_writev);
const transport_t transport_gw = FAKE(2, "gw", reaches_none, NULL, NULL, NULL);
const transport_t transport_tcp = FAKE(3, "tcp", reaches_2, fake_send_zc, NULL, NULL);

/* Delivers a frame as transport t does; tcp offers large DATA bodies for placement. */
static void arrive(int t, int src, const unsigned char *f, size_t len)
{
    if (t == 3 && len >= sizeof(f_data_t) + PLACE_MIN) {
        tr_sink_t sink;
        size_t body = len - sizeof(f_data_t);
        if (places[t](src, f, sizeof(f_data_t), body, &sink)) {
            size_t at = 0;
            while (at < body) {
                struct iovec iov[8];
                size_t want = body - at < 300 ? body - at : 300; /* uneven pieces */
                int n = sink.next(sink.ctx, iov, 8, want), got = 0;
                if (n < 1 || n > 8)
                    abort();
                for (int i = 0; i < n; i++) {
                    if (!iov[i].iov_len && n == 1)
                        abort();
                    memcpy(iov[i].iov_base, f + sizeof(f_data_t) + at, iov[i].iov_len);
                    at += iov[i].iov_len;
                    got += (int)iov[i].iov_len;
                }
                if (at > body || (size_t)got > want)
                    abort();
            }
            sink.done(sink.ctx);
            return;
        }
    }
    delivers[t](src, f, len);
}

/* ---- rank 0's operations and the core's side ---------------------------------------------- */

enum {
    SEND_RNDV,   /* to rank 2, 1000 bytes: waits for CTS or FIN (DATA zero-copy) */
    SEND_SYNC,   /* to rank 2, synchronous, 100 bytes: waits for ACK */
    SEND_TYPED,  /* to rank 1, 10 vectors: waits for CTS or FIN (DATA packed) */
    SEND_CANCEL, /* to rank 1, 2000 bytes, CANCEL sent: waits for CANCEL_REPLY */
    RECV_STREAM, /* from rank 2, 1500 of 2000 bytes: CTS sent, waits for DATA */
    RECV_TYPED,  /* from rank 2, 10 vectors: CTS sent, waits for DATA */
    POOL,        /* posted receives for what arrives: 64 bytes, 3000 bytes, 30 vectors, 0 */
    NOPS = POOL + 4
};
enum { TAG_RECV_STREAM = 100, TAG_RECV_TYPED = 101 };
static proto_op_t ops[NOPS];
static int done_count[NOPS], matched[NOPS];
static unsigned char *send_data, *recv_buf[NOPS];
static int withdraw_answer;

static void on_done(proto_op_t *op)
{
    int i = (int)(op - ops);
    if (done_count[i]++)
        abort(); /* completed twice */
    if (i >= RECV_STREAM && (op->got > op->bytes || op->got > op->msg_bytes))
        abort();
}

static void incoming(const proto_msg_t *m)
{
    int i = m->env.tag == TAG_RECV_STREAM ? RECV_STREAM
          : m->env.tag == TAG_RECV_TYPED  ? RECV_TYPED
                                          : POOL + (m->env.tag & 3);
    if (matched[i])
        return; /* the core would keep it as unexpected */
    matched[i] = 1;
    proto_recv_matched(&ops[i], m);
}

static int withdraw(int peer, uint32_t ctx, uint64_t remote_id)
{
    (void)peer;
    (void)ctx;
    (void)remote_id;
    return withdraw_answer;
}

static void post(int i, size_t cap, int typed, size_t count)
{
    size_t alloc = typed ? count * VEC_EXTENT : cap;
    recv_buf[i] = malloc(alloc ? alloc : 1); /* exactly the buffer: ASan sees overruns */
    ops[i] = (proto_op_t){ .buf = recv_buf[i], .bytes = typed ? count * VEC_SIZE : cap,
                           .layout = typed ? vec : NULL, .count = count, .done = on_done };
}

static void start_send(int i, int peer, int tag, size_t bytes, int sync, int typed)
{
    ops[i] = (proto_op_t){ .env = { 0, 0, tag }, .peer = peer, .sync = sync, .buf = send_data,
                           .bytes = typed ? bytes * VEC_SIZE : bytes,
                           .layout = typed ? vec : NULL, .count = typed ? bytes : 0,
                           .done = on_done };
    char err[256];
    if (proto_send_start(&ops[i], err, sizeof err) != 0)
        abort();
}

static void rts_from_2(int tag, uint64_t size, int typed)
{
    f_rts_typed_t r = { .r = { .m = { .kind = F_RTS, .src = 2, .tag = tag }, .size = size,
                               .sreq = 0x77, .addr = 0x1000 },
                        .count = size / VEC_SIZE };
    delivers[3](2, &r, typed ? sizeof r : sizeof r.r);
}

static int opened;

/* The job and its live operations, as the frames find them. */
static void setup(int flags)
{
    static int made;
    if (!made) {
        make_vector();
        send_data = malloc(64 * VEC_EXTENT);
        for (int i = 0; i < 64 * VEC_EXTENT; i++)
            send_data[i] = (unsigned char)(i * 7);
        memory = malloc(FAKE_MEM);
        made = 1;
    }
    setenv("METAMPI_DT_IOV_MIN", "8", 1); /* the vector's blocks are read as iovecs */
    memset(done_count, 0, sizeof done_count);
    memset(matched, 0, sizeof matched);
    nsent = 0;
    refusing = 0;
    no_rma = 0;
    withdraw_answer = 0;
    tr_boot_t boot = { .rank = 0, .size = NRANKS, .job_id = "fuzz" };
    proto_upcalls_t up = { incoming, withdraw, NULL }; /* one architecture: no typemap asked */
    char err[256];
    if (proto_open(&boot, &up, err, sizeof err) != 0)
        abort();
    opened = 1;
    start_send(SEND_RNDV, 2, 1, 1000, 0, 0);
    start_send(SEND_SYNC, 2, 2, 100, 1, 0);
    start_send(SEND_TYPED, 1, 3, 10, 0, 1);
    start_send(SEND_CANCEL, 1, 4, 2000, 0, 0);
    proto_cancel_send(&ops[SEND_CANCEL]);
    post(RECV_STREAM, 1500, 0, 0);
    rts_from_2(TAG_RECV_STREAM, 2000, 0); /* truncated: CTS for 1500 bytes */
    post(RECV_TYPED, 0, 1, 10);
    rts_from_2(TAG_RECV_TYPED, 10 * VEC_SIZE, 1);
    post(POOL + 0, 64, 0, 0);
    post(POOL + 1, 3000, 0, 0);
    post(POOL + 2, 0, 1, 30);
    post(POOL + 3, 0, 0, 0);
    refusing = flags & 1;
    withdraw_answer = (flags >> 1) & 1;
    no_rma = (flags >> 2) & 1;
}

static void teardown(void)
{
    if (opened)
        proto_close();
    opened = 0;
    for (int i = 0; i < NOPS; i++) {
        free(ops[i].cur); /* left by a job that ended in the middle of a stream */
        free(recv_buf[i]);
        recv_buf[i] = NULL;
    }
}

static unsigned char *frame_in; /* the frame being delivered (freed after a longjmp too) */

/* Delivers the input's frames; returns only when none broke the protocol. */
static void run_frames(const uint8_t *data, size_t size)
{
    char err[256];
    for (size_t at = 0; at + 3 <= size;) {
        unsigned sel = data[at];
        size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        at += 3;
        if (sel == 0xff)
            break;
        if (len > size - at)
            len = size - at;
        int src = (int)(sel >> 2) & 3;
        if (len) {
            frame_in = malloc(len); /* exactly the frame: ASan sees reads past its end */
            memcpy(frame_in, data + at, len);
            arrive((int)(sel & 3), src == 3 ? 7 : src, frame_in, len);
            free(frame_in);
            frame_in = NULL;
        }
        at += len;
        if (proto_progress(err, sizeof err) < 0)
            abort();
    }
    for (int k = 0; k < 4; k++)
        if (proto_progress(err, sizeof err) < 0)
            abort();
}

/* Rank 1's memory: what follows the 0xff record, then zeros. */
static void fill_memory(const uint8_t *data, size_t size)
{
    memset(memory, 0, FAKE_MEM);
    for (size_t at = 0; at + 3 <= size;) {
        size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        if (data[at] == 0xff) {
            size_t n = size - at - 3 < FAKE_MEM ? size - at - 3 : FAKE_MEM;
            memcpy(memory, data + at + 3, n);
            return;
        }
        at += 3 + len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    aborting_allowed = 0;
    setup(data[0]);
    fill_memory(data + 1, size - 1);
    aborting_allowed = 1;
    abort_msg[0] = 0;
    if (setjmp(aborted) == 0)
        run_frames(data + 1, size - 1);
    aborting_allowed = 0;
    if (getenv("FUZZ_PROTO_TRACE")) { /* what a replayed input did */
        fprintf(stderr, "done:");
        for (int i = 0; i < NOPS; i++)
            fprintf(stderr, " %d", done_count[i]);
        fprintf(stderr, "%s%s\n", abort_msg[0] ? "; job_abort: " : "", abort_msg);
    }
    free(frame_in);
    frame_in = NULL;
    teardown();
    return 0;
}

/* ---- seeds: valid frames for every live operation, from the ids the setup gave them -------- */

static unsigned char seed[4096];
static size_t seed_len;

static void seed_begin(int flags)
{
    seed[0] = (unsigned char)flags;
    seed_len = 1;
}

static void seed_frame(int transport, int src, const void *f, size_t len)
{
    seed[seed_len] = (unsigned char)(transport | src << 2);
    seed[seed_len + 1] = (unsigned char)len;
    seed[seed_len + 2] = (unsigned char)(len >> 8);
    memcpy(seed + seed_len + 3, f, len);
    seed_len += 3 + len;
}

static void seed_ctrl(int transport, int src, int kind, uint64_t sreq, int result)
{
    f_ctrl_t c = { .kind = (uint8_t)kind, .result = (uint8_t)result, .sreq = sreq };
    seed_frame(transport, src, &c, sizeof c);
}

static void seed_cts(int transport, int src, uint64_t sreq, uint64_t bytes)
{
    f_cts_t c = { .kind = F_CTS, .sreq = sreq, .rreq = 0x99, .bytes = bytes };
    seed_frame(transport, src, &c, sizeof c);
}

/* DATA for the receive with id rreq from rank src: bytes from offset, in frames of at most
 * `piece`. */
static void seed_data(int src, uint64_t rreq, size_t offset, size_t bytes, size_t piece)
{
    unsigned char f[sizeof(f_data_t) + 2048];
    for (size_t at = 0; at < bytes; at += piece) {
        size_t n = bytes - at < piece ? bytes - at : piece;
        f_data_t d = { .kind = F_DATA, .rreq = rreq, .offset = offset + at };
        memcpy(f, &d, sizeof d);
        memset(f + sizeof d, (int)(at & 0xff), n);
        seed_frame(src == 2 ? 3 : 1, src, f, sizeof d + n);
    }
}

static void seed_match(int transport, int src, int kind, int tag, const void *tail, size_t n)
{
    unsigned char f[512];
    f_match_t m = { .kind = (uint8_t)kind, .src = src, .tag = tag };
    memcpy(f, &m, sizeof m);
    memcpy(f + sizeof m, tail, n);
    seed_frame(transport, src, f, sizeof m + n);
}

void fuzz_make_seeds(void (*add)(const void *data, size_t size))
{
    setup(0);
    uint64_t id[NOPS];
    for (int i = 0; i < NOPS; i++)
        id[i] = ops[i].id;
    size_t llen;
    const void *lb = dt_layout_bytes(vec, &llen);
    unsigned char layout[1024];
    if (llen > sizeof layout)
        abort();
    memcpy(layout, lb, llen);
    teardown();

    seed_begin(0); /* every live operation finishes */
    seed_cts(3, 2, id[SEND_RNDV], 1000);
    seed_ctrl(3, 2, F_ACK, id[SEND_SYNC], 0);
    seed_cts(1, 1, id[SEND_TYPED], 10 * VEC_SIZE);
    seed_ctrl(1, 1, F_CANCEL_REPLY, id[SEND_CANCEL], 1);
    seed_data(2, id[RECV_STREAM], 0, 1500, 700);
    seed_data(2, id[RECV_TYPED], 0, 10 * VEC_SIZE, 600);
    add(seed, seed_len);

    seed_begin(1); /* the same with full paths; FIN, and a cancel that comes too late */
    seed_ctrl(3, 2, F_FIN, id[SEND_RNDV], 0);
    seed_ctrl(3, 2, F_ACK, id[SEND_SYNC], 0);
    seed_cts(1, 1, id[SEND_TYPED], 5 * VEC_SIZE);
    seed_ctrl(1, 1, F_FIN, id[SEND_CANCEL], 0);
    seed_ctrl(1, 1, F_CANCEL_REPLY, id[SEND_CANCEL], 0);
    seed_data(2, id[RECV_STREAM], 0, 1500, 1500);
    add(seed, seed_len);

    seed_begin(2); /* messages: eager, synchronous, rendezvous by remote read, cancel */
    unsigned char payload[100];
    memset(payload, 'p', sizeof payload);
    seed_match(1, 1, F_EAGER, 0, payload, 50);
    uint64_t sreq = 0x1234;
    memcpy(payload, &sreq, 8);
    seed_match(3, 2, F_EAGER_SYNC, 3, payload, 8 + 60);
    f_rts_typed_t r = { .r = { .size = 30 * VEC_SIZE, .sreq = 0x55, .addr = FAKE_BASE + 1024 },
                        .layout_addr = FAKE_BASE, .layout_len = llen, .count = 30 };
    seed_match(1, 1, F_RTS, 2, (const char *)&r + sizeof r.r.m, sizeof r - sizeof r.r.m);
    r.r.size = 2500;
    r.r.addr = FAKE_BASE + 8;
    seed_match(1, 1, F_RTS, 1, (const char *)&r.r + sizeof r.r.m, sizeof r.r - sizeof r.r.m);
    seed_ctrl(3, 2, F_CANCEL, 0x1234, 0);
    seed_ctrl(1, 1, F_CANCEL, 0x55, 0);
    seed[seed_len++] = 0xff; /* rank 1's memory: its layout first */
    seed[seed_len++] = 0;
    seed[seed_len++] = 0;
    memcpy(seed + seed_len, layout, llen);
    seed_len += llen;
    add(seed, seed_len);

    seed_begin(4); /* without remote reads: CTS, then DATA from rank 1 (the next id) */
    seed_match(1, 1, F_RTS, 1, (const char *)&r.r + sizeof r.r.m, sizeof r.r - sizeof r.r.m);
    seed_data(1, (uint64_t)1 << 32 | ((uint32_t)id[RECV_TYPED] + 1), 0, 2500, 1000);
    add(seed, seed_len);

    seed_begin(0); /* forged: a pointer as an id, a frame through the wrong transport */
    seed_ctrl(1, 1, F_FIN, 0x4141414141414141ull, 0);
    add(seed, seed_len);
    seed_begin(0);
    seed_ctrl(3, 1, F_FIN, id[SEND_TYPED], 0);
    add(seed, seed_len);
    seed_begin(0);
    seed_ctrl(1, 1, F_FIN, id[SEND_RNDV], 0); /* another rank's operation */
    add(seed, seed_len);
}
