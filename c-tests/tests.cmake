# The C test programs and how CTest runs them; used by c-tests/CMakeLists.txt (standalone) and
# by the top-level project (which builds c-tests/ against the staged install).
set(SPBLK_C_TESTS api bad_args spmv spmm sddmm spgemm csr2csc matrices)

# spblk_register_c_tests(<name prefix> <directory of the programs> [FIXTURE <f>] [NO_GPU]
#                        [LABELS <label>...] [ENV <VAR=value>...])
# Adds <prefix>host.<test> (host backend, host memory) and, unless NO_GPU, <prefix>gpu.<test>
# (CUDA backend, cudaMalloc'd memory), which exits 77, i.e. SKIPPED, without a usable GPU.
function(spblk_register_c_tests prefix dir)
  cmake_parse_arguments(arg "NO_GPU" "FIXTURE" "LABELS;ENV" ${ARGN})
  set(devices host)
  if(NOT arg_NO_GPU)
    list(APPEND devices gpu)
  endif()
  foreach(t IN LISTS SPBLK_C_TESTS)
    foreach(device IN LISTS devices)
      set(name ${prefix}${device}.${t})
      add_test(NAME ${name} COMMAND "${dir}/test_${t}")
      if(device STREQUAL "host")
        set(env "SPBLK_BACKEND=host" "SPBLK_TEST_DEVICE=host")
      else()
        set(env "SPBLK_BACKEND=cuda" "SPBLK_TEST_DEVICE=gpu")
      endif()
      list(APPEND env ${arg_ENV})
      set_tests_properties(${name} PROPERTIES
        ENVIRONMENT "${env}"
        LABELS "c-tests;${device};${arg_LABELS}"
        SKIP_RETURN_CODE 77
        TIMEOUT 900)
      if(arg_FIXTURE)
        set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${arg_FIXTURE})
      endif()
    endforeach()
  endforeach()
endfunction()
