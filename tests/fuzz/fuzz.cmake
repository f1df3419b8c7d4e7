# libFuzzer harnesses for every parser of outside input: tests/fuzz/fuzz_<name>.c,
# seeds in corpus/<name>/, saved crash inputs in regressions/<name>/, a
# dictionary in <name>.dict where there is one.
#
# Built only when the C compiler is clang or RLYEH_FUZZ is ON (RLYEH_FUZZ
# needs clang). With RLYEH_FUZZ the top-level CMakeLists compiles everything
# with -fsanitize=fuzzer-no-link,address,undefined, and each test (label
# "fuzz") runs the saved crash inputs, then fuzzes for RLYEH_FUZZ_SECONDS
# over a copy of the seeds in /tmp. In a plain clang build the libraries are
# not instrumented for coverage, so the tests only run the crash inputs and
# the seeds once. tests/fuzz/run.sh makes the RLYEH_FUZZ build (build-fuzz).
if(NOT (CMAKE_C_COMPILER_ID STREQUAL "Clang" OR RLYEH_FUZZ))
  return()
endif()
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "RLYEH_FUZZ needs clang (libFuzzer): configure with -DCMAKE_C_COMPILER=clang")
endif()

set(RLYEH_FUZZ_SECONDS 20 CACHE STRING "Seconds each fuzzer runs in its test (RLYEH_FUZZ builds)")
set(RLYEH_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
if(RLYEH_FUZZ)
  set(rlyeh_fuzz_seconds ${RLYEH_FUZZ_SECONDS})
else()
  set(rlyeh_fuzz_seconds 0)
endif()

add_custom_target(fuzzers)

# rlyeh_fuzzer(NAME LIBRARY...): the harness fuzz_NAME linked with the
# libraries, and its test.
function(rlyeh_fuzzer name)
  add_executable(fuzz_${name} ${RLYEH_FUZZ_DIR}/fuzz_${name}.c)
  target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,address,undefined
                         -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_${name} PRIVATE ${ARGN})
  add_dependencies(fuzzers fuzz_${name})
  add_test(NAME fuzz_${name}
           COMMAND sh ${RLYEH_FUZZ_DIR}/fuzz_test.sh $<TARGET_FILE:fuzz_${name}> ${RLYEH_FUZZ_DIR}
                   ${name} ${rlyeh_fuzz_seconds})
  math(EXPR limit "${rlyeh_fuzz_seconds} + 120")
  set_tests_properties(fuzz_${name} PROPERTIES LABELS fuzz TIMEOUT ${limit})
endfunction()

rlyeh_fuzzer(gateway rlyeh_app)
rlyeh_fuzzer(zlib rlyeh_app)
rlyeh_fuzzer(interaction rlyeh_app)
rlyeh_fuzzer(cmd rlyeh_bot)
rlyeh_fuzzer(console rlyeh_app)
rlyeh_fuzzer(replay rlyeh_app)
rlyeh_fuzzer(config rlyeh_app)
rlyeh_fuzzer(ctgame rlyeh_core)
