// RUN: kernel-opt %s -convert-tile-to-llvm=target=sm_75 -verify-diagnostics

// expected-error @+1 {{unknown target 'sm_75'; supported targets: sm_80, sm_90a, sm_100a}}
module {
}
