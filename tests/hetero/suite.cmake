# The suite's general MPI programs (tests/mpi: point-to-point, datatypes, collectives,
# reductions) on a metacomputer of two sites, the first x86-64 and the second s390x (issue 19;
# docs/heterogeneity.md, "The general programs on two architectures"). Included by
# tests/hetero/CMakeLists.txt in both builds: the s390x build gets the target groups that
# build the programs' twins, the native build registers the runs.
#
# The two sites are virtual (METAMPI_VIRTUAL_SITES=2 with METAMPI_VIRTUAL_HOSTS=2: one host
# per site, consecutive ranks, so the second site's ranks are those with 2r >= n), on one
# machine with TCP between them and no root; the second site's ranks run the program's s390x
# twin under qemu-s390x (s390x_exec.sh --ranks). Each run is hetero.suite.NAME.np<n>; a
# program's run is skipped (exit 77) while its twin is not built.
#
# Label hetero: the short subset, in make test (its twins are built by make hetero-programs);
# labels hetero and long: the rest (make hetero-suite-programs builds their twins; make
# test-hetero runs both).

set(HETERO_SUITE_PROGRAMS "")
set(HETERO_SUITE_SHORT_PROGRAMS "")

# labels: hetero for a run of the short subset, hetero and long for the others
macro(hetero_suite_labels np)
  set(labels "hetero;long")
  if(${np} IN_LIST T_SHORT)
    set(labels hetero)
  endif()
endmacro()

# hetero_suite_test(NAME PROGRAM prog NP n... [SHORT n...] [S390X_ONLY] [GATEWAYS]
#                   [ARGS a...] [TIMEOUT s] [ENV V=x...])
# SHORT: the rank counts whose run is in the short subset (label hetero only).
# GATEWAYS: also hetero.suite.NAME.gw2/1, on emulated sites (cluster/run_on_sites.sh: two
# LANs joined by the WAN emulator, 5 ms; root) through the site gateways, 2 x86-64 ranks at
# the first site and an s390x one at the second (its exec_prefix); labels long, sites, cluster.
# S390X_ONLY: every rank s390x, on one host (hetero.suite.NAME.s390x.np<n>): for the programs
# that cannot be mixed by nature (below), which then check the library on a big-endian
# machine.
function(hetero_suite_test name)
  cmake_parse_arguments(T "S390X_ONLY;GATEWAYS" "PROGRAM;TIMEOUT" "NP;SHORT;ARGS;ENV" ${ARGN})
  if(NOT TARGET ${T_PROGRAM})
    message(FATAL_ERROR "hetero_suite_test(${name}): no program ${T_PROGRAM}")
  endif()
  set(list HETERO_SUITE_PROGRAMS)
  if(T_SHORT)
    set(list HETERO_SUITE_SHORT_PROGRAMS)
  endif()
  if(NOT T_PROGRAM IN_LIST ${list})
    set(${list} ${${list}} ${T_PROGRAM} PARENT_SCOPE)
  endif()
  if(CMAKE_CROSSCOMPILING)
    return()
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 180)
  endif()
  if(T_S390X_ONLY)
    foreach(np ${T_NP})
      hetero_suite_labels(${np})
      add_test(NAME hetero.suite.${name}.s390x.np${np}
               COMMAND ${RUN_HETERO} --twin $<TARGET_FILE:${T_PROGRAM}> sh -c
                       "exec ${METAMPI_MPIRUN} -n ${np} --exec-prefix \"$S390X_EXEC\" $<TARGET_FILE:${T_PROGRAM}> ${T_ARGS}")
      set_tests_properties(hetero.suite.${name}.s390x.np${np} PROPERTIES TIMEOUT ${T_TIMEOUT}
                           SKIP_RETURN_CODE 77 LABELS "${labels}"
                           ENVIRONMENT "EXPECT_SIZE=${np};${T_ENV}")
    endforeach()
    return()
  endif()
  if(T_GATEWAYS AND METAMPI_CLUSTER_TESTS)
    add_test(NAME hetero.suite.${name}.gw2/1
             COMMAND ${RUN_HETERO} --twin $<TARGET_FILE:${T_PROGRAM}> sh -c
                     "exec ${METAMPI_RUN_ON_SITES} --wanemu $<TARGET_FILE:wanemu> --wan-mode gateways --site-exec-prefix \"2=$S390X_EXEC\" 2/1 ${METAMPI_MPIRUN} $<TARGET_FILE:${T_PROGRAM}> ${T_ARGS}")
    set_tests_properties(hetero.suite.${name}.gw2/1 PROPERTIES TIMEOUT 240
                         SKIP_RETURN_CODE 77 LABELS "hetero;long;sites;cluster"
                         ENVIRONMENT "EXPECT_SIZE=3;${T_ENV}")
  endif()
  foreach(np ${T_NP})
    hetero_suite_labels(${np})
    # the second site: ranks r with 2r >= np (runtime/sites.c, runtime/hosts.c)
    set(s390x_ranks "")
    math(EXPR last "${np} - 1")
    foreach(r RANGE ${last})
      math(EXPR twice "2 * ${r}")
      if(NOT twice LESS np)
        list(APPEND s390x_ranks ${r})
      endif()
    endforeach()
    string(REPLACE ";" "," s390x_ranks "${s390x_ranks}")
    add_test(NAME hetero.suite.${name}.np${np}
             COMMAND ${RUN_HETERO} --twin $<TARGET_FILE:${T_PROGRAM}> sh -c
                     "exec ${METAMPI_MPIRUN} -n ${np} --exec-prefix \"$S390X_EXEC_RANKS ${s390x_ranks}\" $<TARGET_FILE:${T_PROGRAM}> ${T_ARGS}")
    set_tests_properties(hetero.suite.${name}.np${np} PROPERTIES TIMEOUT ${T_TIMEOUT}
                         SKIP_RETURN_CODE 77 LABELS "${labels}"
                         ENVIRONMENT "EXPECT_SIZE=${np};METAMPI_VIRTUAL_HOSTS=2;METAMPI_VIRTUAL_SITES=2;${T_ENV}")
  endforeach()
