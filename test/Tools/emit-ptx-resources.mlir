// REQUIRES: ptxas
// RUN: emit-ptx %S/emit-ptx-stages.mlir --resource-usage -o /dev/null 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'neg' for 'sm_90a'
// CHECK: Used {{[0-9]+}} registers
