/* MPI_Comm_get_parent (§10.3.2) and MPI_Comm_disconnect (§10.5.4).
 *
 * A process started by MPI_Comm_spawn answers with the inter-communicator to its parents
 * (core/dynproc.h) until it frees or disconnects it; every other process with
 * MPI_COMM_NULL. */
#include "api/coll_api.h"

#include "core/bsend.h"
#include "core/dynproc.h"

API_EXPORT int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_get_parent";
    state_require_initialized(F);
    API_CHECK_PTR(parent, MPI_COMM_WORLD, F, "parent");
    comm_t *p = dynproc_parent();
    *parent = p ? p->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_get_parent)

/* MPI_Comm_free plus the waiting: the user has completed and matched all communication on
 * comm (the standard's precondition), so what may still be pending internally are the
 * copies of buffered sends on comm; they leave first, then a barrier over comm (intra or
 * inter) makes the call collective, so that no member frees its side while a peer still
 * sends on it. */
API_EXPORT int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_disconnect";
    state_require_initialized(F);
    API_CHECK_PTR(comm, MPI_COMM_WORLD, F, "comm");
    API_GET_COMM(c, *comm, F);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return err_raise(*comm, MPI_ERR_COMM, F, "%s cannot be disconnected", c->name);
    bsend_wait_comm(c);
    coll_call_t call = { .kind = COMM_OP_BARRIER, .stream = COMM_BLOCKING, .comm = c };
    int rc = coll_finish_call(*comm, &call, coll_start(&coll_barrier_family, &call), F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = attr_delete_all(ATTR_COMM, *comm, &c->attrs);
    if (rc != MPI_SUCCESS)
        return err_raise(*comm, rc, F, "an attribute delete callback failed (error %d)", rc);
    comm_free_handle(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_disconnect)
