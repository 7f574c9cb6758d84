/*
 * The receive paths of the protocols (src/proto/recv.c) with senders of another architecture:
 * rank 0 of a 3-rank job whose transports are fakes (as tests/fuzz/fuzz_proto.c has them),
 * with this file's peer_arch(): rank 1 is big-endian LP64 with binary128 long double (s390x),
 * reached through "shm" (which could read its memory: a remote read would land unconverted
 * bytes, so it must not happen), rank 2 big-endian ILP32 with long double = double, through
 * "tcp" (which offers large DATA bodies for placement: refused, the converter takes the whole
 * frame). Frames carry what such senders pack: their native bytes.
 *
 * Checked: eager (contiguous and typed, synchronous with its ACK), truncation counted in the
 * sender's bytes, a rendezvous answered with CTS for the sender's bytes and DATA frames cut at
 * odd offsets (elements split across frames), a long double beyond the receiver's range
 * reported with type and ranks, and the receive's byte count in the receiver's sizes; a
 * CANCEL's context id and operation id read in the receiver's order, and its reply.
 */
#include "datatype/compile.h"
#include "datatype/engine/convert.h"
#include "datatype/predefined.h"
#include "proto/proto.h"
#include "proto/wire.h"
#include "runtime/job.h"
#include "runtime/peer_arch.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

enum { NRANKS = 3, MAX_FRAME = 8192, EAGER = 256, CHUNK = 512, PLACE_MIN = 512 };

_Noreturn void job_abort(int exitcode, const char *msg)
{
    fprintf(stderr, "FAIL: job_abort(%d): %s\n", exitcode, msg);
    exit(1);
}

/* ---- the job's architectures -------------------------------------------------------------- */

static arch_desc_t archs[NRANKS];

const arch_desc_t *peer_arch(int r)
{
    return r >= 0 && r < NRANKS ? &archs[r] : arch_local();
}

int peer_arch_ndistinct = 3;   /* peer_arch.h: the job has unlike ranks */

static void make_archs(void)
{
    archs[0] = archs[1] = archs[2] = *arch_local();
    archs[1].byte_order = ARCH_BIG;
    archs[1].ldbl_format = ARCH_LDBL_BINARY128;
    snprintf(archs[1].name, sizeof archs[1].name, "s390x");
    archs[2].byte_order = ARCH_BIG;
    archs[2].size[ARCH_LONG] = archs[2].size[ARCH_POINTER] = 4;
    archs[2].ldbl_format = ARCH_LDBL_DOUBLE;
    archs[2].size[ARCH_LONG_DOUBLE] = 8;
    snprintf(archs[2].name, sizeof archs[2].name, "be32");
}

/* ---- types: MPI_INT, MPI_LONG_DOUBLE, struct { int; long; double; long double } ------------ */

struct rec {
    int i;
    long l;
    double d;
    long double ld;
};
#define REC 100
static dtype_t named[3], t_rec;
static const MPI_Datatype named_h[3] = { MPI_INT, MPI_LONG, MPI_DOUBLE };
static dt_layout_t *l_int, *l_ld, *l_rec;
static dtype_t t_ld;

static dtype_t *lookup(MPI_Datatype h)
{
    for (int i = 0; i < 3; i++)
        if (h == named_h[i])
            return &named[i];
    return h == MPI_LONG_DOUBLE ? &t_ld : h == REC ? &t_rec : NULL;
}

static dtype_t make_named(MPI_Datatype h)
{
    MPI_Count size = (MPI_Count)dtype_predefined_size(h);
    return (dtype_t){ .handle = h, .committed = 1, .predefined = 1, .size = size, .ub = size,
                      .true_ub = size, .nelems = 1, .basic = (int)((unsigned)h & 0xffu),
                      .combiner = MPI_COMBINER_NAMED };
}

