/*
 * Alltoall, Alltoallv and Alltoallw across sites (coll/sites.h): each pair of ranks' data
 * travels once, and everything one site's members send to another site's members travels
 * as one message between the two site leaders.
 *
 *   member i of site A                 leader of A          leader of B        member j of B
 *   blocks for site-mates: direct
 *   blocks for B's members  -- up -->  out_B: i-major
 *                                      (i, then j)    -- WAN -->  in_A: i-major
 *                                                                  split per j  -- down -->
 *
 * The message from A to B holds block (i -> j) for every member i of A and j of B, ordered by
 * i (site order), then j. The receiving leader copies each of its members' blocks out of it
 * into one contiguous download per (member, remote site), ordered by i. A member whose remote
 * site holds consecutive ranks sends its up and receives its down straight from and into its
 * buffers (uniform blocks); otherwise it packs / unpacks a temporary.
 *
 * Sizes. Alltoall's blocks are all alike, so everyone knows every size. For Alltoallv and
 * Alltoallw a leader does not know its members' counts: each member first sends it a record
 * (the bytes it sends to each other site, and the bytes it receives from each rank of other
 * sites), and the leader builds the rest of its part when the records have arrived (a
 * schedule callback). The sizes agree at both ends of every message by the type-signature
 * rule, so both ends skip the same empty messages.
 *
 * Message order between a member and its leader (one tag): the member's direct block for the
 * leader (when they exchange one), its record, its ups by remote site; the other way the
 * leader's direct block, then the downs by remote site. Both sides append in that order.
 */
#include "coll/sites.h"

#include "coll/move.h"

#include <stdint.h>

typedef struct a2a {
    comm_t *c;
    const coll_sites_t *S;
    p2p_data_t *sb, *rb; /* every rank's send / receive block, by rank */
    int uniform;         /* every block of the operation has bb bytes */
    size_t bb;
    int nrec;            /* entries of a record: nsites, then n (by site-major position) */
    uint64_t *rec;       /* leader, v/w: member i's record at rec + i * nrec */
    char **out, **in;    /* leader: by site */
} a2a_t;

static const int *members_of(const coll_sites_t *S, int t)
{
    return S->site_ranks + S->site_start[t];
}

/* Bytes member i of my site sends to site t. */
static size_t up_bytes(const a2a_t *a, int i, int t)
{
    const coll_sites_t *S = a->S;
    if (a->uniform)
        return (size_t)S->site_size[t] * a->bb;
    if (i > 0)
        return a->rec[(size_t)i * (size_t)a->nrec + (size_t)t];
    size_t sum = 0;
    for (int k = 0; k < S->site_size[t]; k++)
        sum += a->sb[members_of(S, t)[k]].bytes;
    return sum;
}

/* Bytes member i of my site receives from rank k (of another site). */
static size_t in_bytes(const a2a_t *a, int i, int k)
{
    const coll_sites_t *S = a->S;
    if (a->uniform)
        return a->bb;
    if (i > 0)
        return a->rec[(size_t)i * (size_t)a->nrec + (size_t)S->nsites +
                      (size_t)(S->site_start[S->site_of[k]] + S->site_index[k])];
    return a->rb[k].bytes;
}

/* The leader's first steps: a buffer per remote site for what goes there, with its own
 * blocks copied in first (local steps that wait for nothing). */
static int leader_prepare(icoll_sched_t *s, a2a_t *a)
{
    const coll_sites_t *S = a->S;
    int ns = S->nsites, m = S->local.all.size;
    a->out = icoll_sched_alloc(s, 2 * (size_t)ns * sizeof *a->out);
    if (!a->out)
        return MPI_ERR_NO_MEM;
    a->in = a->out + ns;
    for (int t = 0; t < ns; t++) {
        if (t == S->site)
            continue;
        size_t total = 0;
        for (int i = 0; i < m; i++)
            total += up_bytes(a, i, t);
        if (total && !(a->out[t] = icoll_sched_alloc(s, total)))
            return MPI_ERR_NO_MEM;
        size_t at = 0;
        for (int k = 0; k < S->site_size[t]; k++) {
            p2p_data_t *b = &a->sb[members_of(S, t)[k]], to = mv_data(a->out[t] + at, b->bytes);
            mv_copy(s, b, &to);
            at += b->bytes;
        }
    }
    return MPI_SUCCESS;
}

