/* Environment management (MPI-3.1 chapter 8): init, finalize, abort, clocks, versions. */
#include "api/api.h"
#include "api/type_common.h"
#include "rma/win.h"

#include "core/attr.h"
#include "core/dynproc.h"
#include "core/federated_arch.h"
#include "core/lock.h"
#include "core/schedule.h"
#include "core/p2p.h"
#include "core/progress.h"
#include "core/request.h"
#include "datatype/dtype.h"
#include "runtime/job.h"
#include "runtime/tunables.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Every level is provided; MULTIPLE turns the core lock on (core/lock.h), the lower levels
 * run without it. A build without thread support (METAMPI_THREADS=OFF) has no lock and
 * provides SERIALIZED at most (MPI-3.1 12.4.3: provided may be lower than required). */
#ifdef METAMPI_THREADS_OFF
#define THREAD_LEVEL_MAX MPI_THREAD_SERIALIZED
#else
#define THREAD_LEVEL_MAX MPI_THREAD_MULTIPLE
#endif

/* A bad value that an accessor meets (runtime/tunables.h) ends the job as a bad argument
 * does; after the check in init() none is left to meet. */
static void tunable_error(const char *message)
{
    err_fatal(MPI_ERR_ARG, "metampi", "%s", message);
}

/* METAMPI_ASYNC_PROGRESS's choices, in tunables.def's order. */
enum { ASYNC_AUTO, ASYNC_OFF, ASYNC_ON };

/* Whether the job's ranks are at several sites (METAMPI_ASYNC_PROGRESS=auto runs the progress
 * thread there: a message across the WAN takes milliseconds that a computing rank would
 * otherwise add to its peers' waits; docs/threads.md). Never in a build without threads. */
static int spans_sites(void)
{
#ifdef METAMPI_THREADS_OFF
    return 0;
#else
    for (int r = 0; r < job.size; r++)
        if (p2p_site_of(r) != p2p_site_of(job.rank))
            return 1;
    return 0;
#endif
}

