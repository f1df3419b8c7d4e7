# The fake Discord (gateway + HTTP API on one local port) used by the integration tests.
# Expects pkg_check_modules(LWS ... IMPORTED_TARGET ...), pkg_check_modules(CJSON ...) and
# find_package(ZLIB) to have run.
# libev (libev-dev) runs the fake's event loop with epoll; see main() in fakediscord.c.
find_path(EV_INCLUDE_DIR ev.h REQUIRED)
find_library(EV_LIBRARY ev REQUIRED)
add_executable(fakediscord fake/fakediscord.c)
target_include_directories(fakediscord PRIVATE ${EV_INCLUDE_DIR})
target_link_libraries(fakediscord PRIVATE PkgConfig::LWS PkgConfig::CJSON ZLIB::ZLIB ${EV_LIBRARY})

add_test(NAME fakediscord
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fake/smoke.sh $<TARGET_FILE:fakediscord>)
set_tests_properties(fakediscord PROPERTIES TIMEOUT 60)
