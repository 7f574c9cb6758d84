#include <mpi.h>
#include <iostream>

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::cout << "hello from C++: rank " << rank << " of " << size << std::endl;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
