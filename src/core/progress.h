/*
 * The progress engine: the only place that waits.
 *
 * Waiting polls the transports; after a bounded spin it sleeps in poll() on the transports'
 * descriptors and the launcher connection, until a peer wakes it (transport.h, "Sleeping").
 * With no more ranks on the host than CPUs, the spin is long (METAMPI_SPIN_US, default
 * 2000 µs) because a busy peer answers within microseconds; on an oversubscribed host it is
 * short and yields the CPU on every idle poll (default 50 µs), because the peer we wait for
 * may need our CPU to run at all.
 */
#ifndef METAMPI_PROGRESS_H
#define METAMPI_PROGRESS_H

/* Chooses the spin policy: local_ranks ranks share a host with ncpus CPUs. */
void progress_configure(int local_ranks, int ncpus);
/* The CPUs this host's ranks share: the machine's when the launcher bound each rank to CPUs
 * of its own (METAMPI_BIND other than "none": it placed them, and said so), else the CPUs
 * this process may run on (its affinity: taskset, cgroup cpusets), which unbound ranks
 * started alike share. */
int progress_usable_cpus(void);

/* The schedule engine (core/schedule.h) sits above point-to-point, which it uses, and
 * needs every pass of the progress engine: MPI_Init registers it here. While *running is
 * nonzero, each pass calls advance() (returns its events). */
void progress_set_schedules(const int *running, int (*advance)(void));

/* One pass over all transports and queued frames. Returns the number of events. A transport
 * failure or a lost launcher ends the job with a report. */
int progress_poll(void);

/* Pollers: core modules whose requests complete by watching other requests (MPI_Isendrecv)
 * register one while they have work; progress_poll calls each on every pass and counts what
 * it returns as events. add returns 0, or -1 when all PROGRESS_MAX_POLLERS slots are taken. */
#define PROGRESS_MAX_POLLERS 4
int progress_add_poller(int (*fn)(void));
void progress_remove_poller(int (*fn)(void));

/* Advances progress until done(arg) is true (checked after every pass). */
void progress_wait_until(int (*done)(void *arg), void *arg);

/* Advances progress until *flag becomes nonzero. */
void progress_wait(volatile int *flag);

/* The same for a wait that is known to end only after a message from another site has
 * arrived (milliseconds away: a collective whose result crosses the WAN). It spins at most
 * METAMPI_WAN_SPIN_US (default 50 µs: long enough for the phases within the site when the
 * site's members come together, far shorter than the 2 ms of a host with a CPU per rank), so
 * the CPU the gateway and the site's other ranks need to move that message is not burnt by
 * ranks that could not use it; the doorbell wakes the rank when its message comes. */
void progress_wait_far(volatile int *flag);

/* The progress thread (METAMPI_ASYNC_PROGRESS, core/progress_threads.c): started by MPI_Init
 * once the transports run, with the core lock on (core/lock.h); stopped by MPI_Finalize
 * before the transports close (the caller holds the lock). start returns 0 or an errno. */
int progress_thread_start(void);
void progress_thread_stop(void);

#endif
