// The same cuSPARSE program compiled as C++ (cuSPARSE's C++ users pass CUDA_R_32F and the
// enums as the header types them; the header must compile under both languages).
#include "test_compat.c"