endfunction()

# ---- point to point (tests/mpi/p2p, tests/mpi/sendrecv.c) ---------------------------------
# (not large: 2^31-1 bytes and 2.4 GB of doubles, 4.8 GB of memory, too much under qemu)
hetero_suite_test(sendrecv PROGRAM test_sendrecv NP 2 3 SHORT 3 GATEWAYS)
foreach(t modes ssend self nonblocking waitsome probe mprobe cancel persistent bsend
          sendrecv_replace status order wildcard flood sizes errors)
  set(short "")
  if(t STREQUAL modes)
    set(short 2)
  elseif(t STREQUAL order)
    set(short 3)
  endif()
  set(gw "")
  if(t MATCHES "^(modes|nonblocking|order|wildcard|sizes)$")
    set(gw GATEWAYS)
  endif()
  hetero_suite_test(p2p.${t} PROGRAM test_p2p_${t} NP 2 3 SHORT ${short} ${gw})
endforeach()

# ---- datatypes (tests/mpi/datatype) --------------------------------------------------------
# Not mixed, by nature, so every rank s390x:
# - the datatype API's programs are local calls (nothing crosses between ranks), and those
#   that pack (constructors, pack, errors, free) pack on MPI_COMM_WORLD into buffers of the
#   data's size and check the position: on a communicator of two architectures MPI_Pack
#   writes a 40-byte header first, which MPI_Pack_size counts (heterogeneity-conversion.md,
#   "MPI_PACKED"; MPI-3.1 §4.2 leaves the packed size to the implementation);
# - the point-to-point programs with derived datatypes check that every byte the receive
#   type covers holds the sender's byte (and receive typed data as MPI_BYTE): the definition
#   of a transfer between ranks of one representation. tests/hetero/bytes.c and
#   colls_derived.c send derived types between unlike ranks instead.
foreach(t constructors predefined pack external32 errors random free)
  set(short "")
  if(t MATCHES "^(pack|external32)$")
    set(short 2)
  endif()
  hetero_suite_test(dt.${t} PROGRAM test_dt_${t} NP 2 S390X_ONLY SHORT ${short})
endforeach()
foreach(t types misc random align)
  hetero_suite_test(dt.p2p_${t} PROGRAM test_dt_p2p_${t} NP 2 3 S390X_ONLY)
endforeach()

# ---- collectives (tests/mpi/coll) ----------------------------------------------------------
# MPI_Reduce_local and the ops: local calls, every rank s390x
hetero_suite_test(coll.ops PROGRAM test_coll_ops NP 2 S390X_ONLY)
foreach(t rooted allto reduce scan neighbor)
  set(short "")
  if(t MATCHES "^(rooted|allto)$")
    set(short 3)
  endif()
  hetero_suite_test(coll.${t} PROGRAM test_coll_${t} NP 2 3 SHORT ${short} GATEWAYS)
  hetero_suite_test(coll.${t}_nb PROGRAM test_coll_${t} NP 2 3 ARGS nb)
