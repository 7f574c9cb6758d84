# Cross build for s390x (big-endian, 64-bit) with Debian's cross toolchain (gcc-s390x-linux-gnu)
# and multiarch libraries (libssl-dev:s390x): `make build-s390x` (build dir build-s390x). The
# result is libmpi and the MPI test programs for s390x, run under qemu-s390x (qemu-user) by
# the x86-64 mpirun of the native build (docs/heterogeneity.md).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)
# multiarch: the s390x libraries and headers live beside the host's in /usr
set(CMAKE_LIBRARY_ARCHITECTURE s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(OPENSSL_ROOT_DIR /usr)
set(OPENSSL_CRYPTO_LIBRARY /usr/lib/s390x-linux-gnu/libcrypto.so)
set(OPENSSL_SSL_LIBRARY /usr/lib/s390x-linux-gnu/libssl.so)
set(OPENSSL_INCLUDE_DIR /usr/include)
# the programs run under qemu-user, which finds the s390x loader and libraries here
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x)
# pkg-config sees the s390x packages only (libpmix-dev of the host must not be linked in)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/s390x-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
