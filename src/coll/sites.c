/*
 * The collectives over several sites (coll/sites.h): barrier, broadcast, gather(v),
 * scatter(v), allgather(v), reduce, allreduce. The WAN phase of each (what crosses between
 * two sites, per call) is tabulated in docs/collectives.md, "Collectives across sites".
 *
 * Shapes of the phases within a site (S->local, member indices are indices in the site):
 *  broadcast   mv_bcast_hier (root -> host leaders -> hosts, shared memory within a host), or
 *              shared memory / a tree when the site is one host;
 *  gather,     mv_gather_hier / mv_scatter_hier: blocks in site order at the site's leader;
 *  scatter
 *  reduce      red_reduce_hier (node reductions, then among the host leaders), or a reduction
 *              over the site's members in rank order when a non-commutative op meets hosts
 *              that do not hold consecutive ranks;
 *  v-forms     linear within the site; a site leader that does not know its members' block
 *              sizes (gatherv/scatterv: only the root knows the counts) first gathers them
 *              (one 8-byte message per member) and builds the data phase from them at run
 *              time (a schedule callback).
 * Between sites, the root (rooted collectives) or each site leader talks to every other
 * site's leader directly: one WAN latency, each link used once per direction.
 */
#include "coll/sites.h"

#include "coll/move.h"
#include "coll/red.h"
#include "coll/shm/shm.h"
#include "coll/tune.h"
#include "runtime/tunables.h"

#include <stdint.h>
#include <stdlib.h>

/* METAMPI_COLL_SITES=0: no site level (the two-level algorithms span the sites) */
static coll_knob_t sites_on = { "METAMPI_COLL_SITES", 1, 0, 0 };
/* Allreduce over more than two sites from this size (bytes) on: reduce-scatter + allgather
 * among the site leaders (two messages of 1/S of the vector per link and direction) instead
 * of every leader sending its whole partial to every other (one message of the whole). With
 * S sites it saves (1 - 2/S) of the vector per link at the price of one more WAN latency:
 * for 5 ms and 1 Gbit/s the break-even is about 1.9 MB at S = 3 and 1.3 MB at S = 4. */
static coll_knob_t split_knob = { "METAMPI_COLL_SITES_ALLREDUCE_SPLIT", 2u << 20, 0, 0 };
/* WAN messages are cut into pieces of at most this many bytes (0: never): a piece within the
 * protocol's eager limit (32 KiB over TCP, 64 KiB through the gateways) leaves at once, where
 * a larger message first waits for a rendezvous handshake, one more WAN round trip (10 ms in
 * the emulated tests; measured through the gateways: an alltoall whose combined message per
 * site pair is 256 KiB takes 16-17 ms per call whole, 6.5-7 ms cut; docs/collectives.md). */
static coll_knob_t segment_knob = { "METAMPI_COLL_SITES_SEGMENT", 32u << 10, 0, 0 };
/* Alltoall combines a site pair's blocks into one message up to this size; larger, every rank
 * pair exchanges directly (measured through the gateways: 256 KiB blocks, 2 sites of 4 ranks,
 * 84 ms through the leaders, 50 ms directly — the leaders' extra copies and hops cost more
 * than the messages they save). */
static coll_knob_t a2a_max_knob = { "METAMPI_COLL_SITES_ALLTOALL_MAX", 1u << 20, 0, 0 };

const coll_sites_t *coll_use_sites(comm_t *c)
{
    if (!tun_bool(TUN_COLL_HIER) || comm_is_inter(c) || c->size < 3 || !coll_knob(&sites_on))
        return NULL;
    const coll_sites_t *S = coll_sites(c);
    return S && S->nsites > 1 ? S : NULL;
}

const coll_sites_t *red_sites(comm_t *c, const op_t *op)
{
    const coll_sites_t *S = coll_use_sites(c);
    return S && (!op || op->commute || S->ordered) ? S : NULL;
}

size_t site_segment(void)
{
    size_t k = coll_knob(&segment_knob);
    return k ? k : SIZE_MAX;
}

void site_wan_send(icoll_sched_t *s, comm_t *c, int peer, const void *buf, size_t bytes)
{
    size_t seg = site_segment(), off = 0;
    do {
        size_t k = bytes - off < seg ? bytes - off : seg;
        p2p_data_t d = mv_data((char *)(uintptr_t)buf + off, k);
        icoll_sched_send_data(s, c, peer, &d);
        off += k;
    } while (off < bytes);
}

