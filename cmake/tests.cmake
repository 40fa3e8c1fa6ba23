# CTest suite of the top-level project. Everything runs against the *installed* package: a
# fixture installs into build/stage, then outside projects (c-tests/, examples-c/,
# cmake/install-test/) are configured with find_package(spblk) and built, as a user would.
#
# Labels: c-tests, host, gpu (skipped without a GPU), sanitizer, examples, consumer, compat.

set(SPBLK_STAGE "${CMAKE_BINARY_DIR}/stage")
set(_src "${CMAKE_CURRENT_SOURCE_DIR}")

include(CheckLanguage)
check_language(CXX)
check_language(Fortran)
find_program(SPBLK_PKG_CONFIG NAMES pkg-config pkgconf)
find_program(SPBLK_SH sh REQUIRED)

# Install into the stage (a clean one, so no file of an older build can hide a missing rule).
add_test(NAME stage.install
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DPREFIX=${SPBLK_STAGE} -DCONFIG=$<CONFIG>
          -P "${_src}/cmake/stage-install.cmake")
set_tests_properties(stage.install PROPERTIES FIXTURES_SETUP stage LABELS "c-tests;examples;consumer;sanitizer")

# spblk_consumer_build(<name> <source dir> [options...]): the test <name>.build configures and
# builds an outside project against the stage; tests that run its programs require fixture <name>.
function(spblk_consumer_build name source)
  set(compilers "-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}")
  if(CMAKE_CXX_COMPILER)
    list(APPEND compilers "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}")
  endif()
  if(CMAKE_Fortran_COMPILER)
    list(APPEND compilers "-DCMAKE_Fortran_COMPILER=${CMAKE_Fortran_COMPILER}")
  endif()
  add_test(NAME ${name}.build
    COMMAND ${CMAKE_CTEST_COMMAND} --build-and-test "${source}" "${CMAKE_BINARY_DIR}/${name}"
            --build-generator "${CMAKE_GENERATOR}" --build-noclean
            --build-options "-DCMAKE_PREFIX_PATH=${SPBLK_STAGE}" "-DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}"
                            ${compilers} ${ARGN})
  set_tests_properties(${name}.build PROPERTIES
    FIXTURES_REQUIRED stage FIXTURES_SETUP ${name} ENVIRONMENT "MAKEFLAGS=-j2")
endfunction()

# ---- C tests against a CPU reference: host backend, GPU (when there is one), ASan+UBSan -------
include("${_src}/c-tests/tests.cmake")

spblk_consumer_build(c-tests "${_src}/c-tests" "-DSPBLK_MATRIX_DIR=${SPBLK_MATRIX_DIR}")
spblk_register_c_tests(c. "${CMAKE_BINARY_DIR}/c-tests" FIXTURE c-tests)

if(SPBLK_SANITIZER_TESTS)
  spblk_consumer_build(c-tests-asan "${_src}/c-tests" "-DSPBLK_MATRIX_DIR=${SPBLK_MATRIX_DIR}"
                       -DSPBLK_SANITIZE=ON)
  spblk_register_c_tests(asan. "${CMAKE_BINARY_DIR}/c-tests-asan" FIXTURE c-tests-asan NO_GPU
    LABELS sanitizer
    ENV "ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_string_checks=1:detect_stack_use_after_return=1"
        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  # The sanitizer run proves nothing unless the runtimes are really linked in.
  add_test(NAME asan.linked COMMAND ${SPBLK_SH} -c
    "nm \"$1\" | grep -q __asan_init && nm \"$1\" | grep -q __ubsan_handle && echo 'ASan and UBSan are linked'"
    sh "${CMAKE_BINARY_DIR}/c-tests-asan/test_spmm")
  set_tests_properties(asan.linked PROPERTIES FIXTURES_REQUIRED c-tests-asan LABELS "sanitizer")
endif()

# Every function of spblk.h must be called by the bad-argument test, and the Fortran module
# (generated from spblk.h) must be up to date.
add_test(NAME header.coverage
  COMMAND ${CMAKE_COMMAND} "-DHEADER=${_src}/include/spblk.h" "-DFILES=${_src}/c-tests/test_bad_args.c"
          -P "${_src}/cmake/check-header-coverage.cmake")
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME header.fortran-module COMMAND Python3::Interpreter "${_src}/scripts/gen-fortran-module.py" --check)
else()
  add_test(NAME header.fortran-module COMMAND ${SPBLK_SH} -c "echo 'SKIPPED: no python3'; exit 77")
endif()
set_tests_properties(header.coverage header.fortran-module PROPERTIES LABELS "c-tests" SKIP_RETURN_CODE 77)

