/* Compiled as C: the C API header must stay valid C. */
#include "runtime/tilec_c_api.h"

int tilec_c_header_check_arg_size(void) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_I64;
  arg.v.i64 = 0;
  return (int)sizeof(arg);
}
