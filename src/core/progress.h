/*
 * The progress engine: the only place that waits. It polls every transport; when nothing
 * happens it sleeps in poll() on the transports' descriptors and the launcher connection, so
 * waiting ranks use no CPU (more ranks than cores is normal).
 */
#ifndef METAMPI_PROGRESS_H
#define METAMPI_PROGRESS_H

/* One pass over all transports. Returns the number of events. A transport failure or a lost
 * launcher ends the job with a report. */
int progress_poll(void);

/* Advances progress until *flag becomes nonzero. */
void progress_wait(volatile int *flag);

#endif