static void make_types(void)
{
    for (int i = 0; i < 3; i++)
        named[i] = make_named(named_h[i]);
    t_ld = make_named(MPI_LONG_DOUBLE);
    static int ints[] = { 4, 1, 1, 1, 1 };
    static MPI_Aint addrs[] = { offsetof(struct rec, i), offsetof(struct rec, l),
                                offsetof(struct rec, d), offsetof(struct rec, ld) };
    static MPI_Datatype types[] = { MPI_INT, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE };
    t_rec = (dtype_t){ .handle = REC, .committed = 1, .size = 4 + 8 + 8 + 16,
                       .ub = sizeof(struct rec), .true_ub = sizeof(struct rec), .nelems = 4,
                       .basic = -1, .combiner = MPI_COMBINER_STRUCT, .nints = 5, .naddrs = 4,
                       .ntypes = 4, .ints = ints, .addrs = addrs, .types = types };
    l_int = dt_compile_tree(&named[0], lookup);
    l_ld = dt_compile_tree(&t_ld, lookup);
    l_rec = dt_compile_tree(&t_rec, lookup);
    if (!l_int || !l_ld || !l_rec)
        abort();
    dtype_conv_register();
}

/* The stream a sender of arch a packs from n records with values from k. */
static void put_be(unsigned char *p, size_t size, unsigned long long v)
{
    for (size_t i = 0; i < size; i++, v >>= 8)
        p[size - 1 - i] = (unsigned char)v;
}

static void put_rev(unsigned char *p, const void *v, size_t size)
{
    for (size_t i = 0; i < size; i++)
        p[i] = ((const unsigned char *)v)[size - 1 - i];
}

static size_t foreign_recs(const arch_desc_t *a, size_t n, unsigned char *out)
{
    unsigned char *p = out;
    for (size_t k = 0; k < n; k++) {
        put_be(p, 4, (unsigned long long)(-(long long)k * 1000 - 1));
        p += 4;
        put_be(p, a->size[ARCH_LONG], (unsigned long long)(long long)(k * 100000 - 7));
        p += a->size[ARCH_LONG];
        double d = (double)k / 4 + 0.5;
        put_rev(p, &d, 8);
        p += 8;
        if (a->ldbl_format == ARCH_LDBL_BINARY128) {
            __float128 q = (__float128)k * 3 - 1.25Q;
            put_rev(p, &q, 16);
            p += 16;
        } else {
            double q = (double)k * 3 - 1.25;
            put_rev(p, &q, 8);
            p += 8;
        }
    }
    return (size_t)(p - out);
}

static int recs_ok(const struct rec *r, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (r[k].i != -(int)k * 1000 - 1 || r[k].l != (long)k * 100000 - 7 ||
            r[k].d != (double)k / 4 + 0.5 || r[k].ld != (long double)k * 3 - 1.25L)
            return 0;
    return 1;
}

/* ---- fake transports ---------------------------------------------------------------------- */

static tr_deliver_fn delivers[4];
static tr_place_fn places[4];
static unsigned char last_sent[64];
static int rma_reads;

static int fake_send(int dst, const struct iovec *iov, int n, const tr_packer_t *pk, char *err,
                     int errlen)
{
    (void)dst, (void)pk, (void)err, (void)errlen;
    size_t len = 0;
    memset(last_sent, 0, sizeof last_sent);
    for (int i = 0; i < n; i++)
        for (size_t b = 0; b < iov[i].iov_len; b++, len++)
            if (len < sizeof last_sent)
                last_sent[len] = ((const unsigned char *)iov[i].iov_base)[b];
    return 1;
}

static int fake_rma_readv(int src, const struct iovec *local, int nlocal,
                          const struct iovec *remote, int nremote, char *err, int errlen)
{
    (void)src, (void)local, (void)nlocal, (void)remote, (void)nremote, (void)err, (void)errlen;
    rma_reads++;
    return TR_RMA_UNSUPPORTED;
}

