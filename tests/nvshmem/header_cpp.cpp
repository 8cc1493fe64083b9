/* The NVSHMEM headers compile as C++ without nvcc (host API): the C unit, built as C++. */
#include "header_c.c"
