# Compiles migrations/NNNN_name.sql into the binary.
#
# Included from a CMakeLists.txt, this file defines
#
#   rlyeh_embed_migrations(<out_var> [<dir> [<prefix>]])
#
# which arranges for ${CMAKE_CURRENT_BINARY_DIR}/migrations_gen.c to be
# generated at build time from every <dir>/NNNN_*.sql (default:
# ${PROJECT_SOURCE_DIR}/migrations) and sets <out_var> to its path, to be added
# to a target's sources. The file defines, in the order of the NNNN prefixes:
#
#   const char *const store_migrations[]      = { "<sql of 0001>", ..., NULL };
#   const char *const store_migration_names[] = { "0001_tables", ..., NULL };
#
# With a <prefix> (such as store_pg) the arrays are <prefix>_migrations and
# <prefix>_migration_names, in <prefix>_migrations_gen.c.
#
# Migration N is element N - 1, so the prefixes must run 0001, 0002, ...
# without gaps or repeats; anything else stops the build. Editing a .sql file
# regenerates the source; adding or removing one re-runs the configure step
# (the glob is CONFIGURE_DEPENDS).
#
# Run as a script (cmake -DMIGRATIONS_DIR=<dir> -DOUTPUT=<file> -P
# embed_migrations.cmake) it writes the file; the function runs it that way.

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.22)
endif()

# Sets <out_var> to the sorted list of <dir>/NNNN_*.sql, and stops with an
# error unless their prefixes are exactly 0001 .. count.
function(rlyeh_migration_files out_var dir)
  if(CMAKE_SCRIPT_MODE_FILE)
    file(GLOB files "${dir}/*.sql")
  else()
    file(GLOB files CONFIGURE_DEPENDS "${dir}/*.sql")
  endif()
  list(SORT files)
  set(expected 1)
  foreach(file IN LISTS files)
    get_filename_component(name "${file}" NAME)
    if(NOT name MATCHES "^([0-9][0-9][0-9][0-9])_[A-Za-z0-9_]+\\.sql$")
      message(FATAL_ERROR "migration ${file}: the name must be NNNN_name.sql "
                          "(four digits, then letters, digits or underscores)")
    endif()
    math(EXPR number "1${CMAKE_MATCH_1} - 10000")
    if(NOT number EQUAL expected)
      message(FATAL_ERROR "migration ${file}: expected number ${expected}; "
                          "migrations are numbered 0001, 0002, ... without gaps or repeats")
    endif()
    math(EXPR expected "${expected} + 1")
  endforeach()
  if(expected EQUAL 1)
    message(FATAL_ERROR "no migrations (NNNN_name.sql) in ${dir}")
  endif()
  set(${out_var} "${files}" PARENT_SCOPE)
endfunction()

# Sets <out_var> to C string literals, one per line, spelling the bytes of
# <file> exactly. Backslashes, quotes, question marks (trigraphs are on in ISO
# C11), tabs and lone CRs are escaped. file(READ) drops the CR of a CRLF, so a file
# holding CRs is spelled in hex escapes instead; a NUL byte is refused (the
# SQL would end there).
function(rlyeh_c_literal out_var file)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" size)
  math(EXPR size "${size} / 2")
  string(REGEX REPLACE "(..)" "\\\\x\\1" escaped "${hex}")
  string(FIND "${escaped}" "\\x00" nul)
  if(NOT nul EQUAL -1)
    message(FATAL_ERROR "migration ${file}: contains a NUL byte")
  endif()
  file(READ "${file}" text)
  string(LENGTH "${text}" length)
  if(length EQUAL size)
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "\"" "\\\"" text "${text}")
    string(REPLACE "?" "\\?" text "${text}")
    string(REPLACE "\t" "\\t" text "${text}")
    string(REPLACE "\r" "\\r" text "${text}")
    string(REPLACE "\n" "\\n\"\n\t\"" text "${text}")
  else()
    string(REPLACE "\\x0a" "\\x0a\"\n\t\"" text "${escaped}")
  endif()
  set(${out_var} "\"${text}\"" PARENT_SCOPE)
endfunction()

function(rlyeh_embed_migrations out_var)
  if(ARGC GREATER 1)
    set(dir "${ARGV1}")
  else()
    set(dir "${PROJECT_SOURCE_DIR}/migrations")
  endif()
  if(ARGC GREATER 2)
    set(prefix "${ARGV2}")
    set(output "${CMAKE_CURRENT_BINARY_DIR}/${prefix}_migrations_gen.c")
  else()
    set(prefix "store")
    set(output "${CMAKE_CURRENT_BINARY_DIR}/migrations_gen.c")
  endif()
  rlyeh_migration_files(files "${dir}")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" "-DMIGRATIONS_DIR=${dir}" "-DOUTPUT=${output}" "-DPREFIX=${prefix}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
    DEPENDS ${files} "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
    COMMENT "Embedding the SQL migrations"
    VERBATIM)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT DEFINED MIGRATIONS_DIR OR NOT DEFINED OUTPUT)
    message(FATAL_ERROR "usage: cmake -DMIGRATIONS_DIR=<dir> -DOUTPUT=<file.c> -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  if(NOT DEFINED PREFIX)
    set(PREFIX "store")
  endif()
  rlyeh_migration_files(files "${MIGRATIONS_DIR}")
  set(sql "")
  set(names "")
  foreach(file IN LISTS files)
    get_filename_component(name "${file}" NAME_WE)
    rlyeh_c_literal(literal "${file}")
    string(APPEND sql "\t/* ${name}.sql */\n\t${literal},\n")
    string(APPEND names "\t\"${name}\",\n")
  endforeach()
  file(WRITE "${OUTPUT}.tmp"
       "/* Generated from migrations/NNNN_*.sql by embed_migrations.cmake: do not edit. */\n"
       "#include <stddef.h>\n\n"
       "extern const char *const ${PREFIX}_migrations[];\n"
       "extern const char *const ${PREFIX}_migration_names[];\n\n"
       "const char *const ${PREFIX}_migrations[] = {\n${sql}\tNULL,\n};\n\n"
       "const char *const ${PREFIX}_migration_names[] = {\n${names}\tNULL,\n};\n")
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
endif()
