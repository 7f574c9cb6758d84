/*
 * The MPI calls' side of the conversion between unlike architectures, in one process: this
 * test defines peer_arch() itself (linked before the library's), so that its own rank looks
 * like a big-endian ILP32 machine. A message it sends to itself then arrives as from such a
 * sender: the receive converts it (bytes reversed, longs of 4 bytes widened), a probe's status
 * counts elements in the sender's sizes, and MPI_Pack on a mixed communicator writes the
 * header that MPI_Unpack reads. (The data really is this machine's, so "converted" values are
 * the byte-reversed ones: that is what the checks expect.)
 */
#include "runtime/peer_arch.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

static arch_desc_t be32;
static int pretend = 1;

const arch_desc_t *peer_arch(int world_rank)
{
    (void)world_rank;
    return pretend ? &be32 : arch_local();
}

/* peer_arch_all_same() reads peer_arch_ndistinct, which MPI_Init sets from the real exchange
 * (one architecture here): the test sets it after MPI_Init to what it pretends. */

int main(int argc, char **argv)
{
    be32 = *arch_local();
    be32.byte_order = ARCH_BIG;
    be32.size[ARCH_LONG] = be32.size[ARCH_POINTER] = 4;
    be32.ldbl_format = ARCH_LDBL_DOUBLE;
    be32.size[ARCH_LONG_DOUBLE] = 8;
    be32.align[ARCH_LONG] = be32.align[ARCH_POINTER] = 4; /* a descriptor arch_decode takes */
    be32.align[ARCH_LONG_DOUBLE] = 8;
    snprintf(be32.name, sizeof be32.name, "be32");
    MPI_Init(&argc, &argv);
    peer_arch_ndistinct = 2;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* ints: reversed bytes */
    int32_t out[2] = { 0x01020304, 0x0a0b0c0d }, in[2] = { 0, 0 };
    MPI_Send(out, 2, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Status st;
    int count = -1;
    MPI_Recv(in, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECTF(in[0] == 0x04030201 && in[1] == 0x0d0c0b0a && count == 2,
           "ints: %#x %#x, count %d", (unsigned)in[0], (unsigned)in[1], count);

    /* 16 bytes of "4-byte longs": a probe counts 4 of them; the receive widens each */
    long lout[2] = { 1, 2 }, lin[4] = { 0, 0, 0, 0 };
    MPI_Send(lout, 2, MPI_LONG, 0, 2, MPI_COMM_WORLD);
    MPI_Probe(0, 2, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_LONG, &count);
    int elements = -1;
    MPI_Get_elements(&st, MPI_INT, &elements);
    EXPECTF(count == 4 && elements == 4, "probe: %d longs, %d ints", count, elements);
    MPI_Recv(lin, 4, MPI_LONG, 0, 2, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_LONG, &count);
    EXPECTF(count == 4 && lin[0] == 0x01000000L && lin[1] == 0 && lin[2] == 0x02000000L,
           "longs: count %d, %#lx %#lx %#lx", count, lin[0], lin[1], lin[2]);

    /* truncation is counted in the sender's bytes */
    int tin[1];
    int rc = MPI_Recv(tin, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
    EXPECTF(rc == MPI_SUCCESS, "proc null");
    MPI_Send(out, 2, MPI_INT, 0, 4, MPI_COMM_WORLD);
    rc = MPI_Recv(tin, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &st);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECTF(cls == MPI_ERR_TRUNCATE && tin[0] == 0x04030201, "truncation: class %d", cls);

    /* MPI_Pack on a mixed communicator: the header, counted by Pack_size; a buffer whose
     * header names this machine unpacks unconverted */
    int size = 0, pos = 0;
    MPI_Pack_size(2, MPI_INT, MPI_COMM_WORLD, &size);
    char packed[128];
    MPI_Pack(out, 2, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    EXPECTF(size == 8 + 40 && pos == 48 && !memcmp(packed, "MPK\1", 4),
           "pack: size %d position %d", size, pos);
    pos = 0;
    in[0] = in[1] = 0;
    MPI_Unpack(packed, sizeof packed, &pos, in, 2, MPI_INT, MPI_COMM_WORLD);
    EXPECTF(pos == 48 && in[0] == out[0] && in[1] == out[1], "unpack of our own buffer");
    /* the same bytes as if packed on be32: converted */
    arch_encode(&be32, (uint8_t *)packed + 4);
    pos = 0;
    MPI_Unpack(packed, sizeof packed, &pos, in, 2, MPI_INT, MPI_COMM_WORLD);
    EXPECTF(pos == 48 && in[0] == 0x04030201, "unpack of a be32 buffer: %#x", (unsigned)in[0]);
    /* the invented writer's longs are 4 bytes: widened */
    long l1 = 0;
    MPI_Pack_size(1, MPI_LONG, MPI_COMM_SELF, &size);
    EXPECTF(size == 8 + 40, "Pack_size of a long on a mixed MPI_COMM_SELF: %d", size);
    memcpy(packed + 40, "\x00\x00\x01\x00", 4);
    pos = 0;
    MPI_Unpack(packed, 44, &pos, &l1, 1, MPI_LONG, MPI_COMM_SELF);
    EXPECTF(pos == 44 && l1 == 256, "a be32 long: %ld at position %d", l1, pos);

    pretend = 0; /* a job of one architecture again: no header */
    peer_arch_ndistinct = 1;
    MPI_Pack_size(2, MPI_INT, MPI_COMM_WORLD, &size);
    EXPECTF(size == 8, "Pack_size in a job of one architecture: %d", size);
    MPI_Finalize();
    return expect_done("convert_mpi");
}
