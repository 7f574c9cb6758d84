/*
 * Argument checks shared by the topology calls (MPI-3.1 §7). Each returns MPI_SUCCESS, or
 * raises the error on the communicator in the name of func and returns the class.
 *
 * Error classes: MPI_ERR_COMM for an inter-communicator given to a constructor; MPI_ERR_DIMS
 * for a bad number of dimensions or extent (and a grid larger than the communicator);
 * MPI_ERR_ARG for bad graph descriptions, degrees, weights, short output arrays and
 * directions; MPI_ERR_RANK for a rank outside the communicator; MPI_ERR_TOPOLOGY for a
 * communicator without the topology a query needs.
 */
#ifndef METAMPI_API_TOPO_CHECKS_H
#define METAMPI_API_TOPO_CHECKS_H

#include "core/topo_ops.h"

/* c is an intra-communicator (topologies are built on those only) */
int check_intracomm(const comm_t *c, const char *func);
/* c carries a topology of the given kind (MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH); *t is it */
int check_topo(const comm_t *c, int kind, const char *func, const topo_t **t);
/* A Cartesian grid for c (MPI_Cart_create, MPI_Cart_map): ndims >= 0, dims[i] >= 1, at most
 * c->size points; *nnodes is the number of points. */
int check_cart(const comm_t *c, int ndims, const int dims[], const int periods[],
               const char *func, int *nnodes);
/* A graph for c (MPI_Graph_create, MPI_Graph_map): 0 <= nnodes <= c->size, index
 * nondecreasing from >= 0, edges in 0..nnodes-1. */
int check_graph(const comm_t *c, int nnodes, const int index[], const int edges[],
                const char *func);
/* info is MPI_INFO_NULL or a valid info object (MPI_ERR_INFO) */
int check_info(const comm_t *c, MPI_Info info, const char *func);
/* rank in 0..c->size-1 */
int check_rank(const comm_t *c, int rank, const char *what, const char *func);

#endif
