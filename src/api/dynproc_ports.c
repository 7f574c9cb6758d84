/* Ports and names (MPI-3.1 §10.4): MPI_Open_port, MPI_Close_port, MPI_Comm_accept,
 * MPI_Comm_connect, MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name, and MPI_Comm_join
 * (§10.5.4), between processes of one mpirun job. The protocol: core/dynproc_port.h, docs/dynproc.md. */
#include "api/api.h"
#include "core/dynproc_port.h"
#include "core/info.h"

#include <string.h>

static int check_info(MPI_Info info)
{
    return info == MPI_INFO_NULL || info_lookup(info) != NULL;
}

API_EXPORT int PMPI_Open_port(MPI_Info info, char *port_name)
{
    API_ENTER();
    static const char *const F = "MPI_Open_port";
    state_require_initialized(F);
    API_CHECK_PTR(port_name, MPI_COMM_WORLD, F, "port_name");
    if (!check_info(info))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, F, "invalid info handle 0x%x",
                         (unsigned)info);
    char why[256];
    int rc = dynproc_open_port(port_name, MPI_MAX_PORT_NAME, why, sizeof why);
    return rc == MPI_SUCCESS ? rc : err_raise(MPI_COMM_WORLD, rc, F, "%s", why);
}
API_WEAK_ALIAS(Open_port)

API_EXPORT int PMPI_Close_port(const char *port_name)
{
    API_ENTER();
    static const char *const F = "MPI_Close_port";
    state_require_initialized(F);
    API_CHECK_PTR(port_name, MPI_COMM_WORLD, F, "port_name");
    char why[256];
    int rc = dynproc_close_port(port_name, why, sizeof why);
    return rc == MPI_SUCCESS ? rc : err_raise(MPI_COMM_WORLD, rc, F, "%s", why);
}
API_WEAK_ALIAS(Close_port)

static int accept_or_connect(const char *F, int accepting, const char *port_name,
                             MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    if (comm_is_inter(c))
        return err_raise(comm, MPI_ERR_COMM, F, "comm is an inter-communicator");
    if (root < 0 || root >= c->size)
        return err_raise(comm, MPI_ERR_ROOT, F, "invalid root %d in a communicator of size %d",
                         root, c->size);
    /* port_name and info are significant at root only */
    if (c->rank == root && !check_info(info))
        return err_raise(comm, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    if (c->rank == root && !port_name)
        return err_raise(comm, MPI_ERR_ARG, F, "argument port_name is NULL");
    char why[256] = "";
    comm_t *out = NULL;
    int rc = accepting ? dynproc_accept(port_name, c, root, &out, why, sizeof why)
                       : dynproc_connect(port_name, c, root, &out, why, sizeof why);
    if (rc != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return err_raise(comm, rc, F, "%s", why);
    }
    *newcomm = out->handle;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                                MPI_Comm *newcomm)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_accept";
    state_require_initialized(F);
    return accept_or_connect(F, 1, port_name, info, root, comm, newcomm);
}
API_WEAK_ALIAS(Comm_accept)

API_EXPORT int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                                 MPI_Comm *newcomm)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_connect";
    state_require_initialized(F);
    return accept_or_connect(F, 0, port_name, info, root, comm, newcomm);
}
API_WEAK_ALIAS(Comm_connect)

API_EXPORT int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    API_ENTER();
    static const char *const F = "MPI_Publish_name";
    state_require_initialized(F);
    API_CHECK_PTR(service_name, MPI_COMM_WORLD, F, "service_name");
    API_CHECK_PTR(port_name, MPI_COMM_WORLD, F, "port_name");
    if (!check_info(info))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, F, "invalid info handle 0x%x",
                         (unsigned)info);
    char why[256];
    int rc = dynproc_publish(service_name, port_name, why, sizeof why);
    return rc == MPI_SUCCESS ? rc : err_raise(MPI_COMM_WORLD, rc, F, "%s", why);
}
API_WEAK_ALIAS(Publish_name)

API_EXPORT int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    API_ENTER();
    static const char *const F = "MPI_Lookup_name";
    state_require_initialized(F);
    API_CHECK_PTR(service_name, MPI_COMM_WORLD, F, "service_name");
    API_CHECK_PTR(port_name, MPI_COMM_WORLD, F, "port_name");
    if (!check_info(info))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, F, "invalid info handle 0x%x",
                         (unsigned)info);
    char why[256];
    int rc = dynproc_lookup(service_name, port_name, MPI_MAX_PORT_NAME, why, sizeof why);
    return rc == MPI_SUCCESS ? rc : err_raise(MPI_COMM_WORLD, rc, F, "%s", why);
}
API_WEAK_ALIAS(Lookup_name)

API_EXPORT int PMPI_Unpublish_name(const char *service_name, MPI_Info info,
                                   const char *port_name)
{
    API_ENTER();
    static const char *const F = "MPI_Unpublish_name";
    state_require_initialized(F);
    API_CHECK_PTR(service_name, MPI_COMM_WORLD, F, "service_name");
    (void)port_name;   /* the name alone identifies what was published */
    if (!check_info(info))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, F, "invalid info handle 0x%x",
                         (unsigned)info);
    char why[256];
    int rc = dynproc_unpublish(service_name, why, sizeof why);
    return rc == MPI_SUCCESS ? rc : err_raise(MPI_COMM_WORLD, rc, F, "%s", why);
}
API_WEAK_ALIAS(Unpublish_name)

API_EXPORT int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_join";
    state_require_initialized(F);
    API_CHECK_PTR(intercomm, MPI_COMM_SELF, F, "intercomm");
    if (fd < 0)
        return err_raise(MPI_COMM_SELF, MPI_ERR_ARG, F, "invalid socket %d", fd);
    char why[256];
    comm_t *out = NULL;
    int rc = dynproc_join(fd, &out, why, sizeof why);
    if (rc != MPI_SUCCESS) {
        *intercomm = MPI_COMM_NULL;
        return err_raise(MPI_COMM_SELF, rc, F, "%s", why);
    }
    *intercomm = out->handle;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_join)
