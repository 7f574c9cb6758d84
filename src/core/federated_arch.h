/*
 * The architectures of the other parts of a federated job (issue 19, docs/heterogeneity.md).
 *
 * In a federated start (mpirun --rendezvous, docs/sites.md) each site's part has its own PMI
 * space, so MPI_Init's architecture exchange (runtime/peer_arch.h) tells a rank the
 * architectures of its own part's ranks only. Once the transports are up, the parts trade
 * what each learned, over messages on a context no communicator uses:
 *
 *   1. the leader of each site (its lowest world rank) sends its site's summary
 *      ("HEX:RANGES;...", peer_arch_format_part) to every other site's leader;
 *   2. each leader puts the summaries it received, joined by ';', into its part's key-value
 *      space ("metampi.archs.others.n" pieces of one value each), and after a barrier of the
 *      part its other ranks read them there.
 *
 * S*(S-1) small messages cross the WAN for S sites, and one PMI barrier each part; no
 * connection between ranks within a site is opened for it (a rank that ends early is then
 * reported by its launcher, not as a connection lost by its leader). Whether
 * the exchange runs is the same answer on every rank: it does when some rank's architecture
 * is unknown here, which in a federated job is true in every part and in any other job in
 * none, so a job of one part pays nothing. Every rank's architecture is known afterwards, or
 * MPI_Init fails naming the rank.
 */
#ifndef METAMPI_CORE_FEDERATED_ARCH_H
#define METAMPI_CORE_FEDERATED_ARCH_H

/* Runs the exchange when needed (after p2p_ready). 0, or -1 with err. */
int federated_arch_exchange(char *err, int errlen);

#endif
