# The store: test_store links rlyeh_store (src/store/store*.c and the
# embedded migrations; it carries sqlite3 and libpq, which the test also uses
# directly, through testdb, to look at what is really in the database).
# Included from tests/CMakeLists.txt after pkg_check_modules(CMOCKA cmocka).
add_library(rlyeh_testdb STATIC unit/testdb.c)
target_include_directories(rlyeh_testdb PUBLIC ${CMOCKA_INCLUDE_DIRS} unit)
target_link_libraries(rlyeh_testdb PUBLIC rlyeh_store ${CMOCKA_LIBRARIES})

add_executable(test_store unit/test_store.c)
target_include_directories(test_store PRIVATE ${CMOCKA_INCLUDE_DIRS})
target_link_libraries(test_store PRIVATE rlyeh_store rlyeh_testdb ${CMOCKA_LIBRARIES})
# The test checks that each embedded migration is its .sql file, byte for byte.
target_compile_definitions(test_store PRIVATE MIGRATIONS_DIR="${PROJECT_SOURCE_DIR}/migrations")
add_test(NAME store COMMAND test_store)

# The same tests against PostgreSQL, each run with a throwaway cluster of its
# own (tests/pg/with_cluster.sh; 77: PostgreSQL is not installed, a skip
# except under CI=true, where it fails).
function(rlyeh_pg_test name target)
  add_test(NAME ${name}_pg COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pg/with_cluster.sh
           $<TARGET_FILE:${target}>)
  set_tests_properties(${name}_pg PROPERTIES SKIP_RETURN_CODE 77 LABELS postgresql)
endfunction()
rlyeh_pg_test(store test_store)

# The records (ratings kept in the store) on both backends too.
target_link_libraries(test_records PRIVATE rlyeh_testdb)
rlyeh_pg_test(records test_records)

# The bot over the store, on both backends.
target_link_libraries(test_bot PRIVATE rlyeh_testdb)
rlyeh_pg_test(bot test_bot)

# Shard ownership and gateway sessions (store.h "shards"), on both backends;
# the locks themselves are PostgreSQL's.
add_executable(test_store_shards unit/test_store_shards.c)
target_include_directories(test_store_shards PRIVATE ${CMOCKA_INCLUDE_DIRS})
target_link_libraries(test_store_shards PRIVATE rlyeh_store rlyeh_testdb ${CMOCKA_LIBRARIES})
add_test(NAME store_shards COMMAND test_store_shards)
rlyeh_pg_test(store_shards test_store_shards)

# Which process owns which shards (owner.h), on both backends.
add_executable(test_owner unit/test_owner.c)
target_include_directories(test_owner PRIVATE ${CMOCKA_INCLUDE_DIRS})
target_link_libraries(test_owner PRIVATE rlyeh_store rlyeh_testdb ${CMOCKA_LIBRARIES})
add_test(NAME owner COMMAND test_owner)
rlyeh_pg_test(owner test_owner)

# The bot with shards given and taken (bot.h "Sharded bots"), on both backends.
add_executable(test_bot_shards unit/test_bot_shards.c)
target_include_directories(test_bot_shards PRIVATE ${CMOCKA_INCLUDE_DIRS})
target_link_libraries(test_bot_shards PRIVATE rlyeh_bot rlyeh_testdb ${CMOCKA_LIBRARIES})
add_test(NAME bot_shards COMMAND test_bot_shards)
rlyeh_pg_test(bot_shards test_bot_shards)

# One write per commit to the write-ahead log (src/store/walbuf.c).
add_executable(test_walbuf unit/test_walbuf.c)
target_include_directories(test_walbuf PRIVATE ${CMOCKA_INCLUDE_DIRS} ${PROJECT_SOURCE_DIR}/src/store)
target_link_libraries(test_walbuf PRIVATE rlyeh_store PkgConfig::SQLITE3 ${CMOCKA_LIBRARIES})
add_test(NAME walbuf COMMAND test_walbuf)

# Power loss at a random instant under a test VFS (SQLite's own).
add_executable(test_powerloss unit/test_powerloss.c)
target_include_directories(test_powerloss PRIVATE ${CMOCKA_INCLUDE_DIRS} ${PROJECT_SOURCE_DIR}/src/store)
target_link_libraries(test_powerloss PRIVATE rlyeh_bot rlyeh_store PkgConfig::SQLITE3
                      ${CMOCKA_LIBRARIES})
add_test(NAME powerloss COMMAND test_powerloss)
set_tests_properties(powerloss PROPERTIES TIMEOUT 300)
