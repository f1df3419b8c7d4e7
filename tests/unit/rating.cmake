# Weng-Lin Plackett-Luce rating: a self-contained module (libc and libm only).
# Included from tests/CMakeLists.txt after pkg_check_modules(CMOCKA cmocka).
add_executable(test_rating unit/test_rating.c ${PROJECT_SOURCE_DIR}/src/bot/rating.c)
target_include_directories(test_rating PRIVATE ${PROJECT_SOURCE_DIR}/include ${CMOCKA_INCLUDE_DIRS})
target_link_libraries(test_rating PRIVATE ${CMOCKA_LIBRARIES} m)
add_test(NAME rating COMMAND test_rating)
