/* The library's life cycle and thread level. */
#ifndef METAMPI_STATE_H
#define METAMPI_STATE_H

#include <pthread.h>

typedef enum {
    STATE_PRE_INIT = 0,   /* before MPI_Init */
    STATE_INITIALIZING,   /* inside MPI_Init: errors are fatal, there is no handler yet */
    STATE_INITIALIZED,
    STATE_FINALIZED,
} lib_phase_t;

typedef struct lib_state {
    lib_phase_t phase;
    int thread_level;      /* provided level (MPI_THREAD_*) */
    pthread_t main_thread; /* the thread that called MPI_Init */
} lib_state_t;

extern lib_state_t state;

/* The check every MPI function starts with, state_require_initialized(), reports through
 * core/errors.h and lives there: the state is below the errors, which read it. */

#endif
