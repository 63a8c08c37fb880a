// Numeric checks of the array gradients (graph/gradients/array_grad.cc).
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"
