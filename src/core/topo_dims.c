/*
 * MPI_Dims_create: the most balanced split of m = nnodes / (preset product) into k factors.
 *
 * "Balanced" (MPI-3.1 §7.5.2: "as close to each other as possible") is made precise as: the
 * smallest difference between the largest and the smallest factor, then the smallest sum,
 * then the lexicographically largest nonincreasing sequence. This reproduces MPICH's answers
 * (checked for every nnodes <= 5000 and 1..10 dimensions, and with presets); the search is
 * exact, not greedy, so 360 over 3 dimensions gives 10 x 6 x 6 rather than 9 x 8 x 5.
 *
 * The search enumerates nonincreasing factorisations by divisors of m, with branch and bound
 * on the range (see search()). At most 31 factors exceed 1 (m < 2^31), so candidates are
 * kept as their factors > 1 only.
 */
#include "core/topo_ops.h"

enum { MAX_BIG = 32, MAX_DIVS = 1600 }; /* 2095133040 has the most divisors of any int: 1600 */

typedef struct search {
    int k;                    /* factors wanted */
    int divs[MAX_DIVS], ndivs;    /* divisors of m, increasing */
    int primes[10], nprimes;      /* distinct prime factors of m (at most 9 below 2^31) */
    int cur[MAX_BIG];
    int best[MAX_BIG], nbest; /* best candidate's factors > 1 */
    long long best_range, best_sum;
    int found;
} search_t;

/* b^r <= x, without overflow. */
static int pow_le(long long b, int r, long long x)
{
    long long p = 1;
    for (int i = 0; i < r; i++) {
        if (p > x / b)
            return 0;
        p *= b;
    }
    return p <= x;
}

/* floor(x^(1/r)) for x >= 1, r >= 1 */
static long long root_floor(long long x, int r)
{
    long long lo = 1, hi = x; /* lo^r <= x < (hi + 1)^r */
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (pow_le(mid, r, x))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static long long root_ceil(long long x, int r)
{
    long long b = root_floor(x, r);
    return pow_le(b, r, x - 1) ? b + 1 : b; /* b^r < x */
}

/* The candidate cur[0..nbig-1] (then ones) against the best so far: smaller range, then
 * smaller sum, then lexicographically larger. */
static int better(const search_t *s, int nbig, long long range, long long sum)
{
    if (!s->found || range != s->best_range)
        return !s->found || range < s->best_range;
    if (sum != s->best_sum)
        return sum < s->best_sum;
    for (int i = 0; i < nbig || i < s->nbest; i++) {
        int a = i < nbig ? s->cur[i] : 1, b = i < s->nbest ? s->best[i] : 1;
        if (a != b)
            return a > b;
    }
    return 0;
}

/* cur[0..nbig-1] are the factors > 1 of a complete candidate; the rest are ones. */
static void consider(search_t *s, int nbig)
{
    long long sum = s->k - nbig, range;
    for (int i = 0; i < nbig; i++)
        sum += s->cur[i];
    range = nbig == 0 ? 0 : s->cur[0] - (nbig < s->k ? 1 : s->cur[nbig - 1]);
    if (!better(s, nbig, range, sum))
        return;
    s->found = 1;
    s->best_range = range;
    s->best_sum = sum;
    s->nbest = nbig;
    for (int i = 0; i < nbig; i++)
        s->best[i] = s->cur[i];
}

/* The index of the largest divisor <= x (x >= 1). */
static int last_at_most(const search_t *s, long long x)
{
    int lo = 0, hi = s->ndivs - 1; /* divs[lo] = 1 <= x */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (s->divs[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* A lower bound on the sum of `left` factors with product rem: splitting a factor a*b into
 * a and b (both >= 2) never raises the sum, so with room for every prime factor the primes
 * and ones are best; otherwise the arithmetic-geometric mean inequality. */
static long long sum_bound(const search_t *s, long long rem, int left)
{
    long long sopfr = 0, omega = 0, r = rem;
    for (int i = 0; i < s->nprimes; i++)
        while (r % s->primes[i] == 0) {
            r /= s->primes[i];
            sopfr += s->primes[i];
            omega++;
        }
    if (omega <= left)
        return sopfr + (left - omega);
    return left * root_floor(rem, left);
}

/* Chooses factor number depth (of k) for the remaining product rem, each factor <= maxd.
 * Branch and bound on the range: the largest factor is tried smallest first, so a balanced
 * candidate is found early, and then every later factor must stay within best_range of the
 * largest. */
static void search(search_t *s, int depth, long long rem, long long maxd, long long sum)
{
    int left = s->k - depth;
    if (rem == 1) {
        consider(s, depth);
        return;
    }
    if (left == 1) {
        if (rem <= maxd) {
            s->cur[depth] = (int)rem;
            consider(s, depth + 1);
        }
        return;
    }
    long long lo = root_ceil(rem, left); /* the largest remaining factor is at least this */
    if (depth == 0) {
        for (int i = 0; i < s->ndivs; i++) {
            long long d = s->divs[i];
            if (d < lo)
                continue;
            /* The smallest factor is at most (rem/d)^(1/(left-1)), so the range is at least
             * d minus that, which grows with d. */
            if (s->found && d - root_floor(rem / d, left - 1) > s->best_range)
                break;
            s->cur[0] = (int)d;
            search(s, 1, rem / d, d, d);
        }
        return;
    }
    if (s->found) {
        /* The smallest factor will be at most rem^(1/left): the range is at least
         * range_lb. With that range equal to the best one, only a smaller sum can win. */
        long long range_lb = s->cur[0] - root_floor(rem, left);
        if (range_lb > s->best_range ||
            (range_lb == s->best_range && sum + sum_bound(s, rem, left) > s->best_sum))
            return;
        long long floor = s->cur[0] - s->best_range; /* every later factor is at least this */
        if (floor > 1 && !pow_le(floor, left, rem))
            return;
        if (floor > lo)
            lo = floor;
    }
    for (int i = last_at_most(s, maxd < rem ? maxd : rem); i >= 0; i--) {
        long long d = s->divs[i];
        if (d < lo)
            break;
        if (rem % d)
            continue;
        s->cur[depth] = (int)d;
        search(s, depth + 1, rem / d, d, sum + d);
    }
}

static void divisors(search_t *s, int m)
{
    int small = 0, large[MAX_DIVS], nlarge = 0;
    for (int d = 1; (long long)d * d <= m; d++) {
        if (m % d)
            continue;
        s->divs[small++] = d;
        if (d != m / d)
            large[nlarge++] = m / d;
    }
    for (int i = nlarge - 1; i >= 0; i--)
        s->divs[small++] = large[i];
    s->ndivs = small;
}

static void primes(search_t *s, int m)
{
    s->nprimes = 0;
    for (int p = 2; (long long)p * p <= m; p++)
        if (m % p == 0) {
            s->primes[s->nprimes++] = p;
            while (m % p == 0)
                m /= p;
        }
    if (m > 1)
        s->primes[s->nprimes++] = m;
}

int topo_dims_create(int nnodes, int ndims, int dims[])
{
    long long preset = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] == 0) {
            nfree++;
            continue;
        }
        preset *= dims[i];
        if (preset > nnodes)
            return -1;
    }
    if (nnodes % preset)
        return -1;
    if (nfree == 0)
        return preset == nnodes ? 0 : -1;

    search_t s;
    s.k = nfree;
    s.found = 0;
    divisors(&s, (int)(nnodes / preset));
    primes(&s, (int)(nnodes / preset));
    search(&s, 0, nnodes / preset, nnodes / preset, 0);
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = j < s.nbest ? s.best[j++] : 1;
    return 0;
}
