// Numeric checks of the nn gradients (graph/gradients/nn_grad.cc).
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"