/* The rest of the leader's part: the members' ups, the WAN exchange, the split. */
static int leader_rest(icoll_sched_t *s, a2a_t *a)
{
    const coll_sites_t *S = a->S;
    const coll_team_t *site = &S->local.all;
    int ns = S->nsites, my = S->site, m = site->size;
    comm_t *c = a->c;
    for (int i = 1; i < m; i++) {
        for (int t = 0; t < ns; t++) {
            if (t == my)
                continue;
            size_t at = 0;
            for (int j = 0; j < i; j++)
                at += up_bytes(a, j, t);
            p2p_data_t d = mv_data(a->out[t] + at, up_bytes(a, i, t));
            mv_recv(s, site, i, &d);
        }
    }
    icoll_sched_fence(s);
    size_t *tot = icoll_sched_alloc(s, 2 * (size_t)ns * sizeof *tot);
    if (!tot)
        return MPI_ERR_NO_MEM;
    size_t *tot_out = tot + ns;
    for (int t = 0; t < ns; t++) {
        if (t == my)
            continue;
        for (int k = 0; k < S->site_size[t]; k++)
            for (int i = 0; i < m; i++)
                tot[t] += in_bytes(a, i, members_of(S, t)[k]);
        for (int i = 0; i < m; i++)
            tot_out[t] += up_bytes(a, i, t);
        if (tot[t] && !(a->in[t] = icoll_sched_alloc(s, tot[t])))
            return MPI_ERR_NO_MEM;
    }
    for (int k = 1; k < ns; k++) {
        int to = (my + k) % ns, from = (my - k + ns) % ns;
        if (tot[from])
            site_wan_recv(s, c, S->leaders.ranks[from], a->in[from], tot[from]);
        if (tot_out[to])
            site_wan_send(s, c, S->leaders.ranks[to], a->out[to], tot_out[to]);
    }
    icoll_sched_fence(s);
    /* the split: block (k -> i) lies at the running offset in k-major order; mine go to
     * their places, each member's are copied into one download per site (all copies before
     * the sends, which then start together) */
    char **down = icoll_sched_alloc(s, (size_t)ns * (size_t)m * sizeof *down);
    size_t *dlen = icoll_sched_alloc(s, (size_t)ns * (size_t)m * sizeof *dlen);
    if (!down || !dlen)
        return MPI_ERR_NO_MEM;
    for (int t = 0; t < ns; t++) {
        if (t == my || !a->in[t])
            continue;
        const int *mt = members_of(S, t);
        for (int i = 1; i < m; i++) {
            size_t len = 0;
            for (int k = 0; k < S->site_size[t]; k++)
                len += in_bytes(a, i, mt[k]);
            dlen[t * m + i] = len;
            if (len && !(down[t * m + i] = icoll_sched_alloc(s, len)))
                return MPI_ERR_NO_MEM;
            dlen[t * m + i] = 0; /* reused as the fill position below */
        }
        size_t at = 0;
        for (int k = 0; k < S->site_size[t]; k++)
            for (int i = 0; i < m; i++) {
                size_t len = in_bytes(a, i, mt[k]);
                p2p_data_t from = mv_data(a->in[t] + at, len);
                if (i == 0) {
                    mv_copy(s, &from, &a->rb[mt[k]]);
                } else {
                    p2p_data_t to = mv_data(down[t * m + i] + dlen[t * m + i], len);
                    mv_copy(s, &from, &to);
                    dlen[t * m + i] += len;
                }
                at += len;
            }
    }
    for (int i = 1; i < m; i++)
        for (int t = 0; t < ns; t++)
            if (t != my && a->in[t]) {
                p2p_data_t d = mv_data(down[t * m + i], dlen[t * m + i]);
                mv_send(s, site, i, &d);
            }
    return MPI_SUCCESS;
}

static int leader_records_arrived(icoll_sched_t *s, void *arg)
{
    a2a_t *a = arg;
    int rc = leader_prepare(s, a);
    return rc != MPI_SUCCESS ? rc : leader_rest(s, a);
}

