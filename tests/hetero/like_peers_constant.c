/* Compiled (-fsyntax-only) by without_hetero.sh with METAMPI_HETERO_OFF: in a build without
 * heterogeneity support the like-peer test is an integer constant expression, so the
 * conversion branches of the paths between like peers compile away. */
#include "runtime/peer_arch.h"

_Static_assert(peer_arch_all_same(), "peer_arch_all_same() is not the constant 1 "
               "with -DMETAMPI_HETERO=OFF");