# ---- the cuSPARSE compatibility library (issue 13): generated files current, the library's
# exports, and a cuSPARSE program (C and C++, CMake and pkg-config) on the host backend ------
if(Python3_Interpreter_FOUND)
  add_test(NAME compat.generated COMMAND Python3::Interpreter "${_src}/scripts/gen-cusparse-compat.py" --check)
else()
  add_test(NAME compat.generated COMMAND ${SPBLK_SH} -c "echo 'SKIPPED: no python3'; exit 77")
endif()
set_tests_properties(compat.generated PROPERTIES LABELS "compat" SKIP_RETURN_CODE 77)
add_test(NAME compat.library
  COMMAND ${SPBLK_SH} "${_src}/compat/cusparse/check-library.sh"
          "${SPBLK_STAGE}/${CMAKE_INSTALL_LIBDIR}/spblk/cusparse/libcusparse.so.12"
          "${_src}/docs/cusparse/libcusparse.so.12-exports.txt")
set_tests_properties(compat.library PROPERTIES FIXTURES_REQUIRED stage LABELS "compat")
spblk_consumer_build(compat "${_src}/compat/cusparse/tests")
set_tests_properties(compat.build PROPERTIES LABELS "compat")
foreach(lang c cxx)
  add_test(NAME compat.program.${lang} COMMAND "${CMAKE_BINARY_DIR}/compat/test_compat_${lang}")
  set_tests_properties(compat.program.${lang} PROPERTIES
    FIXTURES_REQUIRED compat LABELS "compat" ENVIRONMENT "SPBLK_BACKEND=host")
endforeach()
add_test(NAME compat.pkg-config
  COMMAND ${SPBLK_SH} "${_src}/compat/cusparse/tests/pkg-config.sh" "${SPBLK_STAGE}"
          "${CMAKE_BINARY_DIR}/compat.pkg-config" "${CMAKE_C_COMPILER}" "${SPBLK_PKG_CONFIG}")
set_tests_properties(compat.pkg-config PROPERTIES FIXTURES_REQUIRED stage LABELS "compat" SKIP_RETURN_CODE 77)

# ---- examples (host backend; cg.auto picks the GPU when there is one, as scripts/demo.sh) ----
spblk_consumer_build(examples "${_src}/examples-c")
set(_ex "${CMAKE_BINARY_DIR}/examples")
set(_examples "spmm" "cg" "spgemm" "pcg" "bicgstab")
foreach(ex IN LISTS _examples)
  add_test(NAME examples.${ex} COMMAND "${_ex}/${ex}")
endforeach()
add_test(NAME examples.cg.auto COMMAND "${_ex}/cg")
# The preconditioned solvers (issue 14): IC0-CG on 3-D Poisson, ILU0-BiCGStab on two real
# non-symmetric matrices (skipped when the matrix directory lacks them), and both on the GPU
# when there is one. Each checks its residual and that the preconditioner cut the iterations.
add_test(NAME examples.pcg.3d COMMAND "${_ex}/pcg" 3d 24)
add_test(NAME examples.pcg.auto COMMAND "${_ex}/pcg" 3d 32)
add_test(NAME examples.bicgstab.auto COMMAND "${_ex}/bicgstab")
set(_solver_examples examples.pcg examples.pcg.3d examples.pcg.auto examples.bicgstab examples.bicgstab.auto)
foreach(m watt_2 cryg2500)
  if(EXISTS "${SPBLK_MATRIX_DIR}/${m}.mtx")
    add_test(NAME examples.bicgstab.${m} COMMAND "${_ex}/bicgstab" "${SPBLK_MATRIX_DIR}/${m}.mtx")
  else()
    add_test(NAME examples.bicgstab.${m} COMMAND ${SPBLK_SH} -c
      "echo 'SKIPPED: ${SPBLK_MATRIX_DIR}/${m}.mtx is missing (set SPBLK_MATRIX_DIR)'; exit 77")
  endif()
  list(APPEND _solver_examples examples.bicgstab.${m})
endforeach()
set_tests_properties(examples.pcg examples.pcg.3d examples.bicgstab examples.bicgstab.watt_2 examples.bicgstab.cryg2500
  PROPERTIES ENVIRONMENT "SPBLK_BACKEND=host")
set_tests_properties(${_solver_examples} PROPERTIES FIXTURES_REQUIRED examples LABELS examples SKIP_RETURN_CODE 77)
if(CMAKE_Fortran_COMPILER)
  add_test(NAME examples.spmv_fortran COMMAND "${_ex}/spmv_fortran")
else()
  message(WARNING "No Fortran compiler found: the Fortran example (examples-c/spmv.f90) will be SKIPPED")
  add_test(NAME examples.spmv_fortran COMMAND ${SPBLK_SH} -c
    "echo 'SKIPPED: no Fortran compiler was found when configuring (install gfortran)'; exit 77")