void site_wan_recv(icoll_sched_t *s, comm_t *c, int peer, void *buf, size_t bytes)
{
    icoll_sched_far(s);
    size_t seg = site_segment(), off = 0;
    do {
        size_t k = bytes - off < seg ? bytes - off : seg;
        p2p_data_t d = mv_data((char *)buf + off, k);
        icoll_sched_recv_data(s, c, peer, &d);
        off += k;
    } while (off < bytes);
}

int site_alltoall_combines(const coll_sites_t *S, size_t bb)
{
    size_t max = 0;
    for (int a = 0; a < S->nsites; a++)
        for (int b = 0; b < S->nsites; b++)
            if (a != b && (size_t)S->site_size[a] * (size_t)S->site_size[b] * bb > max)
                max = (size_t)S->site_size[a] * (size_t)S->site_size[b] * bb;
    return max <= coll_knob(&a2a_max_knob);
}

/* Elements [off, off + cnt) of a dt array across the WAN: cut into pieces when they are
 * contiguous, else one typed message (every member of a reduction has the same type and
 * count, so both ends decide alike). */
static void red_wan_send(icoll_sched_t *s, comm_t *c, int peer, const void *buf, size_t off,
                         size_t cnt, dtype_t *dt)
{
    void *p;
    coll_team_t all = coll_team_all(c);
    if (cnt && red_contig(red_at(buf, off, dt), cnt, dt, &p))
        site_wan_send(s, c, peer, p, cnt * (size_t)dt->size);
    else
        red_send(s, &all, peer, buf, off, cnt, dt);
}

static void red_wan_recv(icoll_sched_t *s, comm_t *c, int peer, void *buf, size_t off,
                         size_t cnt, dtype_t *dt)
{
    void *p;
    coll_team_t all = coll_team_all(c);
    if (cnt && red_contig(red_at(buf, off, dt), cnt, dt, &p))
        site_wan_recv(s, c, peer, p, cnt * (size_t)dt->size);
    else
        red_recv(s, &all, peer, buf, off, cnt, dt);
}

static int leader_of(const coll_sites_t *S, int t)
{
    return S->leaders.ranks[t];
}

static const int *members_of(const coll_sites_t *S, int t)
{
    return S->site_ranks + S->site_start[t];
}

/* ---- phases within my site ------------------------------------------------------------- */

/* Broadcast of contiguous bytes within my site from site member root. */
static int local_bcast(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, void *buf,
                       size_t bytes, int root)
{
    const coll_hier_t *l = &S->local;
    int algo = mv_bcast_forced();
    if (l->all.size == 1 || bytes == 0)
        return MPI_SUCCESS;
    if (l->nhosts > 1)
        return mv_bcast_hier(s, c, l, buf, bytes, root, algo);
    if (algo == MV_BCAST_AUTO) { /* one host: the node team is the site */
        int rc = coll_shm_bcast(s, c, buf, bytes, root);
        if (rc != COLL_DECLINED)
            return rc;
    }
    mv_bcast_bytes(s, &l->all, root, buf, bytes, algo);
    return MPI_SUCCESS;
}

/* The same for count elements of dt (a non-contiguous layout: a typed tree over the site). */
static int local_bcast_typed(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, void *buf,
                             size_t count, dtype_t *dt, int root)
{
    void *p;
    if (red_contig(buf, count, dt, &p))
        return local_bcast(s, c, S, p, count * (size_t)dt->size, root);
    red_bcast_binomial(s, &S->local.all, buf, count, dt, root);
    return MPI_SUCCESS;
}

/* Reduction within my site to site member root (out significant there). */
static int local_reduce(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *in,
                        void *out, size_t count, dtype_t *dt, op_t *op, int root)
{
    if (op->commute || S->local_ordered)
        return red_reduce_hier(s, c, &S->local, in, out, count, dt, op, root);
    red_reduce_team(s, &S->local.all, in, out, count, dt, op, root);
    return MPI_SUCCESS;
}

/* Copies between site t's blocks packed in site order (tmp, bb bytes each) and their places
 * in rb (rank order); rb -> tmp when pack. Consecutive ranks travel as one copy. */
static void site_copy(icoll_sched_t *s, const coll_sites_t *S, int t, char *tmp, size_t bb,
                      const mv_blocks_t *rb, int pack)
{
    const int *m = members_of(S, t);
    int size = S->site_size[t];
    for (int i = 0; i < size;) {
        int k = 1;
        while (i + k < size && m[i + k] == m[i] + k)
            k++;
        p2p_data_t a = mv_data(tmp + (size_t)i * bb, (size_t)k * bb), b = mv_run(rb, m[i], k);
        if (pack)
            mv_copy(s, &b, &a);
        else
            mv_copy(s, &a, &b);
        i += k;
    }
}

