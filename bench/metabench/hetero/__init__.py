"""Heterogeneity (issue 19): what support for ranks of unlike architecture costs ranks of one
architecture: bench/p2p/latency.c with metampi as built and with a second build of the same
commit with -DMETAMPI_HETERO=OFF (the like-peer test a constant), interleaved in every round,
on one host and between two emulated hosts."""