int site_alltoall(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const struct side *sd,
                  const struct side *rd, site_block_fn blk, const mv_blocks_t *srun,
                  const mv_blocks_t *rrun, int uniform)
{
    int n = c->size, me = c->rank, ns = S->nsites, my = S->site;
    const coll_team_t *site = &S->local.all;
    int m = site->size, i = site->rank;
    icoll_sched_far(s); /* every member gets blocks from the other sites */
    a2a_t *a = icoll_sched_alloc(s, sizeof *a);
    p2p_data_t *blocks = icoll_sched_alloc(s, 2 * (size_t)n * sizeof *blocks);
    if (!a || !blocks)
        return MPI_ERR_NO_MEM;
    *a = (a2a_t){ .c = c, .S = S, .sb = blocks, .rb = blocks + n, .uniform = uniform,
                  .nrec = ns + n };
    for (int k = 0; k < n; k++) {
        a->sb[k] = blk(sd, k);
        a->rb[k] = blk(rd, k);
    }
    a->bb = a->rb[me].bytes;
    if (uniform && a->bb == 0)
        return MPI_SUCCESS;
    const int *mm = members_of(S, my);
    int leader = i == 0;
    /* a member's ups and downs per remote site: a typed run of its buffer when the side is
     * an array of equal blocks and that site holds consecutive ranks, else a packed
     * temporary (packing first: local steps that wait for nothing) */
    p2p_data_t *up = NULL, *dn = NULL;
    char *packed_dn = NULL;
    if (!leader) {
        up = icoll_sched_alloc(s, 2 * (size_t)ns * sizeof *up);
        packed_dn = icoll_sched_alloc(s, (size_t)ns);
        if (!up || !packed_dn)
            return MPI_ERR_NO_MEM;
        dn = up + ns;
        for (int t = 0; t < ns; t++) {
            if (t == my)
                continue;
            const int *mt = members_of(S, t);
            size_t mt_n = (size_t)S->site_size[t], ub = 0, db = 0;
            for (size_t k = 0; k < mt_n; k++) {
                ub += a->sb[mt[k]].bytes;
                db += a->rb[mt[k]].bytes;
            }
            if (srun && S->contiguous[t]) {
                up[t] = mv_run(srun, mt[0], mt_n);
            } else {
                char *tmp = icoll_sched_alloc(s, ub);
                if (!tmp)
                    return MPI_ERR_NO_MEM;
                up[t] = mv_data(tmp, ub);
                size_t at = 0;
                for (size_t k = 0; k < mt_n; k++) {
                    p2p_data_t to = mv_data(tmp + at, a->sb[mt[k]].bytes);
                    mv_copy(s, &a->sb[mt[k]], &to);
                    at += to.bytes;
                }
            }
            if (rrun && S->contiguous[t]) {
                dn[t] = mv_run(rrun, mt[0], mt_n);
            } else {
                char *tmp = icoll_sched_alloc(s, db);
                if (!tmp)
                    return MPI_ERR_NO_MEM;
                dn[t] = mv_data(tmp, db);
                packed_dn[t] = 1;
            }
        }
    } else if (uniform && leader_prepare(s, a) != MPI_SUCCESS) {
        return MPI_ERR_NO_MEM;
    }
    /* site-mates exchange directly, starting with the neighbours at distance 1, 2, ... */
    for (int k = 1; k < m; k++) {
        int to = mm[(i + k) % m], from = mm[(i - k + m) % m];
        if (a->rb[from].bytes)
            icoll_sched_recv_data(s, c, from, &a->rb[from]);
        if (a->sb[to].bytes)
            icoll_sched_send_data(s, c, to, &a->sb[to]);
    }
    if (!leader) {
        if (!uniform) {
            uint64_t *rec = icoll_sched_alloc(s, (size_t)a->nrec * sizeof *rec);
            if (!rec)
                return MPI_ERR_NO_MEM;
            for (int t = 0; t < ns; t++)
                rec[t] = t == my ? 0 : up[t].bytes;
            for (int j = 0; j < n; j++) {
                int k = S->site_ranks[j];
                rec[ns + j] = S->site_of[k] == my ? 0 : a->rb[k].bytes;
            }
            icoll_sched_send(s, c, mm[0], rec, (size_t)a->nrec * sizeof *rec);
        }
        for (int t = 0; t < ns; t++)
            if (t != my)
                mv_send(s, site, 0, &up[t]);
        for (int t = 0; t < ns; t++)
            if (t != my)
                mv_recv(s, site, 0, &dn[t]);
        icoll_sched_fence(s);
        for (int t = 0; t < ns; t++) { /* unpack the downloads that came packed */
            if (t == my || !packed_dn[t])
                continue;
            const int *mt = members_of(S, t);
            size_t at = 0;
            for (int k = 0; k < S->site_size[t]; k++) {
                p2p_data_t from = mv_data((char *)dn[t].buf + at, a->rb[mt[k]].bytes);
                mv_copy(s, &from, &a->rb[mt[k]]);
                at += from.bytes;
            }
        }
    } else if (uniform) {
        int rc = leader_rest(s, a);
        if (rc != MPI_SUCCESS)
            return rc;
    } else {
        if (!(a->rec = icoll_sched_alloc(s, (size_t)m * (size_t)a->nrec * sizeof *a->rec)))
            return MPI_ERR_NO_MEM;
        for (int k = 1; k < m; k++)
            icoll_sched_recv(s, c, mm[k], a->rec + (size_t)k * (size_t)a->nrec,
                             (size_t)a->nrec * sizeof *a->rec);
        icoll_sched_fence(s);
        icoll_sched_call(s, leader_records_arrived, a);
    }
    /* my own block: a local step after the messages */
    mv_copy(s, &a->sb[me], &a->rb[me]);
    return MPI_SUCCESS;
}
