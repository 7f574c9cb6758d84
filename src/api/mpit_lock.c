/* The tools interface's lock, its count of initialisations and its string copy, shared by the
 * mpit files (api/mpit.h). */
#include "api/mpit.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t mpit_lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized; /* MPI_T_init_thread calls not yet matched by MPI_T_finalize */

int mpit_enter(void)
{
    pthread_mutex_lock(&mpit_lock);
    if (initialized > 0)
        return MPI_SUCCESS;
    pthread_mutex_unlock(&mpit_lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

int mpit_leave(int rc)
{
    pthread_mutex_unlock(&mpit_lock);
    return rc;
}

void mpit_lock_always(void)
{
    pthread_mutex_lock(&mpit_lock);
}

int mpit_count_add(int delta)
{
    return initialized += delta;
}

void mpit_copy_string(const char *src, char *dst, int *len)
{
    if (!len)
        return;
    int n = (int)strlen(src);
    if (!dst || *len <= 0) {
        *len = n + 1;
        return;
    }
    if (n > *len - 1)
        n = *len - 1;
    memcpy(dst, src, (size_t)n);
    dst[n] = '\0';
    *len = n + 1;
}
