/* The smallest complete MPI program: what `mpirun -n N` costs before any communication.
 * Built with each MPI's own wrapper by bench/run_benchmarks.py. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