/* ---- barrier ------------------------------------------------------------------------------ */

int site_barrier(icoll_sched_t *s, comm_t *c, const coll_sites_t *S)
{
    const coll_hier_t *l = &S->local;
    int rc, shm = red_barrier_shm(c->size);
    icoll_sched_far(s); /* every member waits for the other sites' leaders */
    if (!shm || (rc = coll_shm_barrier(s, c)) == COLL_DECLINED)
        red_fan_in(s, &l->node);
    else if (rc != MPI_SUCCESS)
        return rc;
    icoll_sched_fence(s);
    if (l->leaders.rank >= 0) {
        red_fan_in(s, &l->leaders);
        icoll_sched_fence(s);
    }
    /* every site leader tells every other one: one zero-byte message per link and
     * direction, one WAN latency */
    if (S->leaders.rank >= 0) {
        for (int k = 1; k < S->nsites; k++) {
            icoll_sched_send(s, c, leader_of(S, (S->site + k) % S->nsites), NULL, 0);
            icoll_sched_recv(s, c, leader_of(S, (S->site - k + S->nsites) % S->nsites), NULL,
                             0);
        }
        icoll_sched_fence(s);
    }
    if (l->leaders.rank >= 0)
        red_fan_out(s, &l->leaders);
    if (!shm || (rc = coll_shm_barrier(s, c)) == COLL_DECLINED)
        red_fan_out(s, &l->node);
    else if (rc != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

/* ---- broadcast ---------------------------------------------------------------------------- */

int site_bcast(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, void *buf, size_t bytes,
               int root)
{
    int t0 = S->site_of[root];
    /* the root sends first: the WAN is the long way */
    if (c->rank == root)
        for (int k = 1; k < S->nsites; k++)
            site_wan_send(s, c, leader_of(S, (t0 + k) % S->nsites), buf, bytes);
    if (S->site == t0)
        return local_bcast(s, c, S, buf, bytes, S->site_index[root]);
    icoll_sched_far(s); /* the data comes over the WAN to this site's leader */
    if (S->leaders.rank >= 0) {
        site_wan_recv(s, c, root, buf, bytes);
        icoll_sched_fence(s);
    }
    return local_bcast(s, c, S, buf, bytes, 0);
}

/* ---- gather / scatter of equal blocks ------------------------------------------------------ */

/* Whether site t's blocks can travel straight from / into b: its members are consecutive ranks
 * and their run of blocks is contiguous memory. */
static int direct_run(const coll_sites_t *S, int t, const mv_blocks_t *b)
{
    return S->contiguous[t] &&
           !mv_run(b, S->site_ranks[S->site_start[t]], (size_t)S->site_size[t]).layout;
}

/* Bytes of the temporary that holds, in site order, the blocks of every site that cannot use
 * the user's buffer directly; off[t] their place in it. */
static size_t scattered_sites(const coll_sites_t *S, size_t bb, const mv_blocks_t *b,
                              size_t *off)
{
    size_t need = 0;
    for (int t = 0; t < S->nsites; t++) {
        off[t] = need;
        if (!direct_run(S, t, b))
            need += (size_t)S->site_size[t] * bb;
    }
    return need;
}

int site_gather(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const p2p_data_t *mine,
                void *rbuf, size_t rcount, dtype_t *rtype, size_t bb, int root)
{
    const coll_hier_t *l = &S->local;
    int t0 = S->site_of[root], my = S->site, m = l->all.size;
    mv_blocks_t rb = { rbuf, rcount, rtype };
    if (my != t0) {
        if (S->leaders.rank < 0) {
            mv_gather_hier(s, c, l, mine, NULL, bb, 0);
            return MPI_SUCCESS;
        }
        char *tmp = m == 1 && !mine->layout ? mine->buf : icoll_sched_alloc(s, (size_t)m * bb);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        mv_blocks_t out = mv_bytes(tmp, bb);
        if (tmp != mine->buf) {
            mv_gather_hier(s, c, l, mine, &out, bb, 0);
            icoll_sched_fence(s);
        }
        site_wan_send(s, c, root, tmp, (size_t)m * bb);
        return MPI_SUCCESS;
    }
    int lroot = S->site_index[root];
    if (c->rank != root) {
        mv_gather_hier(s, c, l, mine, NULL, bb, lroot);
        return MPI_SUCCESS;
    }
    /* the root: every other site's blocks in one message (posted first), straight into place
     * when that site holds consecutive ranks */
    size_t *off = icoll_sched_alloc(s, (size_t)S->nsites * sizeof *off);
    if (!off)
        return MPI_ERR_NO_MEM;
    size_t need = scattered_sites(S, bb, &rb, off);
    char *tmp = need ? icoll_sched_alloc(s, need) : NULL;
    if (need && !tmp)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < S->nsites; k++) {
        int t = (t0 + k) % S->nsites;
        size_t size = (size_t)S->site_size[t];
        char *to = direct_run(S, t, &rb) ? mv_run(&rb, members_of(S, t)[0], size).buf
                                         : tmp + off[t];
        site_wan_recv(s, c, leader_of(S, t), to, size * bb);
    }
    if (direct_run(S, t0, &rb)) {
        mv_blocks_t out = rb;
        out.base = coll_at(rbuf, (size_t)members_of(S, t0)[0] * rcount, rtype);
        mv_gather_hier(s, c, l, mine, &out, bb, lroot);
    } else {
        p2p_data_t own = mine ? *mine : mv_run(&rb, root, 1);
        mv_blocks_t out = mv_bytes(tmp + off[t0], bb);
        mv_gather_hier(s, c, l, &own, &out, bb, lroot);
    }
    icoll_sched_fence(s);
    for (int t = 0; t < S->nsites; t++)
        if (!direct_run(S, t, &rb))
            site_copy(s, S, t, tmp + off[t], bb, &rb, 0);
    return MPI_SUCCESS;
}

int site_scatter(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *sbuf,
                 size_t scount, dtype_t *stype, const p2p_data_t *mine, size_t bb, int root)
{
    const coll_hier_t *l = &S->local;
    int t0 = S->site_of[root], my = S->site, m = l->all.size;
    mv_blocks_t sb = { (void *)(uintptr_t)sbuf, scount, stype };
    if (my != t0) {
        icoll_sched_far(s);
        if (S->leaders.rank < 0) {
            mv_scatter_hier(s, c, l, NULL, mine, bb, 0);
            return MPI_SUCCESS;
        }
        char *tmp = m == 1 && !mine->layout ? mine->buf : icoll_sched_alloc(s, (size_t)m * bb);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        site_wan_recv(s, c, root, tmp, (size_t)m * bb);
        if (tmp != mine->buf) {
            icoll_sched_fence(s);
            mv_blocks_t in = mv_bytes(tmp, bb);
            mv_scatter_hier(s, c, l, &in, mine, bb, 0);
        }
        return MPI_SUCCESS;
    }
    int lroot = S->site_index[root];
    if (c->rank != root) {
        mv_scatter_hier(s, c, l, NULL, mine, bb, lroot);
        return MPI_SUCCESS;
    }
    size_t *off = icoll_sched_alloc(s, (size_t)S->nsites * sizeof *off);
    if (!off)
        return MPI_ERR_NO_MEM;
    size_t need = scattered_sites(S, bb, &sb, off);
    char *tmp = need ? icoll_sched_alloc(s, need) : NULL;
    if (need && !tmp)
        return MPI_ERR_NO_MEM;
    for (int t = 0; t < S->nsites; t++) /* local steps first: they wait for nothing */
        if (!direct_run(S, t, &sb))
            site_copy(s, S, t, tmp + off[t], bb, &sb, 1);
    for (int k = 1; k < S->nsites; k++) {
        int t = (t0 + k) % S->nsites;
        size_t size = (size_t)S->site_size[t];
        const char *from = direct_run(S, t, &sb) ? mv_run(&sb, members_of(S, t)[0], size).buf
                                                 : tmp + off[t];
        site_wan_send(s, c, leader_of(S, t), from, size * bb);
    }
    mv_blocks_t in = mv_bytes(tmp ? tmp + off[t0] : NULL, bb);
    if (direct_run(S, t0, &sb)) {
        in = sb;
        in.base = coll_at(sbuf, (size_t)members_of(S, t0)[0] * scount, stype);
    }
    mv_scatter_hier(s, c, l, &in, mine, bb, lroot);
    return MPI_SUCCESS;
}

/* ---- gatherv / scatterv: block sizes known at the root only --------------------------------- */

/* A site leader's data phase, built when its members' block sizes have arrived. */
typedef struct vsite {
    comm_t *c;
    const coll_team_t *site;   /* my site's members (index 0: me, the leader) */
    uint64_t *sz;              /* sz[i]: bytes of member i's block */
    p2p_data_t mine;           /* my own block (send side for gatherv, receive for scatterv) */
    int root;                  /* communicator rank of the root */
    int scatter;
} vsite_t;

static int vsite_data(icoll_sched_t *s, void *arg)
{
    vsite_t *v = arg;
    int m = v->site->size;
    size_t total = 0;
    for (int i = 0; i < m; i++)
        total += v->sz[i];
    if (total == 0)
        return MPI_SUCCESS;
    char *tmp = icoll_sched_alloc(s, total);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    p2p_data_t own = mv_data(tmp, v->sz[0]);
    if (!v->scatter) { /* my own block first (a local step), the others', then the WAN */
        mv_copy(s, &v->mine, &own);
        size_t at = v->sz[0];
        for (int i = 1; i < m; i++) {
            p2p_data_t d = mv_data(tmp + at, v->sz[i]);
            mv_recv(s, v->site, i, &d);
            at += v->sz[i];
        }
        icoll_sched_fence(s);
        site_wan_send(s, v->c, v->root, tmp, total);
        return MPI_SUCCESS;
    }
    site_wan_recv(s, v->c, v->root, tmp, total);
    icoll_sched_fence(s);
    mv_copy(s, &own, &v->mine);
    size_t at = v->sz[0];
    for (int i = 1; i < m; i++) {
        p2p_data_t d = mv_data(tmp + at, v->sz[i]);
        mv_send(s, v->site, i, &d);
        at += v->sz[i];
    }
    return MPI_SUCCESS;
}

/* A member of a site other than the root's: its size to its leader (and for gatherv its
 * block); the leader gathers the sizes and builds its data phase when they are known. */
static int vsite_member(icoll_sched_t *s, comm_t *c, const coll_sites_t *S,
                        const p2p_data_t *mine, int root, int scatter)
{
    const coll_team_t *site = &S->local.all;
    if (S->leaders.rank < 0) {
        uint64_t *b = icoll_sched_alloc(s, sizeof *b);
        if (!b)
            return MPI_ERR_NO_MEM;
        *b = mine->bytes;
        icoll_sched_send(s, c, coll_team_peer(site, 0), b, sizeof *b);
        if (scatter)
            mv_recv(s, site, 0, mine);
        else
            mv_send(s, site, 0, mine);
        return MPI_SUCCESS;
    }
    vsite_t *v = icoll_sched_alloc(s, sizeof *v);
    uint64_t *sz = icoll_sched_alloc(s, (size_t)site->size * sizeof *sz);
    if (!v || !sz)
        return MPI_ERR_NO_MEM;
    *v = (vsite_t){ .c = c, .site = site, .sz = sz, .mine = *mine, .root = root,
                    .scatter = scatter };
    sz[0] = mine->bytes;
    for (int i = 1; i < site->size; i++)
        icoll_sched_recv(s, c, coll_team_peer(site, i), &sz[i], sizeof *sz);
    icoll_sched_fence(s);
    icoll_sched_call(s, vsite_data, v);
    return MPI_SUCCESS;
}

/* Bytes of site t's blocks (counts as the root knows them). */
static size_t site_bytes(const coll_sites_t *S, int t, const int *counts, const dtype_t *dt)
{
    size_t total = 0;
    const int *m = members_of(S, t);
    for (int i = 0; i < S->site_size[t]; i++)
        total += (size_t)counts[m[i]] * (size_t)dt->size;
    return total;
}

int site_gatherv(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const p2p_data_t *mine,
                 void *rbuf, const int *rcounts, const int *displs, dtype_t *rtype, int root)
{
    int t0 = S->site_of[root], me = c->rank;
    if (S->site != t0)
        return vsite_member(s, c, S, mine, root, 0);
    if (me != root) { /* the root's site: straight to the root */
        if (mine->bytes)
            icoll_sched_send_data(s, c, root, mine);
        return MPI_SUCCESS;
    }
    mv_blocks_t rb = { rbuf, 1, rtype };
    char **tmp = icoll_sched_alloc(s, (size_t)S->nsites * sizeof *tmp);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (int t = 0; t < S->nsites; t++) {
        size_t total = t == t0 ? 0 : site_bytes(S, t, rcounts, rtype);
        if (!total)
            continue;
        if (!(tmp[t] = icoll_sched_alloc(s, total)))
            return MPI_ERR_NO_MEM;
        site_wan_recv(s, c, leader_of(S, t), tmp[t], total);
    }
    const int *m = members_of(S, t0);
    for (int i = 0; i < S->site_size[t0]; i++)
        if (m[i] != root) {
            p2p_data_t d = mv_run(&rb, displs[m[i]], (size_t)rcounts[m[i]]);
            if (d.bytes)
                icoll_sched_recv_data(s, c, m[i], &d);
        }
    icoll_sched_fence(s);
    if (mine) {
        p2p_data_t to = mv_run(&rb, displs[root], (size_t)rcounts[root]);
        mv_copy(s, mine, &to);
    }
    for (int t = 0; t < S->nsites; t++) {
        if (!tmp[t])
            continue;
        size_t at = 0;
        const int *mt = members_of(S, t);
        for (int i = 0; i < S->site_size[t]; i++) {
            p2p_data_t to = mv_run(&rb, displs[mt[i]], (size_t)rcounts[mt[i]]);
            p2p_data_t from = mv_data(tmp[t] + at, to.bytes);
            mv_copy(s, &from, &to);
            at += to.bytes;
        }
    }
    return MPI_SUCCESS;
}

int site_scatterv(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *sbuf,
                  const int *scounts, const int *displs, dtype_t *stype,
                  const p2p_data_t *mine, int root)
{
    int t0 = S->site_of[root], me = c->rank;
    if (S->site != t0) {
        icoll_sched_far(s);
        return vsite_member(s, c, S, mine, root, 1);
    }
    if (me != root) {
        if (mine->bytes)
            icoll_sched_recv_data(s, c, root, mine);
        return MPI_SUCCESS;
    }
    mv_blocks_t sb = { (void *)(uintptr_t)sbuf, 1, stype };
    char **tmp = icoll_sched_alloc(s, (size_t)S->nsites * sizeof *tmp);
    size_t *tot = icoll_sched_alloc(s, (size_t)S->nsites * sizeof *tot);
    if (!tmp || !tot)
        return MPI_ERR_NO_MEM;
    for (int t = 0; t < S->nsites; t++) { /* pack every other site's blocks (local steps) */
        tot[t] = t == t0 ? 0 : site_bytes(S, t, scounts, stype);
        if (!tot[t])
            continue;
        if (!(tmp[t] = icoll_sched_alloc(s, tot[t])))
            return MPI_ERR_NO_MEM;
        size_t at = 0;
        const int *mt = members_of(S, t);
        for (int i = 0; i < S->site_size[t]; i++) {
            p2p_data_t from = mv_run(&sb, displs[mt[i]], (size_t)scounts[mt[i]]);
            p2p_data_t to = mv_data(tmp[t] + at, from.bytes);
            mv_copy(s, &from, &to);
            at += from.bytes;
        }
    }
    if (mine) {
        p2p_data_t from = mv_run(&sb, displs[root], (size_t)scounts[root]);
        mv_copy(s, &from, mine);
    }
    for (int k = 1; k < S->nsites; k++) {
        int t = (t0 + k) % S->nsites;
        if (tot[t])
            site_wan_send(s, c, leader_of(S, t), tmp[t], tot[t]);
    }
    const int *m = members_of(S, t0);
    for (int i = 0; i < S->site_size[t0]; i++)
        if (m[i] != root) {
            p2p_data_t d = mv_run(&sb, displs[m[i]], (size_t)scounts[m[i]]);
            if (d.bytes)
                icoll_sched_send_data(s, c, m[i], &d);
        }
    return MPI_SUCCESS;
}

/* ---- allgather(v) ---------------------------------------------------------------------- */

/* The site leaders' exchange of their sites' parts of T (site-major packed: site t's part is
 * at at[t], len[t] bytes); everyone else does nothing. */
static void leaders_exchange(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, char *T,
                             const size_t *at, const size_t *len)
{
    if (S->leaders.rank < 0)
        return;
    int my = S->site;
    for (int k = 1; k < S->nsites; k++) {
        int to = (my + k) % S->nsites, from = (my - k + S->nsites) % S->nsites;
        if (len[from])
            site_wan_recv(s, c, leader_of(S, from), T + at[from], len[from]);
        if (len[my])
            site_wan_send(s, c, leader_of(S, to), T + at[my], len[my]);
    }
    icoll_sched_fence(s);
}

int site_allgather(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const p2p_data_t *mine,
                   void *rbuf, size_t rcount, dtype_t *rtype)
{
    const coll_hier_t *l = &S->local;
    int n = c->size, me = c->rank, my = S->site;
    size_t bb = rcount * (size_t)rtype->size, total = (size_t)n * bb;
    icoll_sched_far(s); /* every member gets the other sites' blocks */
    mv_blocks_t rb = { rbuf, rcount, rtype };
    p2p_data_t whole = mv_run(&rb, 0, (size_t)n);
    /* T: every block in site-major order; the receive buffer itself when that is rank order */
    int direct = !whole.layout && S->ordered;
    char *T = direct ? whole.buf : icoll_sched_alloc(s, total);
    size_t *at = icoll_sched_alloc(s, 2 * (size_t)S->nsites * sizeof *at);
    if (!T || !at)
        return MPI_ERR_NO_MEM;
    size_t *len = at + S->nsites;
    for (int t = 0; t < S->nsites; t++) {
        at[t] = (size_t)S->site_start[t] * bb;
        len[t] = (size_t)S->site_size[t] * bb;
    }
    /* my block: from the send buffer, or (in place) from the receive buffer unless that is
     * where the leader collects it anyway */
    p2p_data_t own = mine ? *mine : mv_run(&rb, me, 1);
    const p2p_data_t *src = mine || !direct || S->leaders.rank < 0 ? &own : NULL;
    mv_blocks_t out = mv_bytes(T + at[my], bb);
    mv_gather_hier(s, c, l, src, &out, bb, 0);
    icoll_sched_fence(s);
    leaders_exchange(s, c, S, T, at, len);
    int rc = local_bcast(s, c, S, T, total, 0);
    if (!direct) {
        icoll_sched_fence(s);
        for (int t = 0; t < S->nsites; t++)
            site_copy(s, S, t, T + at[t], bb, &rb, 0);
    }
    return rc;
}

int site_allgatherv(icoll_sched_t *s, comm_t *c, const coll_sites_t *S,
                    const p2p_data_t *mine, void *rbuf, const int *rcounts, const int *displs,
                    dtype_t *rtype)
{
    int n = c->size, me = c->rank, my = S->site;
    mv_blocks_t rb = { rbuf, 1, rtype };
    icoll_sched_far(s);
    /* T: every block packed in site-major order; pos[j]: offset of site-major block j */
    size_t *pos = icoll_sched_alloc(s, ((size_t)n + 1 + 2 * (size_t)S->nsites) * sizeof *pos);
    if (!pos)
        return MPI_ERR_NO_MEM;
    size_t *at = pos + n + 1, *len = at + S->nsites;
    pos[0] = 0;
    for (int j = 0; j < n; j++)
        pos[j + 1] = pos[j] + (size_t)rcounts[S->site_ranks[j]] * (size_t)rtype->size;
    size_t total = pos[n];
    if (total == 0)
        return MPI_SUCCESS;
    for (int t = 0; t < S->nsites; t++) {
        at[t] = pos[S->site_start[t]];
        len[t] = pos[S->site_start[t + 1]] - at[t];
    }
    char *T = icoll_sched_alloc(s, total);
    if (!T)
        return MPI_ERR_NO_MEM;
    p2p_data_t own = mine ? *mine : mv_run(&rb, displs[me], (size_t)rcounts[me]);
    const coll_team_t *site = &S->local.all;
    int first = S->site_start[my];
    if (S->leaders.rank < 0) {
        mv_send(s, site, 0, &own);
    } else { /* linear within the site: my block (a local step first), then the others' */
        p2p_data_t d = mv_data(T + pos[first], pos[first + 1] - pos[first]);
        mv_copy(s, &own, &d);
        for (int i = 1; i < site->size; i++) {
            d = mv_data(T + pos[first + i], pos[first + i + 1] - pos[first + i]);
            mv_recv(s, site, i, &d);
        }
    }
    icoll_sched_fence(s);
    leaders_exchange(s, c, S, T, at, len);
    int rc = local_bcast(s, c, S, T, total, 0);
    icoll_sched_fence(s);
    for (int j = 0; j < n; j++) {
        int r = S->site_ranks[j];
        p2p_data_t to = mv_run(&rb, displs[r], (size_t)rcounts[r]);
        p2p_data_t from = mv_data(T + pos[j], to.bytes);
        mv_copy(s, &from, &to);
    }
    return rc;
}

/* ---- reduce / allreduce ----------------------------------------------------------------- */

/* part[t] (count elements from element off) folded in site order into acc = part[last]:
 * acc = part[0] op (part[1] op (... op part[last])); the result then goes to out. */
static void fold(icoll_sched_t *s, int nsites, void *const *part, void *out, size_t off,
                 size_t cnt, dtype_t *dt, op_t *op)
{
    void *acc = part[nsites - 1];
    for (int t = nsites - 2; t >= 0; t--)
        red_op(s, op, part[t], acc, off, cnt, dt);
    red_copy(s, acc, off, out, off, cnt, dt);
}

int site_reduce(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *in, void *out,
                size_t count, dtype_t *dt, op_t *op, int root)
{
    int t0 = S->site_of[root], my = S->site, ns = S->nsites, last = ns - 1;
    int rep = my == t0 ? S->site_index[root] : 0;
    if (S->local.all.rank != rep)
        return local_reduce(s, c, S, in, NULL, count, dt, op, rep);
    if (c->rank != root) { /* another site's leader: its site's partial to the root */
        void *mid = red_temp(s, count, dt);
        if (!mid)
            return MPI_ERR_NO_MEM;
        int rc = local_reduce(s, c, S, in, mid, count, dt, op, 0);
        icoll_sched_fence(s);
        red_wan_send(s, c, root, mid, 0, count, dt);
        return rc;
    }
    /* the root: its site's partial (in out when it is the fold's last operand), then every
     * other site's, folded in site order into out */
    void **part = icoll_sched_alloc(s, (size_t)ns * sizeof *part);
    if (!part)
        return MPI_ERR_NO_MEM;
    for (int t = 0; t < ns; t++)
        if (!(part[t] = t == t0 && t0 == last ? out : red_temp(s, count, dt)))
            return MPI_ERR_NO_MEM;
    int rc = local_reduce(s, c, S, in, part[t0], count, dt, op, rep);
    /* after the site's phase: in (which is out, in place) has been read before anything
     * lands, and a partial that arrives meanwhile waits for its receive */
    icoll_sched_fence(s);
    for (int t = 0; t < ns; t++)
        if (t != t0)
            red_wan_recv(s, c, leader_of(S, t), part[t], 0, count, dt);
    fold(s, ns, part, out, 0, count, dt, op);
    return rc;
}

int site_allreduce(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *in,
                   void *out, size_t count, dtype_t *dt, op_t *op, int bcast)
{
    int ns = S->nsites, my = S->site, leader = S->leaders.rank >= 0;
    icoll_sched_far(s); /* every member waits for the other sites' partials */
    int rc = local_reduce(s, c, S, in, leader ? out : NULL, count, dt, op, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    icoll_sched_fence(s);
    if (leader) {
        void **part = icoll_sched_alloc(s, (size_t)ns * sizeof *part);
        if (!part)
            return MPI_ERR_NO_MEM;
        size_t bytes = count * (size_t)dt->size;
        if (ns == 2 || bytes < coll_knob(&split_knob) || count < (size_t)ns) {
            /* every leader sends its whole partial to every other and folds them all alike */
            for (int t = 0; t < ns; t++)
                if (!(part[t] = t == my ? out : red_temp(s, count, dt)))
                    return MPI_ERR_NO_MEM;
            for (int k = 1; k < ns; k++) {
                int to = (my + k) % ns, from = (my - k + ns) % ns;
                red_wan_recv(s, c, leader_of(S, from), part[from], 0, count, dt);
                red_wan_send(s, c, leader_of(S, to), out, 0, count, dt);
            }
            fold(s, ns, part, out, 0, count, dt, op);
        } else {
            /* reduce-scatter: segment t of every partial to leader t, which folds it; then
             * every leader sends its folded segment to every other */
#define LO(t) (count * (size_t)(t) / (size_t)ns)
            size_t lo = LO(my), cnt = LO(my + 1) - lo;
            for (int t = 0; t < ns; t++)
                if (!(part[t] = t == my ? red_at(out, lo, dt) : red_temp(s, cnt, dt)))
                    return MPI_ERR_NO_MEM;
            for (int k = 1; k < ns; k++) {
                int to = (my + k) % ns, from = (my - k + ns) % ns;
                red_wan_recv(s, c, leader_of(S, from), part[from], 0, cnt, dt);
                red_wan_send(s, c, leader_of(S, to), out, LO(to), LO(to + 1) - LO(to), dt);
            }
            fold(s, ns, part, red_at(out, lo, dt), 0, cnt, dt, op);
            for (int k = 1; k < ns; k++) {
                int to = (my + k) % ns, from = (my - k + ns) % ns;
                red_wan_recv(s, c, leader_of(S, from), out, LO(from), LO(from + 1) - LO(from),
                             dt);
                red_wan_send(s, c, leader_of(S, to), out, lo, cnt, dt);
            }
#undef LO
        }
        icoll_sched_fence(s);
    }
    if (bcast)
        return local_bcast_typed(s, c, S, out, count, dt, 0);
    if (S->local.leaders.rank >= 0) /* the result at every host's leader */
        red_bcast_binomial(s, &S->local.leaders, out, count, dt, 0);
    return MPI_SUCCESS;
}
