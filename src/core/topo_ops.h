/*
 * Building topologies and answering questions about them (MPI-3.1 §7). topo.h holds the
 * object; this is what the API layer does with it. Arguments are checked by the caller; these
 * functions only compute. Each topo_t array is a separate malloc block (topo_free frees them
 * one by one); the weight arrays of an unweighted distributed graph are NULL.
 *
 * Invariants of a Cartesian topology on a communicator of size n:
 *   n == dims[0] * ... * dims[ndims-1] (1 for ndims == 0), all dims[i] >= 1, periods[i] in
 *   {0, 1}, and rank r has coordinates in row-major order (the last dimension varies fastest).
 * Graph topology: nnodes == communicator size, index[] nondecreasing, index[nnodes-1] ==
 *   nedges, every edge in 0..nnodes-1 (self-loops and repeated edges allowed).
 */
#ifndef METAMPI_TOPO_OPS_H
#define METAMPI_TOPO_OPS_H

#include "core/comm.h"
#include "core/topo.h"

/* ---- MPI_Dims_create ---------------------------------------------------------------- */
/* Fills the zero entries of dims[0..ndims-1] with the most balanced factorisation of
 * nnodes / (product of the nonzero entries): smallest max - min, then smallest sum, then the
 * lexicographically largest, in nonincreasing order. Returns 0, or -1 when nnodes is not a
 * multiple of that product, or when no entry is free and the product is not nnodes.
 * Requires nnodes >= 1 and every dims[i] >= 0. */
int topo_dims_create(int nnodes, int ndims, int dims[]);

/* ---- Cartesian ---------------------------------------------------------------------- */
/* The number of grid points (product of dims), or -1 when it exceeds limit. */
long long topo_cart_size(int ndims, const int dims[], long long limit);
/* A Cartesian topology for the process of rank `rank` (periods taken as booleans). */
topo_t *topo_cart_new(int ndims, const int dims[], const int periods[], int rank);
/* Coordinates of rank (0 <= rank < size) in coords[0..ndims-1]. */
void topo_cart_coords(const topo_t *t, int rank, int coords[]);
/* The rank at coords, wrapping periodic dimensions; -1 when a coordinate of a non-periodic
 * dimension is out of range. */
int topo_cart_rank(const topo_t *t, const int coords[]);
/* The neighbours of this process at displacement disp along direction (MPI_Cart_shift):
 * MPI_PROC_NULL past the border of a non-periodic dimension. */
void topo_cart_shift(const topo_t *t, int direction, int disp, int *source, int *dest);

/* ---- graph -------------------------------------------------------------------------- */
/* A graph topology (index and edges copied). */
topo_t *topo_graph_new(int nnodes, const int index[], const int edges[]);
/* The neighbours of node rank: *first points into t->edges, *count entries. */
void topo_graph_neighbors(const topo_t *t, int rank, const int **first, int *count);

/* ---- distributed graph -------------------------------------------------------------- */
/* A distributed graph from this process's adjacency lists (arrays copied; the weight arrays
 * are ignored when !weighted). */
topo_t *topo_dist_graph_new(int indegree, const int sources[], const int *sourceweights,
                            int outdegree, const int destinations[], const int *destweights,
                            int weighted);
/* MPI_Dist_graph_create's exchange: every process contributes n sources with degrees[i]
 * edges each (destinations, weights when weighted), and learns the edges into and out of
 * itself, in the order of the contributing process's rank and then of its arguments.
 * Collective on c. MPI_SUCCESS or an error class; *out is the new topology. */
int topo_dist_graph_exchange(comm_t *c, int n, const int sources[], const int degrees[],
                             const int destinations[], const int *weights, int weighted,
                             topo_t **out);

/* ---- communicators ------------------------------------------------------------------ */
/* The communicator of a topology constructor: the first nnodes ranks of parent with their
 * ranks kept (reorder allows, but does not require, renumbering); *out is NULL on the other
 * processes. The caller attaches the topology. Collective on parent; MPI_SUCCESS or an error
 * class. */
int topo_comm_create(comm_t *parent, int nnodes, comm_t **out);

#endif
