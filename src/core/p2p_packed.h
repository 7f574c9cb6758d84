/*
 * MPI_PACKED in the user's point-to-point on a job of several architectures (issue 19,
 * docs/heterogeneity-conversion.md, "MPI_PACKED"). MPI_Pack on a communicator of several
 * architectures begins its buffer with a header naming the writer (datatype/engine/packed_arch.h).
 * What travels is always the sender's native stream, as for a typed send:
 *  - a send of MPI_PACKED leaves out a header that names the sender itself (so a typed
 *    receive, which converts from the sender's architecture, gets the bare stream); a header
 *    naming another rank's architecture (data forwarded as MPI_PACKED) travels;
 *  - a receive of MPI_PACKED from a rank of another architecture puts a header naming the
 *    sender first (proto/recv.c, through the typemap upcall), so MPI_Unpack converts.
 * Only the user's messages (even context ids, core/comm.h): the library's own MPI_PACKED
 * data (collectives, one-sided replies) move as they are.
 */
#ifndef METAMPI_CORE_P2P_PACKED_H
#define METAMPI_CORE_P2P_PACKED_H

#include "datatype/engine/packed_arch.h"
#include "runtime/peer_arch.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Whether a message of datatype type on context ctx is the user's MPI_PACKED data. */
static inline int p2p_user_packed(MPI_Datatype type, uint32_t ctx)
{
    return type == MPI_PACKED && (ctx & 1) == 0;
}

/* The bytes of a contiguous MPI_PACKED send buffer that travel: without a header naming this
 * rank's architecture. */
static inline void p2p_packed_unheader(void **buf, size_t *bytes)
{
    arch_desc_t writer;
    if (packed_arch_read(*buf, *bytes, &writer) && arch_same(&writer, arch_local())) {
        *buf = (char *)*buf + PACKED_ARCH_HEADER;
        *bytes -= PACKED_ARCH_HEADER;
    }
}

/* A send's bytes (buf, bytes) as they travel: a contiguous (layout NULL) user MPI_PACKED
 * buffer loses its own header in a job of several architectures. One predicted branch in a
 * job of one architecture. */
static inline void p2p_packed_bare(MPI_Datatype type, uint32_t ctx, const void *layout,
                                   void **buf, size_t *bytes)
{
    if (__builtin_expect(!peer_arch_all_same(), 0) && p2p_user_packed(type, ctx) && !layout)
        p2p_packed_unheader(buf, bytes);
}

#endif
