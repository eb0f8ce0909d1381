# cmake -DBIN=... -DARG1=... [-DARG2=...] -DOUT=... -P run_to_file.cmake
# Runs BIN with its arguments and writes its standard output to OUT; fails the build if it fails.
set(args ${ARG1})
if(DEFINED ARG2)
  list(APPEND args ${ARG2})
endif()
execute_process(COMMAND ${BIN} ${args} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} ${args} failed (${rc}): ${err}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
