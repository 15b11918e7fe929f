// The order torch.topk(largest=True) ranks floats in, for top-k references.
#ifndef TILEC_TEST_SUPPORT_TOPK_ORDER_H_
#define TILEC_TEST_SUPPORT_TOPK_ORDER_H_

#include <cmath>

namespace tilec {

// Whether `a` ranks before `b`: NaN above everything, then descending.
inline bool Before(float a, float b) {
  if (std::isnan(b))
    return false;
  if (std::isnan(a))
    return true;
  return a > b;
}

} // namespace tilec

#endif // TILEC_TEST_SUPPORT_TOPK_ORDER_H_
