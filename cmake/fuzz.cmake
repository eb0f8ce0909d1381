# LLMSIZE_FUZZ: libFuzzer targets (fuzz/) with AddressSanitizer and UndefinedBehaviorSanitizer.
# Every target of the build gets the sanitizers, so the libraries the fuzzers link are
# instrumented and the unit tests run under them too. Needs clang and its runtime
# (Debian: clang libclang-rt-14-dev, the "fuzz" group of scripts/install-deps.sh):
#   cmake -S . -B build-fuzz -DLLMSIZE_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "LLMSIZE_FUZZ needs clang (libFuzzer): configure a fresh build directory with "
                      "-DCMAKE_CXX_COMPILER=clang++ (apt-get install clang libclang-rt-14-dev)")
endif()
set(LLMSIZE_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_compile_options(${LLMSIZE_SANITIZERS} -fsanitize=fuzzer-no-link -g)
add_link_options(${LLMSIZE_SANITIZERS})
