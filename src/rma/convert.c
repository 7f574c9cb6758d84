/* The target's half of receiver-makes-right for one-sided operations (issue 19, rma/wire.h):
 * the origin's data of a put, an accumulate or a compare-and-swap from a rank of another
 * architecture, converted into this rank's representation before it is applied, and the
 * target layout it names, turned into this rank's byte order. Data of one basic type are
 * converted as elements of it; data of several (a struct) as a stream of the target layout's
 * signature. */
#include "rma/win.h"
#include "rma/wire.h"

#include "core/errors.h"
#include "datatype/dtype.h"
#include "datatype/engine/convert.h"
#include "datatype/engine/layout.h"
#include "datatype/predefined.h"
#include "runtime/peer_arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const void *rma_layout_from(win_t *w, int origin, const rma_hdr_t *h, const void *layout,
                            void **owned)
{
    *owned = NULL;
    if (peer_arch_all_same() || h->layout_len == 0)
        return layout;
    const arch_desc_t *from = peer_arch(comm_peer_world_rank(w->comm, origin));
    if (from->byte_order == arch_local()->byte_order)
        return layout;
    /* 8-byte aligned (malloc), as dt_layout_check needs; a layout that does not turn is
     * left for it to reject */
    if (!(*owned = malloc(h->layout_len)))
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for a one-sided operation's layout");
    memcpy(*owned, layout, h->layout_len);
    dt_layout_swap(*owned, h->layout_len);
    return *owned;
}

/* Data of several basic types (a struct, a pair type): a stream of h->count elements of the
 * target layout, converted into this rank's stream element by element at the same offsets
 * (the origin checked that every basic type has one size on both, api/win_checks.c, and
 * sent the layout even where it is contiguous, rma/ops.c). */
static void convert_mixed(dt_conv_t *cv, int origin, const rma_hdr_t *h, const void *layout,
                          const arch_desc_t *from, const void *data, void *out, uint64_t n)
{
    const dt_layout_t *l = h->layout_len ? dt_layout_check(layout, h->layout_len) : NULL;
    if (!l)
        err_fatal(MPI_ERR_INTERN, "MPI_Win", "one-sided data of several basic types from rank "
                  "%d, of another architecture, came without their layout", origin);
    dt_conv_init(cv, from, l, 0, (size_t)h->count);
    if (dt_conv_restream(cv, data, out, (size_t)n) != n)
        err_fatal(MPI_ERR_INTERN, "MPI_Win", "one-sided data from rank %d, of another "
                  "architecture, are not %llu elements of their target datatype with the "
                  "same sizes on both", origin, (unsigned long long)h->count);
}

void *rma_convert_from(win_t *w, int origin, const rma_hdr_t *h, const void *layout,
                       const void *data)
{
    uint64_t n = rma_data_bytes(h);
    if (peer_arch_all_same() || n == 0)
        return NULL;
    const arch_desc_t *from = peer_arch(comm_peer_world_rank(w->comm, origin));
    if (arch_same(from, arch_local()))
        return NULL;
    /* the origin checked that the data's basic types have one size on both
     * (api/win_checks.c), so the converted data have the bytes the header says */
    const dtype_basic_info_t *b = h->leaf > 0 ? dtype_basic(h->leaf) : NULL;
    dtype_t *t = b ? dtype_lookup(b->handle) : NULL;
    if (t && (!t->layout || t->size <= 0 || n % (uint64_t)t->size))
        err_fatal(MPI_ERR_INTERN, "MPI_Win", "one-sided data from rank %d, of another "
                  "architecture, are not elements of one basic type (leaf %d, %llu bytes)",
                  origin, h->leaf, (unsigned long long)n);
    void *out = malloc((size_t)n);
    if (!out)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for converting %llu bytes of "
                  "one-sided data", (unsigned long long)n);
    dt_conv_t cv;
    if (t) {
        dt_conv_init(&cv, from, t->layout, (uintptr_t)out, (size_t)(n / (uint64_t)t->size));
        dt_conv_unpack(&cv, data, (size_t)n);
    } else {
        convert_mixed(&cv, origin, h, layout, from, data, out, n);
    }
    char why[300], a[96], me[96];
    if (dt_conv_failure(&cv, why, sizeof why))
        err_fatal(MPI_ERR_CONVERSION, "MPI_Win", "one-sided data from rank %d, %s, to rank %d, "
                  "%s: %s", origin, arch_describe(from, a, sizeof a), w->comm->rank,
                  arch_describe(arch_local(), me, sizeof me), why);
    return out;
}