static int ok_phase(char *err, int errlen)
{
    (void)err, (void)errlen;
    return 0;
}
static int zero(void)
{
    return 0;
}
static void nothing(void)
{
}
static int no_fds(struct pollfd *fds, int max)
{
    (void)fds, (void)max;
    return 0;
}
static int progress_none(char *err, int errlen)
{
    (void)err, (void)errlen;
    return zero();
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
#define FAKE(i, nm, reach, rma)                                                                \
    {                                                                                          \
        .name = nm, .open = open_##i, .connect = ok_phase, .ready = ok_phase,                  \
        .reaches = reach, .max_frame = MAX_FRAME, .eager_default = EAGER,                      \
        .chunk_default = CHUNK, .send = fake_send, .progress = progress_none,                  \
        .rma_readv = rma, .prepare_sleep = nothing, .end_sleep = nothing, .pollfds = no_fds,   \
        .close = nothing                                                                       \
    }
const transport_t transport_self = FAKE(0, "self", reaches_none, NULL);
const transport_t transport_shm = FAKE(1, "shm", reaches_1, fake_rma_readv);
const transport_t transport_gw = FAKE(2, "gw", reaches_none, NULL);
const transport_t transport_tcp = FAKE(3, "tcp", reaches_2, NULL);

/* Delivers a frame from src as its transport does (tcp offers large DATA bodies for
 * placement). */
static void arrive(int src, const void *f, size_t len)
{
    int t = src == 1 ? 1 : 3;
    if (t == 3 && len >= sizeof(f_data_t) + PLACE_MIN) {
        tr_sink_t sink;
        EXPECTF(!places[t](src, f, sizeof(f_data_t), len - sizeof(f_data_t), &sink),
               "a converted DATA body was offered for placement");
    }
    delivers[t](src, f, len);
}

/* ---- the core's side: one posted receive -------------------------------------------------- */

static proto_op_t op;
static int done;
static const dt_layout_t *op_typemap;
static uintptr_t op_base;
static size_t op_count;

static void on_done(proto_op_t *o)
{
    (void)o;
    done++;
}
static void incoming(const proto_msg_t *m)
{
    proto_recv_matched(&op, m);
}
static int withdrawn_peer = -1;
static uint32_t withdrawn_ctx;
static uint64_t withdrawn_id;
static int withdraw(int peer, uint32_t ctx, uint64_t id)
{
    withdrawn_peer = peer, withdrawn_ctx = ctx, withdrawn_id = id;
    return ctx == 0x12345 && id == 0x0123456789abcdefull; /* found only when both arrive intact */
}
static int typemap(proto_op_t *o, const dt_layout_t **l, uintptr_t *base, size_t *count)
{
    (void)o;
    *l = op_typemap;
    *base = op_base;
    *count = op_count;
    return 0;
}

/* A receive of count elements of l at buf (contiguous for the protocol, as the core hands
 * down predefined types and the record type here). */
static void post(const dt_layout_t *l, void *buf, size_t count)
{
    op = (proto_op_t){ .buf = buf, .bytes = count * dt_layout_size(l), .done = on_done };
    op_typemap = l;
    op_base = (uintptr_t)buf;
    op_count = count;
    done = 0;
}

static void eager_from(int src, int tag, int sync, const void *data, size_t n)
{
    unsigned char f[MAX_FRAME];
    size_t h = sync ? sizeof(f_eager_sync_t) : sizeof(f_match_t);
    f_eager_sync_t s = { .m = { .kind = sync ? F_EAGER_SYNC : F_EAGER, .src = src, .tag = tag },
                         .sreq = 0x55 };
    memcpy(f, &s, h);
    memcpy(f + h, data, n);
    arrive(src, f, h + n);
}

/* ---- the checks ------------------------------------------------------------------------------ */

static void eager(void)
{
    unsigned char s[MAX_FRAME];
    int ints[5] = { 0 };
    for (int k = 0; k < 6; k++)
        put_be(s + 4 * k, 4, (unsigned long long)(k * 0x01020304 - 3));
    post(l_int, ints, 5);
    eager_from(1, 1, 0, s, 20);
    EXPECTF(done == 1 && op.result == PROTO_OK && op.got == 20 && ints[0] == -3 &&
               ints[4] == 4 * 0x01020304 - 3,
           "eager ints from s390x: got %zu, ints[4] %d", op.got, ints[4]);

    post(l_int, ints, 5);
    eager_from(2, 1, 1, s, 24);
    EXPECTF(done == 1 && op.result == PROTO_TRUNCATED && op.got == 20 && op.msg_bytes == 24 &&
               last_sent[0] == F_ACK,
           "truncated synchronous eager: result %d got %zu", op.result, op.got);

    struct rec r[3];
    memset(r, 0, sizeof r);
    size_t n = foreign_recs(&archs[2], 3, s);
    post(l_rec, r, 3);
    eager_from(2, 2, 0, s, n);
    EXPECTF(done == 1 && op.result == PROTO_OK && op.got == 3 * dt_layout_size(l_rec) &&
               recs_ok(r, 3),
           "eager records from be32 (%zu bytes): got %zu", n, op.got);

    unsigned char q[16];
    memset(q, 0xff, sizeof q);
    q[0] = 0x7f;
    q[1] = 0xfe; /* binary128's largest finite value: beyond x87's after rounding */
    long double v;
    post(l_ld, &v, 1);
    eager_from(1, 3, 0, q, 16);
    EXPECTF(done == 1 && op.result == PROTO_CONVERSION &&
               strstr(proto_conversion_error(), "MPI_LONG_DOUBLE") &&
               strstr(proto_conversion_error(), "rank 1") &&
               strstr(proto_conversion_error(), "s390x"),
           "long double out of range: result %d, '%s'", op.result, proto_conversion_error());
}

/* A rendezvous from src of n records, DATA cut into pieces of `piece` bytes. */
static void rendezvous(int src, size_t n, size_t cap, size_t piece)
{
    static unsigned char s[64 * 1024];
    static struct rec r[256];
    memset(r, 0, sizeof r);
    size_t bytes = foreign_recs(&archs[src], n, s);
    post(l_rec, r, cap);
    f_rts_t rts = { .m = { .kind = F_RTS, .src = src, .tag = 9 }, .size = bytes, .sreq = 0x99,
                    .addr = 0x1000 };
    arrive(src, &rts, sizeof rts);
    f_cts_t cts;
    memcpy(&cts, last_sent, sizeof cts);
    size_t want = dt_conv_stream_size(l_rec, &archs[src], cap);
    if (want > bytes)
        want = bytes;
    EXPECTF(cts.kind == F_CTS && cts.sreq == 0x99 && cts.bytes == want && rma_reads == 0,
           "rendezvous from rank %d: CTS %d for %llu bytes (want %zu), %d remote reads", src,
           cts.kind, (unsigned long long)cts.bytes, want, rma_reads);
    unsigned char f[MAX_FRAME];
    for (size_t off = 0; off < want;) {
        size_t k = want - off < piece ? want - off : piece;
        f_data_t d = { .kind = F_DATA, .rreq = cts.rreq, .offset = off };
        memcpy(f, &d, sizeof d);
        memcpy(f + sizeof d, s + off, k);
        arrive(src, f, sizeof d + k);
        off += k;
    }
    size_t got = (n < cap ? n : cap);
    EXPECTF(done == 1 && op.got == got * dt_layout_size(l_rec) && recs_ok(r, got) &&
               op.result == (n > cap ? PROTO_TRUNCATED : PROTO_OK),
           "rendezvous of %zu records from rank %d in pieces of %zu: done %d got %zu", n, src,
           piece, done, op.got);
}

/* A CANCEL from a big-endian sender: its fields travel little-endian like every frame's (the
 * sender's f_ctrl_le), so the receiver reads the message's context and the operation id in
 * its own order, hands both to the core, and answers CANCEL_REPLY with the core's result. */
static void cancel(void)
{
    for (int src = 1; src <= 2; src++)
        for (int found = 0; found <= 1; found++) {
            unsigned char f[sizeof(f_ctrl_t)] = { F_CANCEL };
            uint32_t ctx = found ? 0x12345 : 0x12344;
            uint64_t id = 0x0123456789abcdefull;
            for (int b = 0; b < 4; b++)
                f[offsetof(f_ctrl_t, ctx) + b] = (unsigned char)(ctx >> (8 * b));
            for (int b = 0; b < 8; b++)
                f[offsetof(f_ctrl_t, sreq) + b] = (unsigned char)(id >> (8 * b));
            withdrawn_peer = -1;
            memset(last_sent, 0xee, sizeof last_sent);
            arrive(src, f, sizeof f);
            EXPECTF(withdrawn_peer == src && withdrawn_ctx == ctx && withdrawn_id == id,
                   "CANCEL from rank %d reached the core as peer %d ctx %#x id %#llx", src,
                   withdrawn_peer, withdrawn_ctx, (unsigned long long)withdrawn_id);
            f_ctrl_t r;
            memcpy(&r, last_sent, sizeof r);
            f_ctrl_le(&r);
            EXPECTF(r.kind == F_CANCEL_REPLY && r.result == found && r.sreq == id,
                   "CANCEL_REPLY to rank %d: kind %d result %d sreq %#llx", src, r.kind,
                   r.result, (unsigned long long)r.sreq);
        }
    /* The sender's side: a rendezvous send to rank 2 cancelled after its RTS left names the
     * message's context (its env.ctx, the receiver's) in the CANCEL, little-endian. */
    static unsigned char data[4 * EAGER];
    proto_op_t s = { .env = { 0x2468a, 0, 9 }, .peer = 2, .buf = data, .bytes = sizeof data,
                     .done = on_done };
    char err[256];
    EXPECTF(proto_send_start(&s, err, sizeof err) == 0, "rendezvous send: %s", err);
    EXPECTF(last_sent[0] == F_RTS, "the send began with frame kind %d", last_sent[0]);
    EXPECTF(proto_cancel_send(&s) == 1, "the send could not be cancelled");
    uint32_t ctx = 0;
    for (int b = 0; b < 4; b++)
        ctx |= (uint32_t)last_sent[offsetof(f_ctrl_t, ctx) + b] << (8 * b);
    EXPECTF(last_sent[0] == F_CANCEL && ctx == 0x2468a, "the CANCEL (kind %d) names ctx %#x",
           last_sent[0], ctx);
    f_ctrl_t reply = { .kind = F_CANCEL_REPLY, .result = 1, .sreq = s.id };
    f_ctrl_le(&reply);
    int before = done;
    arrive(2, &reply, sizeof reply);
    EXPECTF(done == before + 1 && s.cancelled, "the cancelled send: done %d, cancelled %d",
           done - before, s.cancelled);
}

int main(void)
{
    make_archs();
    make_types();
    tr_boot_t boot = { .rank = 0, .size = NRANKS, .job_id = "convert" };
    proto_upcalls_t up = { incoming, withdraw, typemap };
    char err[256];
    if (proto_open(&boot, &up, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL proto_open: %s\n", err);
        return 1;
    }
    eager();
    size_t pieces[] = { 1, 7, 13, 36, 500, 4000 };
    for (int i = 0; i < 6; i++) {
        rendezvous(1, 100, 100, pieces[i]);
        rendezvous(2, 100, 100, pieces[i]);
    }
    rendezvous(2, 200, 150, 997); /* truncated: the CTS asks for the 150 records that fit */
    cancel();
    proto_close();
    dt_layout_free(l_int);
    dt_layout_free(l_ld);
    dt_layout_free(l_rec);
    return expect_done("convert_proto");
}
