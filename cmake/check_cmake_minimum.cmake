# ctest: cmake_minimum_required in CMakeLists.txt (under SOURCE_DIR) is at least the CMake version
# that introduced each command or option the project's CMake files use. It was 3.18 while
# cmake/embed.cmake called file(COPY_FILE), new in 3.21: CMake 3.18-3.20 accepted the minimum and
# then failed in the middle of the configure. Versions from each command's "New in version" note
# in the CMake documentation (cmake.org/cmake/help/latest/command/*.html, manual/
# cmake-generator-expressions.7.html).
set(features
    "file\\([ \t\n]*COPY_FILE" "3.21" "file(COPY_FILE)"
    "\\$<TARGET_RUNTIME_DLLS" "3.21" "$<TARGET_RUNTIME_DLLS>"
    "cmake_path\\(" "3.20" "cmake_path()"
    "file\\([ \t\n]*REAL_PATH" "3.19" "file(REAL_PATH)"
    "file\\([ \t\n]*CHMOD" "3.19" "file(CHMOD)"
    "string\\([ \t\n]*JSON" "3.19" "string(JSON)"
    "file\\([ \t\n]*CONFIGURE" "3.18" "file(CONFIGURE)"
    "file\\([ \t\n]*ARCHIVE_(CREATE|EXTRACT)" "3.18" "file(ARCHIVE_CREATE/EXTRACT)"
    "cmake_language\\(" "3.18" "cmake_language()"
    "IN[ \t\n]+ZIP_LISTS" "3.17" "foreach(IN ZIP_LISTS)"
    "FILE_SET" "3.23" "target_sources(FILE_SET)"
    "\\$<LINK_LIBRARY:" "3.24" "$<LINK_LIBRARY>"
    "\\$<LINK_GROUP:" "3.24" "$<LINK_GROUP>"
    "\\$<PATH:" "3.24" "$<PATH>"
    "PATH_EQUAL" "3.24" "if(PATH_EQUAL)"
    "CMAKE_COMPILE_WARNING_AS_ERROR" "3.24" "CMAKE_COMPILE_WARNING_AS_ERROR"
    "(^|[^A-Za-z0-9_])block\\(" "3.25" "block()"
    "return\\([ \t\n]*PROPAGATE" "3.25" "return(PROPAGATE)")

file(READ "${SOURCE_DIR}/CMakeLists.txt" top)
if(NOT top MATCHES "cmake_minimum_required\\(VERSION ([0-9]+\\.[0-9]+)")
  message(FATAL_ERROR "${SOURCE_DIR}/CMakeLists.txt: no cmake_minimum_required(VERSION x.y)")
endif()
set(minimum "${CMAKE_MATCH_1}")
file(GLOB_RECURSE files "${SOURCE_DIR}/CMakeLists.txt" "${SOURCE_DIR}/cmake/*.cmake"
     "${SOURCE_DIR}/tests/CMakeLists.txt" "${SOURCE_DIR}/fuzz/CMakeLists.txt"
     "${SOURCE_DIR}/bench/CMakeLists.txt")
# This file's own table names every command in strings.
list(FILTER files EXCLUDE REGEX "/check_cmake_minimum\\.cmake$")
set(needed "")
list(LENGTH features n)
math(EXPR last "${n} - 1")
foreach(f IN LISTS files)
  file(READ "${f}" text)
  # Comments name commands too (this file's table, the minimum's reason): only code counts.
  string(REGEX REPLACE "#[^\n]*" "" code "${text}")
  foreach(i RANGE 0 ${last} 3)
    math(EXPR iv "${i} + 1")
    math(EXPR in "${i} + 2")
    list(GET features ${i} pattern)
    list(GET features ${iv} version)
    list(GET features ${in} name)
    if(code MATCHES "${pattern}" AND version VERSION_GREATER minimum)
      file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
      string(APPEND needed "\n  ${rel}: ${name} needs CMake ${version}")
    endif()
  endforeach()
endforeach()
if(needed)
  message(FATAL_ERROR "cmake_minimum_required(VERSION ${minimum}) is below what the build uses:"
                      "${needed}")
endif()
message(STATUS "cmake_minimum_required(VERSION ${minimum}) covers every command the build uses")
