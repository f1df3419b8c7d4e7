# HTTP API client: test_rest builds src/discord/rest*.c with the test, which
# runs its own HTTP server on 127.0.0.1 (no network beyond loopback).
# The test reads the multipart bodies' payload_json with cJSON.
# Included from tests/CMakeLists.txt after pkg_check_modules(CMOCKA cmocka),
# pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl),
# pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson) and
# find_package(Threads).
add_executable(test_rest unit/test_rest.c ${PROJECT_SOURCE_DIR}/src/discord/rest.c
               ${PROJECT_SOURCE_DIR}/src/discord/rest_limits.c
               ${PROJECT_SOURCE_DIR}/src/discord/rest_http.c
               ${PROJECT_SOURCE_DIR}/src/discord/rest_worker.c)
target_include_directories(test_rest PRIVATE ${PROJECT_SOURCE_DIR}/include ${CMOCKA_INCLUDE_DIRS})
target_link_libraries(test_rest PRIVATE ${CMOCKA_LIBRARIES} PkgConfig::CURL PkgConfig::CJSON
                      Threads::Threads)
add_test(NAME rest COMMAND test_rest)
set_tests_properties(rest PROPERTIES TIMEOUT 60)
