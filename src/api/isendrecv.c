/* MPI-4.0's nonblocking send-receive (§3.10.1-3.10.2): MPI_Isendrecv and
 * MPI_Isendrecv_replace, the same arguments and checks as their blocking forms (pt2pt.c); the
 * request is core/isendrecv.h's. */
#include "api/api.h"

#include "api/checks.h"
#include "core/isendrecv.h"

#include <stdint.h>
#include <stdlib.h>

static int start(comm_t *c, MPI_Comm comm, const p2p_data_t *sd, int dest, int sendtag,
                 const p2p_data_t *rd, int source, int recvtag, void *copy,
                 MPI_Request *request, const char *func)
{
    request_t *r = isendrecv_start(c, sd, dest, sendtag, rd, source, recvtag, copy, func);
    if (!r) {
        free(copy);
        return err_raise(comm, MPI_ERR_NO_MEM, func, "out of memory for a request");
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              int dest, int sendtag, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                              MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Isendrecv";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(request, comm, F, "request");
    p2p_data_t sd, rd;
    int rc = check_data(comm, sendbuf, sendcount, sendtype, &sd, F);
    if (rc == MPI_SUCCESS)
        rc = check_dest_tag(c, dest, sendtag, F);
    if (rc == MPI_SUCCESS)
        rc = check_data(comm, recvbuf, recvcount, recvtype, &rd, F);
    if (rc == MPI_SUCCESS)
        rc = check_source_tag(c, source, recvtag, F);
    if (rc != MPI_SUCCESS)
        return rc;
    return start(c, comm, &sd, dest, sendtag, &rd, source, recvtag, NULL, request, F);
}
API_WEAK_ALIAS(Isendrecv)

API_EXPORT int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag, MPI_Comm comm,
                                      MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Isendrecv_replace";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(request, comm, F, "request");
    p2p_data_t d, sd;
    void *copy;
    int rc = check_replace(comm, c, buf, count, datatype, dest, sendtag, source, recvtag, &d, &sd,
                           &copy, F);
    if (rc != MPI_SUCCESS)
        return rc;
    return start(c, comm, &sd, dest, sendtag, &d, source, recvtag, copy, request, F);
}
API_WEAK_ALIAS(Isendrecv_replace)
