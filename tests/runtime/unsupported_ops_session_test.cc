// A graph with ops dflow lacks loads whole; only run signatures that reach
// such a node fail, naming it (graph/graph_def_import.h, compiler/prune.h).
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// What a TensorFlow graph looks like when it carries an op dflow does not
// have (here `FancyNewOp`, between the variable's read and fancy_out) and a
// node whose attrs dflow's schema does not know: w's initializer and the
// loss never touch either.
constexpr char kGraph[] = R"pb(
  node {
    name: "w"
    op: "VariableV2"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape { dim { size: 2 } } }
    }
  }
  node {
    name: "w/Initializer/value"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 1.5
          float_val: -2
        }
      }
    }
  }
  node {
    name: "w/Assign"
    op: "Assign"
    input: "w"
    input: "w/Initializer/value"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "w/read"
    op: "Identity"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node { name: "init" op: "NoOp" input: "^w/Assign" }
  node {
    name: "two"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 2
        }
      }
    }
  }
  node {
    name: "loss"
    op: "Mul"
    input: "w/read"
    input: "two"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "fancy"
    op: "FancyNewOp"
    input: "w/read"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "fancy_out"
    op: "Identity"
    input: "fancy"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "newer"
    op: "Identity"
    input: "w/read"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "attr_from_the_future"
      value { i: 3 }
    }
  }
  node { name: "train" op: "NoOp" input: "^fancy_out" }
)pb";

GraphDef Def() {
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraph, &def));
  return def;
}

std::unique_ptr<Session> Create() {
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(Def());
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

TEST(UnsupportedOpsSessionTest, GraphLoadsAndRunsWhatDoesNotReachThem) {
  std::unique_ptr<Session> session = Create();
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"loss"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].flat<float>()[0], 3.0f);
  EXPECT_FLOAT_EQ(out[0].flat<float>()[1], -4.0f);
}

TEST(UnsupportedOpsSessionTest, FetchReachingAnUnknownOpNamesNodeAndOp) {
  std::unique_ptr<Session> session = Create();
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"fancy_out"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(s.message(), HasSubstr("node 'fancy' (FancyNewOp)"));
  EXPECT_THAT(s.message(), HasSubstr("FancyNewOp x1"));
  EXPECT_THAT(s.message(), HasSubstr("feed their outputs"));
  // A target reaching it through a control edge fails the same way.
  s = session->Run({}, {}, {"train"}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  // The session still runs what it can afterwards.
  EXPECT_TRUE(session->Run({}, {"loss"}, {}, &out).ok());
}

TEST(UnsupportedOpsSessionTest, FeedingTheUnknownOpsOutputCutsItOff) {
  std::unique_ptr<Session> session = Create();
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"fancy", Tensor::FromVector<float>({7, 8}, TensorShape({2}))}},
      {"fancy_out"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()[1], 8.0f);
}

TEST(UnsupportedOpsSessionTest, AttrUnknownToDflowIsReportedWhenReached) {
  std::unique_ptr<Session> session = Create();
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"newer"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(s.message(), HasSubstr("node 'newer' (Identity)"));
  EXPECT_THAT(s.message(), HasSubstr("attr_from_the_future"));
}

}  // namespace
}  // namespace dflow