static int init(int required, const char *func)
{
    if (state.phase == STATE_INITIALIZED || state.phase == STATE_INITIALIZING)
        err_fatal(MPI_ERR_OTHER, func, "MPI is already initialized");
    if (state.phase == STATE_FINALIZED)
        err_fatal(MPI_ERR_OTHER, func, "MPI cannot be initialized again after MPI_Finalize");
    state.phase = STATE_INITIALIZING;
    state.main_thread = pthread_self();
    state.thread_level = required < THREAD_LEVEL_MAX ? required : THREAD_LEVEL_MAX;
    info_env_set_thread_level(required);
    if (state.thread_level < MPI_THREAD_SINGLE)
        state.thread_level = MPI_THREAD_SINGLE;

    char err[640];
    tunables_on_error(tunable_error);
    if (job_init(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot start: %s", err);
    /* every variable the library reads, now that an abort reaches the launcher: a bad one
     * ends the job here rather than in the first call that uses it */
    if (tunables_check(TUN_R_LIBRARY, err, sizeof err) != 0)
        err_fatal(MPI_ERR_ARG, func, "%s", err);
    /* Threads: the lock is on before anything exists that it protects, and init holds it
     * from here, so the progress thread it starts waits for the end of MPI_Init. */
    int async_choice = tun_enum(TUN_ASYNC_PROGRESS);
    int async = async_choice == ASYNC_ON;
#ifdef METAMPI_THREADS_OFF
    if (async)
        err_fatal(MPI_ERR_ARG, func, "METAMPI_ASYNC_PROGRESS=1: this library was built without "
                  "thread support (cmake -DMETAMPI_THREADS=OFF), so it has no progress thread");
#endif
    if ((state.thread_level == MPI_THREAD_MULTIPLE || async) && core_lock_enable() != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot create the wake-up eventfd of the threads: %s",
                  strerror(errno));
    int locked = core_lock_enter();
    /* the core's pieces that lower ones call back, wired here (the lower never names the
     * upper): the schedule engine runs in every pass of the progress engine */
    progress_set_schedules(&icoll_running, icoll_progress);
    comm_init_predefined(job.rank, job.size);
    if (dtype_init(attr_delete_type) != 0)
        err_fatal(MPI_ERR_NO_MEM, func, "out of memory for the predefined datatypes");
    /* Transport bootstrap: every endpoint exists before anyone attaches, and everyone has
     * attached before names that a crash would leak are dropped (transport.h). */
    if (p2p_open(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot open the transports: %s", err);
    if (job_barrier(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "start-up barrier failed: %s", err);
    if (p2p_connect(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot connect the transports: %s", err);
    if (job.size > 1 && job_barrier(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "start-up barrier failed: %s", err);
    if (p2p_ready(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot start the transports: %s", err);
    /* auto: the layout is known now. Turning the lock on this late is safe: no other thread
     * exists yet, and nothing made so far depends on whether it was on when it was made. */
    if (async_choice == ASYNC_AUTO && spans_sites()) {
        if (!core_lock_on && core_lock_enable() != 0)
            err_fatal(MPI_ERR_OTHER, func, "cannot create the wake-up eventfd of the threads: "
                      "%s", strerror(errno));
        if (!locked)
            locked = core_lock_enter();
        async = 1;
    }
    /* a federated part learns the other parts' architectures (its PMI space holds its own) */
    if (federated_arch_exchange(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot learn the architectures of the other sites: %s",
                  err);
    if (dynproc_init(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot reach the parents (MPI_Comm_spawn): %s", err);

    /* Output of ranks goes through the launcher's pipes: line buffering keeps lines whole and
     * makes what a rank printed before a crash visible. */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOLBF, 0);
    state.phase = STATE_INITIALIZED;
    if (async && (errno = progress_thread_start()) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot start the progress thread: %s", strerror(errno));
    core_lock_exit(locked);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Init(int *argc, char ***argv)
{
    API_ENTER();
    (void)argc;
    (void)argv;
    return init(MPI_THREAD_SINGLE, "MPI_Init");
}
API_WEAK_ALIAS(Init)

API_EXPORT int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    API_ENTER();
    (void)argc;
    (void)argv;
    if (!provided)
        err_fatal(MPI_ERR_ARG, "MPI_Init_thread", "argument provided is NULL");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        err_fatal(MPI_ERR_ARG, "MPI_Init_thread", "invalid thread level %d", required);
    int rc = init(required, "MPI_Init_thread");
    *provided = state.thread_level;
    return rc;
}
API_WEAK_ALIAS(Init_thread)

API_EXPORT int PMPI_Finalize(void)
{
    API_ENTER();
    state_require_initialized("MPI_Finalize");
    /* MPI-3.1 §8.7.1: the attributes of MPI_COMM_SELF are deleted first, while MPI is still
     * fully usable (libraries hook their clean-up on this) */
    int rc = attr_finalize();
    if (rc != MPI_SUCCESS)
        rc = err_raise(MPI_COMM_WORLD, rc, "MPI_Finalize",
                       "an attribute delete callback of MPI_COMM_SELF or MPI_COMM_WORLD failed");
    fflush(stdout);
    progress_thread_stop(); /* before anything it would touch goes */
    /* MPI_Finalize is collective: nobody closes its endpoints while others may still need
     * them (p2p_finalize drains and passes a barrier over the transports first). */
    win_finalize(); /* windows the program did not free: before the transports close */
    p2p_finalize();
    icoll_release_spares();
    dynproc_finalize();
    comm_finalize();
    type_f90_finalize();
    dtype_finalize();
    job_finalize();
    request_finalize(); /* last: the steps above may still free requests */
    state.phase = STATE_FINALIZED;
    return rc;
}
API_WEAK_ALIAS(Finalize)

API_EXPORT int PMPI_Initialized(int *flag)
{
    API_ENTER();
    if (!flag)
        err_fatal(MPI_ERR_ARG, "MPI_Initialized", "argument flag is NULL");
    *flag = state.phase == STATE_INITIALIZED || state.phase == STATE_FINALIZED;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Initialized)

API_EXPORT int PMPI_Finalized(int *flag)
{
    API_ENTER();
    if (!flag)
        err_fatal(MPI_ERR_ARG, "MPI_Finalized", "argument flag is NULL");
    *flag = state.phase == STATE_FINALIZED;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Finalized)

API_EXPORT int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    API_ENTER();
    state_require_initialized("MPI_Abort");
    /* MPI-3.1 §8.7: an implementation may abort all processes; we always abort the whole job,
     * whatever communicator was given. */
    char msg[128];
    snprintf(msg, sizeof msg, "MPI_Abort(%s, %d) called", comm_name(comm), errorcode);
    job_abort(errorcode, msg);
}
API_WEAK_ALIAS(Abort)

API_EXPORT int PMPI_Query_thread(int *provided)
{
    API_ENTER();
    state_require_initialized("MPI_Query_thread");
    API_CHECK_PTR(provided, MPI_COMM_WORLD, "MPI_Query_thread", "provided");
    *provided = state.thread_level;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Query_thread)

API_EXPORT int PMPI_Is_thread_main(int *flag)
{
    API_ENTER();
    state_require_initialized("MPI_Is_thread_main");
    API_CHECK_PTR(flag, MPI_COMM_WORLD, "MPI_Is_thread_main", "flag");
    *flag = pthread_equal(pthread_self(), state.main_thread) != 0;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Is_thread_main)

/* MPI_Wtime and MPI_Wtick may be called at any time: they need no state. */
API_EXPORT double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
API_WEAK_ALIAS(Wtime)

API_EXPORT double PMPI_Wtick(void)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    return (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;
}
API_WEAK_ALIAS(Wtick)

API_EXPORT int PMPI_Get_processor_name(char *name, int *resultlen)
{
    API_ENTER();
    state_require_initialized("MPI_Get_processor_name");
    API_CHECK_PTR(name, MPI_COMM_WORLD, "MPI_Get_processor_name", "name");
    API_CHECK_PTR(resultlen, MPI_COMM_WORLD, "MPI_Get_processor_name", "resultlen");
    size_t n = strnlen(job.hostname, MPI_MAX_PROCESSOR_NAME - 1);
    memcpy(name, job.hostname, n);
    name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Get_processor_name)

API_EXPORT int PMPI_Get_version(int *version, int *subversion)
{
    API_ENTER();
    if (!version || !subversion)
        err_fatal(MPI_ERR_ARG, "MPI_Get_version", "argument %s is NULL",
                  !version ? "version" : "subversion");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Get_version)

API_EXPORT int PMPI_Get_library_version(char *version, int *resultlen)
{
    API_ENTER();
    if (!version || !resultlen)
        err_fatal(MPI_ERR_ARG, "MPI_Get_library_version", "argument %s is NULL",
                  !version ? "version" : "resultlen");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "metampi %s (MPI %d.%d)", METAMPI_VERSION_STRING, MPI_VERSION,
                     MPI_SUBVERSION);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Get_library_version)

/* MPI-3.1 §14.2.4: the level's meaning is the profiler's; metampi itself has no profiling
 * to switch, so every level is accepted and changes nothing. */
API_EXPORT int PMPI_Pcontrol(const int level, ...)
{
    API_ENTER();
    (void)level;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Pcontrol)
