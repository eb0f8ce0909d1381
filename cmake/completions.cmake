# Shell completions (bash, zsh, fish) and the man page, generated after the build by the binary
# itself from its CLI11 definition (`llmsize completions SHELL`, `llmsize man`), so they always
# list the options it accepts; `cmake --install` puts them where shells and man look.
include(GNUInstallDirs)
if(CMAKE_CROSSCOMPILING)
  message(STATUS "llmsize: cross-compiling, shell completions and man page not generated")
  return()
endif()
set(LLMSIZE_GEN_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated/share)
set(llmsize_generated)
foreach(spec "completions;bash;llmsize.bash" "completions;zsh;_llmsize" "completions;fish;llmsize.fish" "man;;llmsize.1")
  list(GET spec 0 arg1)
  list(GET spec 1 arg2)
  list(GET spec 2 name)
  set(out ${LLMSIZE_GEN_DIR}/${name})
  set(arg2_define "")
  if(arg2)
    set(arg2_define -DARG2=${arg2})
  endif()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${LLMSIZE_GEN_DIR}
    COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:llmsize> -DARG1=${arg1} ${arg2_define} -DOUT=${out}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/run_to_file.cmake
    DEPENDS llmsize ${CMAKE_CURRENT_SOURCE_DIR}/cmake/run_to_file.cmake
    COMMENT "Generating ${name} from llmsize's command line"
    VERBATIM)
  list(APPEND llmsize_generated ${out})
endforeach()
add_custom_target(llmsize_completions ALL DEPENDS ${llmsize_generated})
install(FILES ${LLMSIZE_GEN_DIR}/llmsize.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME llmsize)
install(FILES ${LLMSIZE_GEN_DIR}/_llmsize DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${LLMSIZE_GEN_DIR}/llmsize.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES ${LLMSIZE_GEN_DIR}/llmsize.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