endif()
if(NOT CMAKE_CXX_COMPILER)
  message(FATAL_ERROR "A C++ compiler is needed for examples-c/spgemm.cpp (or configure with -DBUILD_TESTING=OFF)")
endif()
set_tests_properties(examples.spmm examples.cg examples.spgemm examples.spmv_fortran PROPERTIES
  ENVIRONMENT "SPBLK_BACKEND=host")
set_tests_properties(examples.spmm examples.cg examples.cg.auto examples.spgemm examples.spmv_fortran
  PROPERTIES FIXTURES_REQUIRED examples LABELS examples SKIP_RETURN_CODE 77)

# ---- the distributed CG (issue 15): mpiexec with 1-3 ranks on the host backend (auto: the GPU
# when there is one), each run checked against one rank's product and solve (--check) ---------
find_package(MPI COMPONENTS C)
if(NOT MPI_C_FOUND)
  message(WARNING "No MPI found: the distributed example's tests will be SKIPPED (install libopenmpi-dev openmpi-bin)")
endif()
# OpenMPI refuses root and more ranks than cores unless told (other MPIs ignore these).
set(_mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" "OMPI_MCA_rmaps_base_oversubscribe=1")
function(spblk_distributed_test name backend ranks)
  set(test examples.distributed.${name})
  if(NOT MPI_C_FOUND)
    add_test(NAME ${test} COMMAND ${SPBLK_SH} -c
      "echo 'SKIPPED: no MPI was found when configuring (install libopenmpi-dev openmpi-bin)'; exit 77")
  else()
    add_test(NAME ${test} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS}
                                  "${_ex}/distributed_cg" ${MPIEXEC_POSTFLAGS} --check ${ARGN})
  endif()
  set(env ${_mpi_env})
  if(backend STREQUAL "host")
    list(APPEND env "SPBLK_BACKEND=host")
  endif()
  set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED examples LABELS examples SKIP_RETURN_CODE 77
                                          ENVIRONMENT "${env}")
endfunction()
spblk_distributed_test(poisson.np1 host 1 --poisson 12)
spblk_distributed_test(poisson.np2 host 2 --poisson 16)
spblk_distributed_test(poisson.np3-uneven host 3 --uneven --poisson 14,15,16)
spblk_distributed_test(powerlaw.np3-uneven host 3 --uneven --powerlaw 20000 --precond none)
spblk_distributed_test(ic0.np2 host 2 --precond ic0)
spblk_distributed_test(auto.np2 auto 2 --poisson 32)
if(EXISTS "${SPBLK_MATRIX_DIR}/1138_bus.mtx")
  spblk_distributed_test(1138_bus.np3 host 3 --mtx "${SPBLK_MATRIX_DIR}/1138_bus.mtx")
else()
  add_test(NAME examples.distributed.1138_bus.np3 COMMAND ${SPBLK_SH} -c
    "echo 'SKIPPED: ${SPBLK_MATRIX_DIR}/1138_bus.mtx is missing (set SPBLK_MATRIX_DIR)'; exit 77")
  set_tests_properties(examples.distributed.1138_bus.np3 PROPERTIES LABELS examples SKIP_RETURN_CODE 77)
endif()

# ---- consumers: find_package (shared and static) and pkg-config (shared and static) ----------
spblk_consumer_build(consumer.cmake "${_src}/cmake/install-test")
foreach(kind shared static)
  add_test(NAME consumer.cmake.${kind} COMMAND "${CMAKE_BINARY_DIR}/consumer.cmake/consumer_${kind}" ${kind})
  set_tests_properties(consumer.cmake.${kind} PROPERTIES
    FIXTURES_REQUIRED consumer.cmake LABELS consumer ENVIRONMENT "SPBLK_BACKEND=host")
endforeach()
add_test(NAME consumer.pkg-config
  COMMAND ${SPBLK_SH} "${_src}/cmake/install-test/pkg-config.sh" "${SPBLK_STAGE}"
          "${CMAKE_BINARY_DIR}/consumer.pkg-config" "${CMAKE_C_COMPILER}" "${SPBLK_PKG_CONFIG}")
set_tests_properties(consumer.pkg-config PROPERTIES
  FIXTURES_REQUIRED stage LABELS consumer SKIP_RETURN_CODE 77 ENVIRONMENT "SPBLK_BACKEND=host")
set_tests_properties(c-tests.build PROPERTIES LABELS "c-tests")
set_tests_properties(examples.build PROPERTIES LABELS "examples")
set_tests_properties(consumer.cmake.build PROPERTIES LABELS "consumer")
if(SPBLK_SANITIZER_TESTS)
  set_tests_properties(c-tests-asan.build PROPERTIES LABELS "sanitizer")
endif()
