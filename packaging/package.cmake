# Packaging, included by the top-level CMakeLists.txt after src/:
#  - the CMake package configuration (find_package(metampi)), in lib/cmake/metampi of the build
#    tree (which mirrors the install tree) and of every install;
#  - `make package`: a Debian package (CPack's DEB generator) that installs the relocatable
#    install tree into a private prefix, /usr/lib/<triplet>/metampi (as Debian's openmpi keeps
#    /usr/lib/<triplet>/openmpi), so nothing clashes with Open MPI or MPICH: its libmpi.so.N
#    lives there, found by the programs' run path; /usr/bin gets mpicc.metampi, mpirun.metampi,
#    ...; the generic names (mpicc, mpirun, ...) are alternatives (debian/postinst.in);
#    pkg-config finds metampi.pc and CMake finds metampi-config.cmake in their system places.
#    docs/packages.md describes the layout.
include(CMakePackageConfigHelpers)

get_target_property(METAMPI_SOVERSION mpi SOVERSION)
set(METAMPI_CONFIG_SANITIZE "")
if(METAMPI_SANITIZE)
  set(METAMPI_CONFIG_SANITIZE "-fsanitize=address,undefined")
endif()
set(METAMPI_CMAKE_DIR ${PROJECT_BINARY_DIR}/lib/cmake/metampi)
configure_file(${CMAKE_CURRENT_LIST_DIR}/metampi-config.cmake.in
               ${METAMPI_CMAKE_DIR}/metampi-config.cmake @ONLY)
# Before 1.0 a minor release may change the interface: only the same minor version matches.
write_basic_package_version_file(${METAMPI_CMAKE_DIR}/metampi-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${METAMPI_CMAKE_DIR}/metampi-config.cmake
              ${METAMPI_CMAKE_DIR}/metampi-config-version.cmake
        DESTINATION lib/cmake/metampi)

# ---- the Debian package --------------------------------------------------------------------
if(CMAKE_LIBRARY_ARCHITECTURE)
  set(METAMPI_TRIPLET ${CMAKE_LIBRARY_ARCHITECTURE})
else()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-multiarch
                  OUTPUT_VARIABLE METAMPI_TRIPLET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
set(METAMPI_DEB_LIBDIR /usr/lib/${METAMPI_TRIPLET})
set(METAMPI_DEB_PREFIX ${METAMPI_DEB_LIBDIR}/metampi)
# Below Open MPI's 50 and MPICH's 40: installing metampi changes no default.
set(METAMPI_ALT_PRIORITY 20)
set(METAMPI_DEB_PROGRAMS mpicc mpicxx mpirun mpiexec)
set(METAMPI_ALT_FORTRAN "")
if(METAMPI_FORTRAN)
  list(APPEND METAMPI_DEB_PROGRAMS mpifort mpif90 mpif77)
  foreach(name mpifort mpif90 mpif77)
    string(APPEND METAMPI_ALT_FORTRAN
           " \\\n        --slave /usr/bin/${name} ${name} /usr/bin/${name}.metampi")
  endforeach()
endif()
set(METAMPI_DEB_DIR ${PROJECT_BINARY_DIR}/package)
foreach(script postinst prerm)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/${script}.in ${METAMPI_DEB_DIR}/${script}
                 @ONLY)
  file(CHMOD ${METAMPI_DEB_DIR}/${script} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
       GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/metampi.pc.in
               ${METAMPI_DEB_DIR}/extras/metampi.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/forward-config.cmake.in
               ${METAMPI_DEB_DIR}/extras/metampi-config.cmake @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/forward-config-version.cmake.in
               ${METAMPI_DEB_DIR}/extras/metampi-config-version.cmake @ONLY)

# What only the package has, outside its prefix: made during CPack's staging install
# (METAMPI_DEBIAN_LAYOUT, below), never by `make install`.
install(CODE "
if(METAMPI_DEBIAN_LAYOUT)
  set(root \"\$ENV{DESTDIR}\")
  file(MAKE_DIRECTORY \"\${root}/usr/bin\" \"\${root}${METAMPI_DEB_LIBDIR}/pkgconfig\"
       \"\${root}${METAMPI_DEB_LIBDIR}/cmake/metampi\")
  foreach(name ${METAMPI_DEB_PROGRAMS})
    file(CREATE_LINK ../lib/${METAMPI_TRIPLET}/metampi/bin/\${name}
         \"\${root}/usr/bin/\${name}.metampi\" SYMBOLIC)
  endforeach()
  file(CREATE_LINK ../lib/${METAMPI_TRIPLET}/metampi/bin/metampi-rendezvous
       \"\${root}/usr/bin/metampi-rendezvous\" SYMBOLIC)
  file(COPY \"${METAMPI_DEB_DIR}/extras/metampi.pc\"
       DESTINATION \"\${root}${METAMPI_DEB_LIBDIR}/pkgconfig\")
  file(COPY \"${METAMPI_DEB_DIR}/extras/metampi-config.cmake\"
            \"${METAMPI_DEB_DIR}/extras/metampi-config-version.cmake\"
       DESTINATION \"\${root}${METAMPI_DEB_LIBDIR}/cmake/metampi\")
endif()
")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME metampi)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "metampi developers <metampi@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "MPI for metacomputers: one job on one host, many hosts and several sites")
set(CPACK_PACKAGE_DESCRIPTION
    "metampi runs one MPI job over shared memory, TCP between hosts and gateways between sites. This package installs it under ${METAMPI_DEB_PREFIX}, beside Open MPI and MPICH: mpicc.metampi, mpirun.metampi, ... and the alternatives mpi and mpirun; pkg-config metampi; find_package(metampi).")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${METAMPI_DEB_PREFIX}/lib)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "dpkg (>= 1.17.5)")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${METAMPI_DEB_DIR}/postinst;${METAMPI_DEB_DIR}/prerm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_PACKAGING_INSTALL_PREFIX ${METAMPI_DEB_PREFIX})
set(CPACK_SET_DESTDIR ON)  # absolute paths (above) land in the staging root
set(CPACK_INSTALL_PREFIX ${METAMPI_DEB_PREFIX})
set(CPACK_CUSTOM_INSTALL_VARIABLES "METAMPI_DEBIAN_LAYOUT=1")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
include(CPack)
