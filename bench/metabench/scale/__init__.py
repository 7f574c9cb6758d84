"""Scale on one host (issue 23, target 5): the wall time of `mpirun -n N` and the memory of the
whole job at N = 16 ... 256 ranks on one host, oversubscribed
(bench/startup/scale_memory.c)."""
