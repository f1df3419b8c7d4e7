# SQLite store: test_store links rlyeh_store (src/store/store.c and the
# embedded migrations; it carries sqlite3, which the test also uses directly to
# look at what is really in the database). Included from tests/CMakeLists.txt
# after pkg_check_modules(CMOCKA cmocka).
add_executable(test_store unit/test_store.c)
target_include_directories(test_store PRIVATE ${CMOCKA_INCLUDE_DIRS})
target_link_libraries(test_store PRIVATE rlyeh_store ${CMOCKA_LIBRARIES})
# The test checks that each embedded migration is its .sql file, byte for byte.
target_compile_definitions(test_store PRIVATE MIGRATIONS_DIR="${PROJECT_SOURCE_DIR}/migrations")
add_test(NAME store COMMAND test_store)
