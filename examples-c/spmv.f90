! y = A * x from Fortran 2003 through the `spblk` module (iso_c_binding), with A in one-based
! CSR, as Fortran programs store it. The module's source comes with the package
! (${spblk_FORTRAN_MODULE} in CMake, `pkg-config --variable=fortran_module spblk`); compile it
! with your program. Host memory, so the handle is on the host backend.
program spmv_example
  use, intrinsic :: iso_c_binding
  use spblk
  implicit none
  integer, parameter :: n = 4, nnz = 9
  ! A = [1 0 2 3]
  !     [0 4 0 0]
  !     [5 0 6 7]
  !     [0 8 0 9]
  integer(c_int32_t), target :: row_ptr(n + 1) = [1, 4, 5, 8, 10]
  integer(c_int32_t), target :: col_ind(nnz) = [1, 3, 4, 2, 1, 3, 4, 2, 4]
  real(c_double), target :: val(nnz) = [1d0, 2d0, 3d0, 4d0, 5d0, 6d0, 7d0, 8d0, 9d0]
  real(c_double), target :: x(n) = [1d0, 2d0, 3d0, 4d0], y(n), expected(n)
  real(c_double), target :: alpha = 1d0, beta = 0d0
  integer(c_int8_t), allocatable, target :: buffer(:)
  type(c_ptr) :: handle, mat_a, vec_x, vec_y, buffer_ptr
  integer(c_size_t) :: buffer_size
  integer :: i, k

  call check(spblkCreateWithBackend(handle, SPBLK_BACKEND_HOST), "spblkCreateWithBackend")
  call check(spblkCreateCsr(mat_a, int(n, c_int64_t), int(n, c_int64_t), int(nnz, c_int64_t), c_loc(row_ptr), &
                            c_loc(col_ind), c_loc(val), SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ONE, &
                            SPBLK_R_64F), "spblkCreateCsr")
  call check(spblkCreateDnVec(vec_x, int(n, c_int64_t), c_loc(x), SPBLK_R_64F), "spblkCreateDnVec")
  call check(spblkCreateDnVec(vec_y, int(n, c_int64_t), c_loc(y), SPBLK_R_64F), "spblkCreateDnVec")

  buffer_size = 0
  call check(spblkSpMV_bufferSize(handle, SPBLK_OPERATION_NON_TRANSPOSE, c_loc(alpha), mat_a, vec_x, c_loc(beta), &
                                  vec_y, SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT, buffer_size), "spblkSpMV_bufferSize")
  buffer_ptr = c_null_ptr
  if (buffer_size > 0) then
    allocate(buffer(buffer_size))
    buffer_ptr = c_loc(buffer)
  end if
  call check(spblkSpMV(handle, SPBLK_OPERATION_NON_TRANSPOSE, c_loc(alpha), mat_a, vec_x, c_loc(beta), vec_y, &
                       SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT, buffer_ptr), "spblkSpMV")

  call check(spblkDestroySpMat(mat_a), "spblkDestroySpMat")
  call check(spblkDestroyDnVec(vec_x), "spblkDestroyDnVec")
  call check(spblkDestroyDnVec(vec_y), "spblkDestroyDnVec")
  call check(spblkDestroy(handle), "spblkDestroy")

  ! The same product, by hand.
  expected = 0d0
  do i = 1, n
    do k = row_ptr(i), row_ptr(i + 1) - 1
      expected(i) = expected(i) + val(k) * x(col_ind(k))
    end do
  end do
  print '(a, 4f7.1)', 'spmv (Fortran): y = A * x =', y
  if (maxval(abs(y - expected)) <= 1d-12 * maxval(abs(expected))) then
    print '(a)', 'check against a plain loop: PASSED'
  else
    print '(a, 4f7.1)', 'check against a plain loop: FAILED, expected', expected
    stop 1
  end if

contains

  subroutine check(status, what)
    integer(c_int32_t), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= SPBLK_STATUS_SUCCESS) then
      print '(4a)', what, ' failed: ', spblk_last_error()
      stop 1
    end if
  end subroutine check
end program spmv_example
