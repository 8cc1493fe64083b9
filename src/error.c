/* Status codes, the per-thread last-error text and SYMCOLL_DEBUG logging. */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "env.h"

static _Thread_local char last_error[512];

symcoll_status_t symcoll_set_error(symcoll_status_t status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    symcoll_debug(SYMCOLL_LOG_ERROR, "error %s: %s", symcoll_status_string(status), last_error);
    return status;
}

void symcoll_restore_error(const char *text) {
    snprintf(last_error, sizeof last_error, "%s", text);
}

void symcoll_clear_error(void) {
    last_error[0] = '\0';
}

const char *symcoll_last_error(void) {
    return last_error;
}

bool symcoll_cuda_error_is_no_gpu(int err) {
    return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
           err == cudaErrorInvalidDevice || err == 34 /* cudaErrorStubLibrary */;
}

symcoll_status_t symcoll_cuda_status(cudaError_t err, const char *fn, const char *what) {
    if (err == cudaSuccess)
        return SYMCOLL_SUCCESS;
    symcoll_status_t st =
        symcoll_cuda_error_is_no_gpu(err) ? SYMCOLL_ERROR_NO_GPU : SYMCOLL_ERROR_CUDA;
    return symcoll_set_error(st, "%s: %s: %s (%d)", fn, what, cudaGetErrorString(err), (int)err);
}

void symcoll_debug(int level, const char *fmt, ...) {
    if (symcoll_env()->debug < level)
        return;
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "symcoll[%d] %s\n", symcoll_g.initialized ? symcoll_g.my_pe : -1, line);
}

const char *symcoll_status_string(symcoll_status_t status) {
    static const char *const names[] = {"SYMCOLL_SUCCESS",
                                        "SYMCOLL_ERROR_INVALID_ARGUMENT",
                                        "SYMCOLL_ERROR_NOT_INITIALIZED",
                                        "SYMCOLL_ERROR_OUT_OF_MEMORY",
                                        "SYMCOLL_ERROR_SYMMETRY",
                                        "SYMCOLL_ERROR_TIMEOUT",
                                        "SYMCOLL_ERROR_CUDA",
                                        "SYMCOLL_ERROR_NCCL",
                                        "SYMCOLL_ERROR_BOOTSTRAP",
                                        "SYMCOLL_ERROR_NO_GPU",
                                        "SYMCOLL_ERROR_UNSUPPORTED",
                                        "SYMCOLL_ERROR_SYSTEM",
                                        "SYMCOLL_ERROR_INTERNAL"};
    if ((unsigned)status >= sizeof names / sizeof names[0])
        return "SYMCOLL_ERROR_UNKNOWN";
    return names[status];
}

const char *symcoll_datatype_name(symcoll_datatype_t type) {
    static const char *const names[] = {"int8",   "uint8",   "int32",    "uint32",  "int64",
                                        "uint64", "float16", "bfloat16", "float32", "float64"};
    return (unsigned)type < SYMCOLL_NUM_DATATYPES ? names[type] : "invalid";
}

size_t symcoll_datatype_size(symcoll_datatype_t type) {
    static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
    return (unsigned)type < SYMCOLL_NUM_DATATYPES ? sizes[type] : 0;
}

symcoll_status_t symcoll_get_version(int *version) {
    if (!version)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "symcoll_get_version: version is NULL");
    *version = SYMCOLL_VERSION;
    return SYMCOLL_SUCCESS;
}

int symcoll_datatype_is_float(symcoll_datatype_t type) {
    return type == SYMCOLL_FLOAT16 || type == SYMCOLL_BFLOAT16 || type == SYMCOLL_FLOAT32 ||
           type == SYMCOLL_FLOAT64;
}

const char *symcoll_op_name(symcoll_op_t op) {
    static const char *const names[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
    return (unsigned)op < SYMCOLL_NUM_OPS ? names[op] : "invalid";
}
