/*
 * Neighbourhood collectives across sites (coll/sites.h, site_neighbor): every block that one
 * site's members send to another site's members in one call travels in one combined message
 * between the two site leaders, which the receiving leader splits. Neighbours at the same
 * site exchange directly, as in neighbor.c; blocks to self stay local copies (neighbor.c).
 *
 * Which block is which. A block travels along an edge (src, dst) with a key e that both ends
 * compute alone: on a Cartesian grid the sender's block index (the receiver's slot is e ^ 1,
 * see neighbor.c); on a graph the edge's occurrence among the sender's edges to dst (the
 * receiver's slot is the e-th occurrence of src among its sources). The message from site A
 * to site B carries the blocks ordered by (dst's index in B, src's rank, e) and nothing else:
 * every member of B knows which of its slots come from A and in which order, hence how many
 * bytes it gets, and its slice of the message is contiguous.
 *
 * Per call, within each site (local messages; one tag; per pair in this order):
 *   member -> leader   an announce: per site, the edges and bytes it sends there and receives
 *                      from there (4 * S numbers: the leader knows neither a distributed
 *                      graph's edges nor this call's counts)
 *   member <-> leader  their direct blocks, when they are neighbours
 *   member -> leader   its upload: (dst, e, bytes) of each of its blocks for other sites, then
 *                      those blocks, in its destination order
 *   leader -> member   one download per remote site the member has sources at: its slice
 * The leader builds its part from the announces when they have arrived (schedule callbacks):
 * the uploads' receives, the combined messages (one to each remote site that its site has
 * edges to, one from each remote site with edges to it: the same pairs seen from both ends),
 * the split.
 *
 * Through the site gateways (p2p_bundles) the remote *gateway* splits instead: the leader
 * sends every member of the remote site its slice itself, all of them started together, so
 * they leave as one group (p2p_group_begin) — one WAN frame per site pair, which that site's
 * gateway splits into the members' messages — and each member, the leader too, receives its
 * slice from the remote leader directly: no downloads, one local hop less. (Directly across
 * the WAN, --direct-wan, nothing would bundle the slices: the leaders split.)
 *
 * A program whose block sizes disagree between the two ends of an edge (erroneous) may get
 * MPI_ERR_TRUNCATE at a leader, or wrong data, rather than MPI_ERR_TRUNCATE at the receiver.
 */
#include "coll/sites.h"

#include "coll/move.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { A_OUT_EDGES, A_OUT_BYTES, A_IN_EDGES, A_IN_BYTES, A_N };

/* One block of a combined message. */
typedef struct nblock {
    int dst, dst_site, dst_index; /* destination: its rank, its site and index there */
    int src, e;              /* source rank, edge key */
    size_t bytes;
    const char *data;
} nblock_t;

typedef struct nop_site {
    comm_t *c;
    const coll_sites_t *S;
    int m;                 /* my site's members */
    uint64_t *ann;         /* leader: every member's announce (A_N * nsites numbers each) */
    char **up;             /* leader: every member's upload (index 0: my own) */
    p2p_data_t *rcv;       /* my receive slots */
    int *order;            /* my slots fed from other sites, by site, each run sorted */
    int *first;            /* site t's slots: order[first[t] .. first[t + 1]) */
    int gw;                /* the gateways split (see above); else the leaders */
} nop_site_t;

/* The key of in-slot l (from srcs[l]) and of out-block k (to dsts[k]). */
static int in_key(const int *srcs, int l, int cart)
{
    if (cart)
        return l ^ 1;
    int e = 0;
    for (int j = 0; j < l; j++)
        e += srcs[j] == srcs[l];
    return e;
}

static int out_key(const int *dsts, int k, int cart)
{
    if (cart)
        return k;
    int e = 0;
    for (int j = 0; j < k; j++)
        e += dsts[j] == dsts[k];
    return e;
}

