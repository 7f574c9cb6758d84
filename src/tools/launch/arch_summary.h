/*
 * The job's architectures in one key-value pair, so that no rank needs a get per peer at
 * startup (docs/heterogeneity.md). Each rank publishes "metampi.machine.<rank>" =
 * "BOOTID/ARCHHEX" (runtime/hosts.c, runtime/peer_arch.h); once every rank of the job has,
 * the PMI server adds "metampi.archs" = "ARCHHEX:RANGES;ARCHHEX:RANGES..." (RANGES: "0-3,8",
 * the ranks of that architecture) before it releases a barrier. A job whose summary would not
 * fit one value gets none: its ranks read every rank's key instead, as under another process
 * manager.
 */
#ifndef LAUNCH_ARCH_SUMMARY_H
#define LAUNCH_ARCH_SUMMARY_H

#include "kvs.h"

#define ARCH_SUMMARY_KEY "metampi.archs"

/* Adds the summary of ranks 0..size-1 to k once all have published (idempotent). */
void arch_summary_publish(kvs_t *k, int size);

#endif
