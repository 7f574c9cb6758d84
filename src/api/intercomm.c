/* Inter-communicator constructors (MPI-3.1 §6.6.2). Objects: core/comm_create.c. */
#include "api/api.h"
#include "core/match.h"

static int failed(MPI_Comm comm, int rc, const char *F)
{
    if (rc == MPI_ERR_NOT_SAME)
        return err_raise(comm, rc, F, "the members called collective operations in different "
                                      "orders: %s", match_last_clash());
    return err_raise(comm, rc, F, "%s",
                     rc == MPI_ERR_NO_MEM ? "out of memory for the new communicator"
                     : rc == MPI_ERR_OTHER ? "no context id is free at every member"
                     : rc == MPI_ERR_INTERN ? "the members did not agree on a context id (do "
                                              "they all call this constructor with matching "
                                              "arguments, in the same order?)"
                                            : "internal communication failed");
}

API_EXPORT int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                     int remote_leader, int tag, MPI_Comm *newintercomm)
{
    API_ENTER();
    static const char *const F = "MPI_Intercomm_create";
    state_require_initialized(F);
    API_GET_COMM(l, local_comm, F);
    API_CHECK_PTR(newintercomm, local_comm, F, "newintercomm");
    if (comm_is_inter(l))
        return err_raise(local_comm, MPI_ERR_COMM, F, "local_comm is an inter-communicator");
    if (local_leader < 0 || local_leader >= l->size)
        return err_raise(local_comm, MPI_ERR_RANK, F,
                         "invalid local_leader %d in a communicator of size %d", local_leader,
                         l->size);
    if (tag < 0)
        return err_raise(local_comm, MPI_ERR_TAG, F, "invalid tag %d (tags are 0..MPI_TAG_UB)",
                         tag);
    comm_t *p = NULL;
    /* peer_comm and remote_leader are significant at the local leader only */
    if (l->rank == local_leader) {
        p = comm_lookup(peer_comm);
        if (!p)
            return err_raise(local_comm, MPI_ERR_COMM, F,
                             peer_comm == MPI_COMM_NULL ? "peer_comm is MPI_COMM_NULL"
                                                        : "invalid peer_comm handle 0x%x",
                             (unsigned)peer_comm);
        if (remote_leader < 0 || remote_leader >= comm_peer_size(p))
            return err_raise(local_comm, MPI_ERR_RANK, F,
                             "invalid remote_leader %d in peer_comm of size %d", remote_leader,
                             comm_peer_size(p));
        if (!comm_is_inter(p) && remote_leader == p->rank)
            return err_raise(local_comm, MPI_ERR_RANK, F,
                             "remote_leader %d is the local leader itself: the groups overlap",
                             remote_leader);
    }
    comm_t *n;
    int rc = comm_intercomm_create(l, local_leader, p, remote_leader, tag, &n);
    if (rc != MPI_SUCCESS)
        return failed(local_comm, rc, F);
    *newintercomm = n->handle;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Intercomm_create)

API_EXPORT int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    API_ENTER();
    static const char *const F = "MPI_Intercomm_merge";
    state_require_initialized(F);
    API_GET_COMM(c, intercomm, F);
    API_CHECK_PTR(newintracomm, intercomm, F, "newintracomm");
    if (!comm_is_inter(c))
        return err_raise(intercomm, MPI_ERR_COMM, F, "intercomm is not an inter-communicator");
    comm_t *n;
    int rc = comm_intercomm_merge(c, high, &n);
    if (rc != MPI_SUCCESS)
        return failed(intercomm, rc, F);
    *newintracomm = n->handle;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Intercomm_merge)