static int by_block(const void *a, const void *b)
{
    const nblock_t *x = a, *y = b;
    if (x->dst_site != y->dst_site)
        return x->dst_site < y->dst_site ? -1 : 1;
    if (x->dst_index != y->dst_index)
        return x->dst_index < y->dst_index ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* (source, key) pairs of in-slots, for sorting a site's slots (insertion sort: few). */
static void sort_slots(int *idx, int n, const int *srcs, int cart)
{
    for (int a = 1; a < n; a++) {
        int v = idx[a], sv = srcs[v], kv = in_key(srcs, v, cart), b = a;
        while (b > 0) {
            int u = idx[b - 1], su = srcs[u];
            if (su < sv || (su == sv && in_key(srcs, u, cart) < kv))
                break;
            idx[b] = u;
            b--;
        }
        idx[b] = v;
    }
}

static uint64_t *ann_of(const nop_site_t *o, int i)
{
    return o->ann + (size_t)i * A_N * (size_t)o->S->nsites;
}

static size_t ann_sum(const nop_site_t *o, int t, int field)
{
    size_t sum = 0;
    for (int i = 0; i < o->m; i++)
        sum += ann_of(o, i)[t * A_N + field];
    return sum;
}

static size_t upload_bytes(const uint64_t *a, int ns)
{
    size_t bytes = 0;
    for (int t = 0; t < ns; t++)
        bytes += 3 * sizeof(uint64_t) * a[t * A_N + A_OUT_EDGES] + a[t * A_N + A_OUT_BYTES];
    return bytes;
}

/* My slots from site t: unpacked from a contiguous download (local steps). */
static void unpack(icoll_sched_t *s, const nop_site_t *o, int t, const char *from)
{
    size_t at = 0;
    for (int j = o->first[t]; j < o->first[t + 1]; j++) {
        p2p_data_t *to = &o->rcv[o->order[j]], d = mv_data((char *)(uintptr_t)from + at,
                                                           to->bytes);
        mv_copy(s, &d, to);
        at += to->bytes;
    }
}

/* My slices from the other sites' leaders (gateway split: every member receives its own). */
static int recv_slices(icoll_sched_t *s, const nop_site_t *o, const uint64_t *mine, char **dn)
{
    for (int t = 0; t < o->S->nsites; t++)
        if (t != o->S->site && mine[t * A_N + A_IN_EDGES]) {
            size_t bytes = mine[t * A_N + A_IN_BYTES];
            if (!(dn[t] = icoll_sched_alloc(s, bytes ? bytes : 1)))
                return MPI_ERR_NO_MEM;
            site_wan_recv(s, o->c, o->S->leaders.ranks[t], dn[t], bytes);
        }
    return MPI_SUCCESS;
}

/* Leader, gateway split: every remote member's slice of out[t] (the blocks b, sorted: one run
 * per destination) straight to it, the leader's own slices from the other leaders; all
 * started together (one group). */
static int gateway_split(icoll_sched_t *s, nop_site_t *o, const nblock_t *b, size_t nb,
                         char **out)
{
    const coll_sites_t *S = o->S;
    char **dn = icoll_sched_alloc(s, (size_t)S->nsites * sizeof *dn);
    if (!dn)
        return MPI_ERR_NO_MEM;
    int rc = recv_slices(s, o, ann_of(o, 0), dn);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t at = 0;
    for (size_t k = 0; k < nb;) {
        int t = b[k].dst_site, dst = b[k].dst;
        size_t bytes = 0;
        for (; k < nb && b[k].dst == dst; k++)
            bytes += b[k].bytes;
        site_wan_send(s, o->c, dst, out[t] + at, bytes);
        at += bytes;
        if (k == nb || b[k].dst_site != t)
            at = 0;
    }
    icoll_sched_fence(s);
    for (int t = 0; t < S->nsites; t++)
        if (dn[t])
            unpack(s, o, t, dn[t]);
    return MPI_SUCCESS;
}

/* Leader, when every upload has arrived: the combined messages, then the split. */
static int leader_exchange(icoll_sched_t *s, void *arg)
{
    nop_site_t *o = arg;
    const coll_sites_t *S = o->S;
    const coll_team_t *site = &S->local.all;
    int ns = S->nsites, my = S->site, m = o->m;
    size_t nb = 0;
    for (int t = 0; t < ns; t++)
        nb += ann_sum(o, t, A_OUT_EDGES);
    nblock_t *b = icoll_sched_alloc(s, nb * sizeof *b);
    char **buf = icoll_sched_alloc(s, 2 * (size_t)ns * sizeof *buf);
    if ((nb && !b) || !buf)
        return MPI_ERR_NO_MEM;
    char **in = buf, **out = buf + ns;
    size_t k = 0;
    for (int i = 0; i < m; i++) {
        const uint64_t *a = ann_of(o, i);
        size_t ne = 0;
        for (int t = 0; t < ns; t++)
            ne += a[t * A_N + A_OUT_EDGES];
        const char *u = o->up[i], *data = u + 3 * sizeof(uint64_t) * ne;
        for (size_t j = 0; j < ne; j++, k++) {
            uint64_t d[3];
            memcpy(d, u + 3 * sizeof(uint64_t) * j, sizeof d);
            int dst = (int)d[0];
            b[k] = (nblock_t){ .dst = dst, .dst_site = S->site_of[dst],
                               .dst_index = S->site_index[dst],
                               .src = coll_team_peer(site, i), .e = (int)d[1],
                               .bytes = (size_t)d[2], .data = data };
            data += d[2];
        }
    }
    qsort(b, nb, sizeof *b, by_block);
    /* one message per remote site, the blocks in order (copied here: the uploads are in) */
    k = 0;
    for (int t = 0; t < ns; t++) {
        if (t == my || !ann_sum(o, t, A_OUT_EDGES))
            continue;
        size_t total = ann_sum(o, t, A_OUT_BYTES), at = 0;
        if (!(out[t] = icoll_sched_alloc(s, total)))
            return MPI_ERR_NO_MEM;
        for (; k < nb && b[k].dst_site == t; k++) {
            if (at + b[k].bytes > total)
                return MPI_ERR_TRUNCATE; /* uploads disagree with announces: erroneous */
            memcpy(out[t] + at, b[k].data, b[k].bytes);
            at += b[k].bytes;
        }
    }
    if (o->gw)
        return gateway_split(s, o, b, nb, out);
    for (int j = 1; j < ns; j++) {
        int to = (my + j) % ns, from = (my - j + ns) % ns;
        if (ann_sum(o, from, A_IN_EDGES)) {
            size_t total = ann_sum(o, from, A_IN_BYTES);
            if (!(in[from] = icoll_sched_alloc(s, total)))
                return MPI_ERR_NO_MEM;
            site_wan_recv(s, o->c, S->leaders.ranks[from], in[from], total);
        }
        if (out[to])
            site_wan_send(s, o->c, S->leaders.ranks[to], out[to], ann_sum(o, to, A_OUT_BYTES));
    }
    icoll_sched_fence(s);
    /* the split: member i's slice of each message follows those of members 0 .. i-1; mine
     * is unpacked (local steps first), the others' go as downloads */
    for (int t = 0; t < ns; t++)
        if (in[t])
            unpack(s, o, t, in[t]);
    for (int i = 1; i < m; i++)
        for (int t = 0; t < ns; t++) {
            if (!in[t] || !ann_of(o, i)[t * A_N + A_IN_EDGES])
                continue;
            size_t at = 0;
            for (int j = 0; j < i; j++)
                at += ann_of(o, j)[t * A_N + A_IN_BYTES];
            p2p_data_t d = mv_data(in[t] + at, ann_of(o, i)[t * A_N + A_IN_BYTES]);
            icoll_sched_send_data(s, o->c, coll_team_peer(site, i), &d);
        }
    return MPI_SUCCESS;
}

/* Leader, when every announce has arrived: receive the uploads. */
static int leader_uploads(icoll_sched_t *s, void *arg)
{
    nop_site_t *o = arg;
    int ns = o->S->nsites;
    for (int i = 1; i < o->m; i++) {
        size_t bytes = upload_bytes(ann_of(o, i), ns);
        if (!bytes)
            continue;
        if (!(o->up[i] = icoll_sched_alloc(s, bytes)))
            return MPI_ERR_NO_MEM;
        p2p_data_t d = mv_data(o->up[i], bytes);
        icoll_sched_recv_data(s, o->c, coll_team_peer(&o->S->local.all, i), &d);
    }
    icoll_sched_fence(s);
    icoll_sched_call(s, leader_exchange, o);
    return MPI_SUCCESS;
}

int site_neighbor(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, int indeg,
                  const int *srcs, const p2p_data_t *rcv, int outdeg, const int *dsts,
                  const p2p_data_t *snd, int cart)
{
    int me = c->rank, ns = S->nsites, my = S->site;
    const coll_team_t *site = &S->local.all;
    int m = site->size, leader = site->rank == 0, lead = coll_team_peer(site, 0);
    nop_site_t *o = icoll_sched_alloc(s, sizeof *o);
    uint64_t *ann = icoll_sched_alloc(s, (size_t)(leader ? m : 1) * A_N * (size_t)ns *
                                             sizeof *ann);
    p2p_data_t *rv = icoll_sched_alloc(s, (size_t)indeg * sizeof *rv);
    int *order = icoll_sched_alloc(s, ((size_t)indeg + (size_t)ns + 1) * sizeof *order);
    char **up = icoll_sched_alloc(s, (size_t)(leader ? m : 1) * sizeof *up);
    if (!o || !ann || !rv || !order || !up)
        return MPI_ERR_NO_MEM;
    memcpy(rv, rcv, (size_t)indeg * sizeof *rv);
    /* the leader exchanges with the other sites' leaders; a member with a source there
     * waits for its blocks */
    int far = leader;
    for (int k = 0; k < indeg && !far; k++)
        far = srcs[k] != MPI_PROC_NULL && S->site_of[srcs[k]] != my;
    if (far)
        icoll_sched_far(s);
    *o = (nop_site_t){ .c = c, .S = S, .m = m, .ann = ann, .up = up, .rcv = rv,
                       .order = order, .first = order + indeg };
    for (int t = 0; t < ns && !o->gw; t++)
        if (t != my)
            o->gw = p2p_bundles(comm_peer_world_rank(c, S->leaders.ranks[t]));
    /* my announce; my slots from other sites, grouped by site and sorted */
    size_t ne = 0, data = 0;
    for (int k = 0; k < outdeg; k++) {
        int d = dsts[k];
        if (d == MPI_PROC_NULL || S->site_of[d] == my)
            continue;
        ann[S->site_of[d] * A_N + A_OUT_EDGES]++;
        ann[S->site_of[d] * A_N + A_OUT_BYTES] += snd[k].bytes;
        ne++;
        data += snd[k].bytes;
    }
    int nslots = 0;
    for (int t = 0; t < ns; t++) {
        o->first[t] = nslots;
        if (t == my)
            continue;
        for (int l = 0; l < indeg; l++)
            if (srcs[l] != MPI_PROC_NULL && S->site_of[srcs[l]] == t) {
                order[nslots++] = l;
                ann[t * A_N + A_IN_EDGES]++;
                ann[t * A_N + A_IN_BYTES] += rv[l].bytes;
            }
        sort_slots(order + o->first[t], nslots - o->first[t], srcs, cart);
    }
    o->first[ns] = nslots;
    /* my upload: descriptors, then the blocks (copied in first: local steps that wait for
     * nothing) */
    size_t upb = 3 * sizeof(uint64_t) * ne + data;
    char *u = upb ? icoll_sched_alloc(s, upb) : NULL;
    if (upb && !u)
        return MPI_ERR_NO_MEM;
    up[0] = u;
    size_t j = 0, at = 3 * sizeof(uint64_t) * ne;
    for (int k = 0; k < outdeg; k++) {
        int d = dsts[k];
        if (d == MPI_PROC_NULL || S->site_of[d] == my)
            continue;
        uint64_t desc[3] = { (uint64_t)d, (uint64_t)out_key(dsts, k, cart), snd[k].bytes };
        memcpy(u + 3 * sizeof(uint64_t) * j++, desc, sizeof desc);
        p2p_data_t to = mv_data(u + at, snd[k].bytes);
        mv_copy(s, &snd[k], &to);
        at += snd[k].bytes;
    }
    /* the downloads a member receives: one per remote site it has sources at */
    char **dn = NULL;
    if (!leader) {
        if (!(dn = icoll_sched_alloc(s, (size_t)ns * sizeof *dn)))
            return MPI_ERR_NO_MEM;
        for (int t = 0; t < ns; t++)
            if (ann[t * A_N + A_IN_EDGES] &&
                !(dn[t] = icoll_sched_alloc(s, ann[t * A_N + A_IN_BYTES])))
                return MPI_ERR_NO_MEM;
        icoll_sched_send(s, c, lead, ann, A_N * (size_t)ns * sizeof *ann);
    } else {
        for (int i = 1; i < m; i++)
            icoll_sched_recv(s, c, coll_team_peer(site, i), ann_of(o, i),
                             A_N * (size_t)ns * sizeof *ann);
    }
    /* neighbours at my site: directly, in neighbor.c's order (receives posted with the
     * blocks of each dimension swapped on a Cartesian grid) */
    for (int i = 0; i < indeg; i++) {
        int l = cart ? i ^ 1 : i, p = srcs[l];
        if (p != MPI_PROC_NULL && p != me && S->site_of[p] == my)
            icoll_sched_recv_data(s, c, p, &rv[l]);
    }
    for (int k = 0; k < outdeg; k++) {
        int p = dsts[k];
        if (p != MPI_PROC_NULL && p != me && S->site_of[p] == my)
            icoll_sched_send_data(s, c, p, &snd[k]);
    }
    if (leader) {
        icoll_sched_fence(s);
        icoll_sched_call(s, leader_uploads, o);
        return MPI_SUCCESS;
    }
    if (upb) {
        p2p_data_t d = mv_data(u, upb);
        icoll_sched_send_data(s, c, lead, &d);
    }
    for (int t = 0; t < ns; t++)
        if (dn[t] && o->gw) {
            site_wan_recv(s, c, S->leaders.ranks[t], dn[t], ann[t * A_N + A_IN_BYTES]);
        } else if (dn[t]) {
            p2p_data_t d = mv_data(dn[t], ann[t * A_N + A_IN_BYTES]);
            icoll_sched_recv_data(s, c, lead, &d);
        }
    icoll_sched_fence(s);
    for (int t = 0; t < ns; t++)
        if (dn[t])
            unpack(s, o, t, dn[t]);
    return MPI_SUCCESS;
}
