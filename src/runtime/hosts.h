/*
 * Which ranks share a host. The process manager's PMI_process_mapping (MPICH hydra and our
 * mpirun publish it) gives the block layout in one lookup; without it every rank publishes
 * its host name and reads everyone's (one extra barrier).
 *
 * PMI_process_mapping format: "(vector,(first_node,node_count,ranks_per_node),...)": each
 * triple places ranks_per_node consecutive ranks on each of node_count nodes, starting at
 * node first_node; triples follow each other in rank order.
 */
#ifndef METAMPI_HOSTS_H
#define METAMPI_HOSTS_H

/* Fills host_of[0..size) with a host index per rank. 0, or -1 with a message.
 * METAMPI_VIRTUAL_HOSTS=k (testing) splits the job into k hosts of consecutive ranks instead,
 * so that the transports between hosts run on one machine. */
int hosts_map(int *host_of, int size, char *err, int errlen);

/* Ranks that share one machine (kernel) may be on different "hosts" — containers or network
 * namespaces, each with its own launcher helper — and then compete for the same CPUs. Each
 * rank of a job of more than one publishes the kernel's boot id and its architecture
 * (peer_arch.h) in one key, "metampi.machine.<rank>" = "BOOTID/ARCHHEX"
 * (hosts_publish_machine, before a job barrier). After it, hosts_read_machines records every
 * rank's architecture (peer_arch_record) — from the one summary our launcher adds
 * ("metampi.archs", tools/launch/arch_summary.h), else from each rank's key — and counts the
 * ranks whose machine is ours (at least the ranks of our host; spans: the job has more than
 * one host, whose keys are then read for the machine even with the summary). Ranks whose key
 * does not exist (the other parts of a federated job) count as other machines of this
 * rank's architecture. -1 with a message on failure. */
int hosts_publish_machine(char *err, int errlen);
int hosts_read_machines(const int *host_of, int size, int spans, char *err, int errlen);

/* Parses a PMI_process_mapping value; 0 when it covers all size ranks, -1 otherwise. */
int hosts_parse_mapping(const char *value, int *host_of, int size);

#endif
