# CMake toolchain for arm64 (aarch64) Linux: Debian's cross compiler (g++-aarch64-linux-gnu)
# and the :arm64 multiarch packages installed on the build machine. Used by tools/cross-check.sh:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=tools/aarch64-toolchain.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries come from /usr/lib/aarch64-linux-gnu (the :arm64 packages), never from the x86-64
# directory; header-only packages with CMake configs (CLI11, nlohmann_json, Catch2) are
# architecture-independent and stay under /usr.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Debian 12's libsentencepiece0 and libsentencepiece-dev are not Multi-Arch: same, so their
# arm64 versions would replace the amd64 ones the x86 build needs. tools/cross-check.sh unpacks
# them instead into MINIMT_ARM64_ROOT (a directory holding usr/), whose .pc files come first.
set(arm64_pkgconfig /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
if(MINIMT_ARM64_ROOT)
  list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MINIMT_ARM64_ROOT)
  set(arm64_pkgconfig ${MINIMT_ARM64_ROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${arm64_pkgconfig})
endif()

# pkg-config (SentencePiece, OpenBLAS) sees only the arm64 .pc files and the
# architecture-independent ones. The variables are set here because configure runs pkg-config.
set(ENV{PKG_CONFIG_LIBDIR} ${arm64_pkgconfig})
set(ENV{PKG_CONFIG_PATH} "")

# Programs built here run on x86-64 through qemu-user (ctest, try_run).
# The multiarch loader /lib/ld-linux-aarch64.so.1 (libc6:arm64) is used, not -L
# /usr/aarch64-linux-gnu, whose loader does not match libc6:arm64's libc.so.6.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
