// Numeric checks of the math gradients (graph/gradients/math_grad.cc).
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"
