// bf16 conversions for GPU tests' host-side data and references.
#ifndef TILEC_TEST_SUPPORT_BF16_H_
#define TILEC_TEST_SUPPORT_BF16_H_

#include <cstdint>
#include <cstring>

namespace tilec {

// Round to nearest even.
inline uint16_t ToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

inline double FromBf16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace tilec

#endif // TILEC_TEST_SUPPORT_BF16_H_
