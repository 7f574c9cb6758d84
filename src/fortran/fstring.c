/* CHARACTER arguments between Fortran (fixed length, blank-padded, the length a hidden
 * argument) and C (NUL-terminated). */
#include "fortran/fortran.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fstring_in(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, f, len);
        c[len] = '\0';
    }
    return c;
}

void fstring_out(const char *c, char *f, size_t len)
{
    size_t n = strnlen(c, len);
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

int fstring_clamp(int valuelen, size_t len)
{
    size_t max = len < FSTRING_OUT_MAX - 1 ? len : FSTRING_OUT_MAX - 1;
    return valuelen < 0 || (size_t)valuelen <= max ? valuelen : (int)max;
}

int fstring_no_memory(const char *func)
{
    fprintf(stderr, "metampi: %s: out of memory converting a CHARACTER argument\n", func);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}
