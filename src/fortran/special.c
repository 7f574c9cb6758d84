/* The Fortran bindings of the calls whose Fortran form is not the C one by the mechanical
 * rules of gen_wrappers.py (mpi_h.py's HANDWRITTEN lists them with the reason). Each has the
 * mpi_x_ and pmpi_x_ entries and their aliases, like the generated ones. */
#include "fortran/fortran.h"

#include <limits.h>
#include <stdlib.h>

/* ---- no argc/argv in Fortran ---------------------------------------------------------- */
static void init(int profiled, MPI_Fint *ierror)
{
    F_RETURN(ierror, P(profiled, MPI_Init)(NULL, NULL));
}
F_ENTRIES(init, INIT, (MPI_Fint *ierror), init, ierror)

static void init_thread(int profiled, MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    F_RETURN(ierror, P(profiled, MPI_Init_thread)(NULL, NULL, *required, provided));
}
F_ENTRIES(init_thread, INIT_THREAD, (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror),
          init_thread, required, provided, ierror)

static void info_create_env(int profiled, MPI_Fint *info, MPI_Fint *ierror)
{
    F_RETURN(ierror, P(profiled, MPI_Info_create_env)(0, NULL, info));
}
F_ENTRIES(info_create_env, INFO_CREATE_ENV, (MPI_Fint *info, MPI_Fint *ierror),
          info_create_env, info, ierror)

/* MPI-4.0 §10: BUFLEN in is how many characters VALUE may receive (0: VALUE untouched);
 * out, the value's length (no terminator in Fortran). VALUE gets at most min(BUFLEN,
 * LEN(VALUE)) characters, blank-padded to LEN(VALUE); with the key absent, VALUE and BUFLEN
 * are unchanged. A negative BUFLEN reaches the C call, which rejects it. */
static void info_get_string(int profiled, MPI_Fint *info, const char *key, MPI_Fint *buflen,
                            char *value, MPI_Fint *flag, MPI_Fint *ierror, size_t key_len,
                            size_t value_len)
{
    size_t room = *buflen > 0 ? (size_t)*buflen : 0;
    if (room > value_len)
        room = value_len;
    if (room > INT_MAX - 1)
        room = INT_MAX - 1;
    char *c_key = fstring_in(key, key_len);
    char *c_value = malloc(room + 1);
    if (!c_key || !c_value) {
        free(c_key);
        free(c_value);
        F_RETURN(ierror, fstring_no_memory("MPI_Info_get_string"));
        return;
    }
    int c_buflen = *buflen > 0 ? (int)room + 1 : *buflen;
    int rc = P(profiled, MPI_Info_get_string)(*info, c_key, &c_buflen,
                                              c_buflen > 0 ? c_value : NULL, flag);
    *flag = *flag != 0;
    if (rc == MPI_SUCCESS && *flag) {
        if (*buflen > 0)
            fstring_out(c_value, value, value_len);
        *buflen = c_buflen - 1;
    }
    free(c_key);
    free(c_value);
    F_RETURN(ierror, rc);
}
F_ENTRIES(info_get_string, INFO_GET_STRING,
          (MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
           MPI_Fint *ierror, size_t key_len, size_t value_len),
          info_get_string, info, key, buflen, value, flag, ierror, key_len, value_len)

/* MPI_PCONTROL(LEVEL): no IERROR in Fortran (MPI-3.1 §14.2.4) */
static void pcontrol(int profiled, MPI_Fint *level)
{
    P(profiled, MPI_Pcontrol)(*level);
}
F_ENTRIES(pcontrol, PCONTROL, (MPI_Fint *level), pcontrol, level)

/* The detached buffer's address means nothing to a Fortran program: only the size returns. */
static void buffer_detach(int profiled, void *buffer_addr, MPI_Fint *size, MPI_Fint *ierror)
{
    void *address;
    (void)buffer_addr;
    F_RETURN(ierror, P(profiled, MPI_Buffer_detach)(&address, size));
}
F_ENTRIES(buffer_detach, BUFFER_DETACH, (void *buffer_addr, MPI_Fint *size, MPI_Fint *ierror),
          buffer_detach, buffer_addr, size, ierror)

/* ---- attribute values: integers in Fortran, pointers in C (MPI-3.1 §17.2.7) -------------
 * The predefined attributes are pointers to their values in C; Fortran gets the values. A
 * value a C program stored under its own keyval reaches Fortran as the pointer's bits. */
static MPI_Aint attribute_as_integer(int keyval, void *value)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_LASTUSEDCODE: case MPI_APPNUM: case METAMPI_SITE:
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return *(int *)value;
    case MPI_WIN_SIZE:
        return *(MPI_Aint *)value;
    default: /* MPI_WIN_BASE (the base address itself) and the program's own keyvals */
        return (MPI_Aint)value;
    }
}

#define GET_ATTR(name, Name, ObjectC)                                                          \
    static void name(int profiled, MPI_Fint *object, MPI_Fint *keyval, MPI_Aint *value,      \
                     MPI_Fint *flag, MPI_Fint *ierror)                                         \
    {                                                                                          \
        void *c_value = NULL;                                                                  \
        int rc = P(profiled, Name)((ObjectC)*object, *keyval, &c_value, flag);                 \
        *flag = *flag != 0;                                                                    \
        if (rc == MPI_SUCCESS && *flag)                                                        \
            *value = attribute_as_integer(*keyval, c_value);                                   \
        F_RETURN(ierror, rc);                                                                  \
    }
GET_ATTR(comm_get_attr, MPI_Comm_get_attr, MPI_Comm)
GET_ATTR(type_get_attr, MPI_Type_get_attr, MPI_Datatype)
GET_ATTR(win_get_attr, MPI_Win_get_attr, MPI_Win)

#define GET_ATTR_PARAMS                                                                        \
    (MPI_Fint *object, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierror)
F_ENTRIES(comm_get_attr, COMM_GET_ATTR, GET_ATTR_PARAMS, comm_get_attr, object, keyval, value,
          flag, ierror)
F_ENTRIES(type_get_attr, TYPE_GET_ATTR, GET_ATTR_PARAMS, type_get_attr, object, keyval, value,
          flag, ierror)
F_ENTRIES(win_get_attr, WIN_GET_ATTR, GET_ATTR_PARAMS, win_get_attr, object, keyval, value,
          flag, ierror)

/* MPI-1's MPI_ATTR_GET: the value is a default INTEGER in Fortran. */
static void attr_get(int profiled, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                     MPI_Fint *flag, MPI_Fint *ierror)
{
    void *c_value = NULL;
    int rc = P(profiled, MPI_Attr_get)(*comm, *keyval, &c_value, flag);
    *flag = *flag != 0;
    if (rc == MPI_SUCCESS && *flag)
        *value = (MPI_Fint)attribute_as_integer(*keyval, c_value);
    F_RETURN(ierror, rc);
}
F_ENTRIES(attr_get, ATTR_GET,
          (MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag, MPI_Fint *ierror),
          attr_get, comm, keyval, value, flag, ierror)
