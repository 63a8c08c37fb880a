#include "tests/gradients/gradient_checker.h"

#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "runtime/session.h"

namespace dflow {
namespace {

absl::Status CheckDtype(DataType dtype, const std::string& what) {
  if (dtype == DT_FLOAT || dtype == DT_DOUBLE) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("CheckGradients: ", what, " is ", DataTypeName(dtype),
                   "; only float and double are checked"));
}

double Get(const Tensor& t, int64_t i) {
  return t.dtype() == DT_FLOAT ? t.flat<float>()[i] : t.flat<double>()[i];
}

void Set(Tensor* t, int64_t i, double v) {
  if (t->dtype() == DT_FLOAT) {
    t->flat<float>()[i] = static_cast<float>(v);
  } else {
    t->flat<double>()[i] = v;
  }
}

Tensor Zeros(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) Set(&t, i, 0);
  return t;
}

Tensor Copy(const Tensor& t) {
  Tensor c(t.dtype(), t.shape());
  for (int64_t i = 0; i < t.NumElements(); ++i) Set(&c, i, Get(t, i));
  return c;
}

}  // namespace

absl::StatusOr<GradientCheckResult> CheckGradients(
    const Scope& scope, const std::vector<Output>& xs,
    const std::vector<Tensor>& x_values, const std::vector<Output>& ys,
    const GradientCheckOptions& options) {
  if (xs.size() != x_values.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CheckGradients: ", xs.size(), " xs but ", x_values.size(), " values"));
  }
  for (size_t j = 0; j < xs.size(); ++j) {
    if (!xs[j].valid() || xs[j].node()->op() != "Placeholder") {
      return absl::InvalidArgumentError(absl::StrCat(
          "CheckGradients: xs[", j, "] must be a Placeholder output"));
    }
    if (absl::Status s = CheckDtype(x_values[j].dtype(),
                                    absl::StrCat("the value of xs[", j, "]"));
        !s.ok()) {
      return s;
    }
  }
  for (size_t i = 0; i < ys.size(); ++i) {
    if (!ys[i].valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("CheckGradients: ys[", i, "] is invalid"));
    }
    if (absl::Status s = CheckDtype(ys[i].dtype(), absl::StrCat("ys[", i, "]"));
        !s.ok()) {
      return s;
    }
  }

  // The symbolic side: grad_ys are placeholders fed one-hot rows.
  Scope check = scope.NewSubScope("gradient_check");
  std::vector<Output> dys;
  for (size_t i = 0; i < ys.size(); ++i) {
    dys.push_back(ops::Placeholder(check, ys[i].dtype()));
  }
  GradientOptions grad_options;
  grad_options.colocate_gradients_with_ops =
      options.colocate_gradients_with_ops;
  absl::StatusOr<std::vector<Output>> grads =
      AddSymbolicGradients(scope, ys, xs, dys, grad_options);
  if (!grads.ok()) return grads.status();
  GraphDef def;
  if (absl::Status s = scope.ToGraphDef(&def); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  if (!session.ok()) return session.status();

  FeedList x_feeds;
  for (size_t j = 0; j < xs.size(); ++j) {
    x_feeds.emplace_back(xs[j].name(), x_values[j]);
  }
  std::vector<std::string> y_names;
  for (const Output& y : ys) y_names.push_back(y.name());
  std::vector<Tensor> y_values;
  if (absl::Status s = (*session)->Run(x_feeds, y_names, {}, &y_values);
      !s.ok()) {
    return s;
  }
  std::vector<std::string> grad_names;
  for (const Output& g : *grads) grad_names.push_back(g.name());

  // symbolic[i][k][j][m] flattened as rows (i, k) by columns (j, m).
  std::vector<int64_t> x_offsets, y_offsets;
  int64_t cols = 0, rows = 0;
  for (const Tensor& x : x_values) {
    x_offsets.push_back(cols);
    cols += x.NumElements();
  }
  for (const Tensor& y : y_values) {
    y_offsets.push_back(rows);
    rows += y.NumElements();
  }
  std::vector<double> symbolic(rows * cols, 0), numeric(rows * cols, 0);
  for (size_t i = 0; i < ys.size(); ++i) {
    for (int64_t k = 0; k < y_values[i].NumElements(); ++k) {
      FeedList feeds = x_feeds;
      for (size_t i2 = 0; i2 < ys.size(); ++i2) {
        Tensor dy = Zeros(y_values[i2].dtype(), y_values[i2].shape());
        if (i2 == i) Set(&dy, k, 1.0);
        feeds.emplace_back(dys[i2].name(), dy);
      }
      std::vector<Tensor> g;
      if (absl::Status s = (*session)->Run(feeds, grad_names, {}, &g);
          !s.ok()) {
        return s;
      }
      for (size_t j = 0; j < xs.size(); ++j) {
        if (g[j].shape() != x_values[j].shape()) {
          return absl::InternalError(absl::StrCat(
              "CheckGradients: the gradient for xs[", j, "] has shape ",
              g[j].shape().ToString(), " but x has shape ",
              x_values[j].shape().ToString()));
        }
        for (int64_t m = 0; m < g[j].NumElements(); ++m) {
          symbolic[(y_offsets[i] + k) * cols + x_offsets[j] + m] = Get(g[j], m);
        }
      }
    }
  }

  for (size_t j = 0; j < xs.size(); ++j) {
    const double delta = options.delta > 0 ? options.delta
                         : x_values[j].dtype() == DT_FLOAT ? 1e-3
                                                           : 1e-6;
    for (int64_t m = 0; m < x_values[j].NumElements(); ++m) {
      std::vector<Tensor> plus, minus;
      for (int sign : {1, -1}) {
        FeedList feeds = x_feeds;
        Tensor moved = Copy(x_values[j]);
        Set(&moved, m, Get(x_values[j], m) + sign * delta);
        feeds[j].second = moved;
        if (absl::Status s = (*session)->Run(feeds, y_names, {},
                                             sign > 0 ? &plus : &minus);
            !s.ok()) {
          return s;
        }
      }
      for (size_t i = 0; i < ys.size(); ++i) {
        for (int64_t k = 0; k < y_values[i].NumElements(); ++k) {
          numeric[(y_offsets[i] + k) * cols + x_offsets[j] + m] =
              (Get(plus[i], k) - Get(minus[i], k)) / (2 * delta);
        }
      }
    }
  }

  GradientCheckResult result;
  for (size_t i = 0; i < ys.size(); ++i) {
    for (int64_t k = 0; k < y_values[i].NumElements(); ++k) {
      for (size_t j = 0; j < xs.size(); ++j) {
        for (int64_t m = 0; m < x_values[j].NumElements(); ++m) {
          const int64_t at = (y_offsets[i] + k) * cols + x_offsets[j] + m;
          const double error = std::abs(symbolic[at] - numeric[at]);
          result.max_numeric =
              std::max(result.max_numeric, std::abs(numeric[at]));
          if (error > result.max_error || std::isnan(error)) {
            result.max_error = std::isnan(error) ? INFINITY : error;
            result.worst_entry =
                absl::StrCat("d y[", i, "][", k, "] / d x[", j, "][", m,
                             "]: symbolic ", symbolic[at], " numeric ",
                             numeric[at]);
          }
        }
      }
    }
  }
  return result;
}

absl::StatusOr<double> ComputeGradientError(
    const Scope& scope, const std::vector<Output>& xs,
    const std::vector<Tensor>& x_values, const std::vector<Output>& ys,
    const GradientCheckOptions& options) {
  absl::StatusOr<GradientCheckResult> result =
      CheckGradients(scope, xs, x_values, ys, options);
  if (!result.ok()) return result.status();
  return result->max_error;
}

}  // namespace dflow
