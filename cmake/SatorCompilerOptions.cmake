# Compiler settings shared by every target of the project.

# ccache, keyed on paths relative to the checkout (CCACHE_BASEDIR) and not on
# the build directory (CCACHE_NOHASHDIR), so that two clones of the same
# commit, or the several builds of one CI run, share compiled objects.
find_program(SATOR_CCACHE ccache)
if(SATOR_CCACHE)
  set(_sator_ccache_launcher ${CMAKE_COMMAND} -E env
      CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1 ${SATOR_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_sator_ccache_launcher})
  set(CMAKE_C_COMPILER_LAUNCHER ${_sator_ccache_launcher})
endif()

# Warnings are errors for the project's own code. Generated code gets the
# same flags except where noted in proto/CMakeLists.txt.
set(SATOR_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wnull-dereference
    -Wimplicit-fallthrough -Werror)

function(sator_set_warnings target)
  target_compile_options(${target} PRIVATE ${SATOR_WARNING_FLAGS})
endfunction()

set(SATOR_SANITIZE "" CACHE STRING "Sanitizers: '', 'address;undefined' or 'thread'")
if(SATOR_SANITIZE)
  list(JOIN SATOR_SANITIZE "," _sator_sanitizers)
  add_compile_options(-fsanitize=${_sator_sanitizers} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_sator_sanitizers})
  if("undefined" IN_LIST SATOR_SANITIZE)
    # UBSan's vptr check (a call or cast through an object of the wrong
    # dynamic type) instruments every access through a polymorphic pointer:
    # in gMock- and gRPC-heavy files it was a quarter of the compile time,
    # for a class of bug the code's few downcasts do not risk. Every other
    # UBSan check stays on.
    add_compile_options(-fno-sanitize=vptr)
    add_link_options(-fno-sanitize=vptr)
  endif()
  if("thread" IN_LIST SATOR_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC warns that TSan does not model atomic_thread_fence (used inside
    # Abseil's and the standard library's headers); not our code's problem.
    add_compile_options(-Wno-tsan)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC's manual warns that sanitizers raise the rate of false
    # -Wmaybe-uninitialized reports (its instrumentation changes inlining):
    # under TSan it flags the move of a std::variant member that every path
    # initializes. The Release build keeps the warning as an error.
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()

# In a fuzzing build every target gets libFuzzer's coverage instrumentation
# (the fuzz targets themselves also link libFuzzer's main).
if(SATOR_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# Floating-point exceptions: the core never raises FE_OVERFLOW, FE_INVALID or
# FE_DIVBYZERO on valid input (its selects and branches keep such lanes out),
# and the tests trap them. GCC keeps that promise by default
# (-ftrapping-math); Clang assumes by default that floating-point operations
# never trap, and may compute both arms of a select, e.g. 2 |rate| on a lane
# the select discards. maytrap keeps Clang (the fuzz and tidy builds, or a
# user's) from speculating them.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  add_compile_options(-ffp-exception-behavior=maytrap)
endif()
