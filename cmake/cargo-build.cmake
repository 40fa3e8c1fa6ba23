# Builds libspblk with cargo and stages it for installation. Run by the `spblk_cargo` target:
#   cmake -DCARGO=... -DSOURCE_DIR=... -DTARGET_DIR=... -DPROFILE=release|debug -DCUDA=ON|OFF
#         -DNVCC=... -DOUT_DIR=... -DVERSION=x.y.z -DSOVERSION=x -DNATIVE_STATIC_LIBS="-l..." -P cargo-build.cmake
#
# One `cargo rustc` call compiles the crate once for all its crate types: the cdylib gets its
# SONAME from a link argument (build.rs is left alone), and rustc prints the native libraries
# the staticlib needs, which must equal the list the CMake package and spblk.pc declare.
cmake_minimum_required(VERSION 3.20)

set(args rustc --lib --manifest-path "${SOURCE_DIR}/Cargo.toml" --target-dir "${TARGET_DIR}")
if(PROFILE STREQUAL "release")
  list(APPEND args --release)
endif()
if(NOT CUDA)
  list(APPEND args --no-default-features)
endif()
list(APPEND args -- -C "link-arg=-Wl,-soname,libspblk.so.${SOVERSION}" --print native-static-libs)

set(env "")
if(NVCC)
  set(env "NVCC=${NVCC}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env ${env} "${CARGO}" ${args}
  WORKING_DIRECTORY "${SOURCE_DIR}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cargo failed (exit ${rc})")
endif()

string(REGEX MATCH "native-static-libs: ([^\n]*)" _ "${out}${err}")
string(STRIP "${CMAKE_MATCH_1}" printed)
if(NOT printed STREQUAL NATIVE_STATIC_LIBS)
  message(FATAL_ERROR "rustc says the static library needs '${printed}', but CMakeLists.txt declares "
                      "SPBLK_NATIVE_STATIC_LIBS '${NATIVE_STATIC_LIBS}': update it (it goes into "
                      "spblkConfig.cmake and spblk.pc)")
endif()

# libspblk.so.X.Y.Z (the file), libspblk.so.X (SONAME link), libspblk.so (link-time name).
set(built "${TARGET_DIR}/${PROFILE}")
file(MAKE_DIRECTORY "${OUT_DIR}")
foreach(pair "libspblk.so;libspblk.so.${VERSION}" "libspblk.a;libspblk.a")
  list(GET pair 0 from)
  list(GET pair 1 to)
  execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${built}/${from}" "${OUT_DIR}/${to}"
                  COMMAND_ERROR_IS_FATAL ANY)
endforeach()
file(CREATE_LINK "libspblk.so.${VERSION}" "${OUT_DIR}/libspblk.so.${SOVERSION}" SYMBOLIC)
file(CREATE_LINK "libspblk.so.${SOVERSION}" "${OUT_DIR}/libspblk.so" SYMBOLIC)