endforeach()
hetero_suite_test(coll.inter PROGRAM test_coll_inter NP 2 3)
hetero_suite_test(coll.inter_nb PROGRAM test_coll_inter NP 2 3 ARGS nb)
foreach(t nonblocking errors streams)
  hetero_suite_test(coll.${t} PROGRAM test_coll_${t} NP 2 3)
endforeach()

# ---- reductions (tests/mpi/coll_reduce) ----------------------------------------------------
hetero_suite_test(red.quick PROGRAM test_red_red NP 2 3 ARGS quick SHORT 3 GATEWAYS)
foreach(t inter nb errors)
  hetero_suite_test(red.${t} PROGRAM test_red_${t} NP 2 3)
endforeach()

# ---- communicators, the collectives' development tests, neighbourhood collectives --------
foreach(t group basic dupfree intercomm attrs disconnect)
  hetero_suite_test(comm.${t} PROGRAM test_comm_${t} NP 2 3)
endforeach()
# idup.c expects a pending MPI_Comm_idup to refuse a send since no call made progress; a job
# of two sites runs a progress thread by default (docs/threads.md), which may complete it
# first (mpi.comm.idup.gw* takes the same chance): without the thread here
hetero_suite_test(comm.idup PROGRAM test_comm_idup NP 2 3 ENV METAMPI_ASYNC_PROGRESS=0)
# MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) is checked against processor names, which virtual
# hosts share: on emulated sites only
hetero_suite_test(comm.split PROGRAM test_comm_split GATEWAYS)
foreach(t bcast allgather alltoall gather inter nb errors)
  hetero_suite_test(coll_move.${t} PROGRAM test_coll_move_${t} NP 2 3)
endforeach()
# every algorithm forced (tests/mpi/coll_move): those that forward blocks as bytes give way
# to typed ones on a communicator of two architectures (docs/heterogeneity.md, "Collectives")
foreach(force METAMPI_COLL_BCAST=binomial METAMPI_COLL_BCAST=scatter_allgather
    METAMPI_COLL_BCAST=chain METAMPI_COLL_ALLGATHER=recursive_doubling
    METAMPI_COLL_ALLGATHER=bruck METAMPI_COLL_ALLGATHER=ring METAMPI_COLL_ALLTOALL=linear
    METAMPI_COLL_ALLTOALL=pairwise METAMPI_COLL_ALLTOALL=bruck METAMPI_COLL_GATHER=binomial
    METAMPI_COLL_GATHER=linear)
  string(REGEX REPLACE "METAMPI_COLL_([A-Z]+)=(.*)" "\\1;\\2" parts ${force})
  list(GET parts 0 coll)
  list(GET parts 1 algo)
  string(TOLOWER ${coll} prog)
  set(env ${force})
  if(coll STREQUAL BCAST)
    list(APPEND env METAMPI_COLL_BCAST_SEGMENT=1000)
  elseif(coll STREQUAL ALLGATHER)
    list(APPEND env METAMPI_COLL_ALLGATHERV=${algo})
  elseif(coll STREQUAL GATHER)
    list(APPEND env METAMPI_COLL_SCATTER=${algo})
  endif()
  hetero_suite_test(coll_move.${prog}.${algo} PROGRAM test_coll_move_${prog} NP 3 ENV ${env})
endforeach()
foreach(t cart graph dist_graph nonblocking errors)
  hetero_suite_test(coll_neighbor.${t} PROGRAM test_coll_neighbor_${t} NP 2 3)
endforeach()

# ---- one-sided communication, process topologies (tests/mpi/rma, tests/mpi/topo) ----------
foreach(t objects fence epochs passive nocheck requests pscw dynamic shared errors)
  hetero_suite_test(rma.${t} PROGRAM test_rma_${t} NP 2 3)
endforeach()
foreach(t fence passive)
  hetero_suite_test(rma.create.${t} PROGRAM test_rma_${t} NP 2 3 ARGS create)
endforeach()
hetero_suite_test(rma.eventually PROGRAM test_rma_eventually NP 2 3)
foreach(t dims cart graph dist_graph errors)
  hetero_suite_test(topo.${t} PROGRAM test_topo_${t} NP 2 3)
endforeach()

# the s390x twins: make hetero-programs builds the short subset's, make hetero-suite-programs
# all of them
add_custom_target(hetero-suite-short)
add_custom_target(hetero-suite-programs)
if(HETERO_SUITE_SHORT_PROGRAMS)
  add_dependencies(hetero-suite-short ${HETERO_SUITE_SHORT_PROGRAMS})
endif()
add_dependencies(hetero-suite-programs hetero-suite-short ${HETERO_SUITE_PROGRAMS})
