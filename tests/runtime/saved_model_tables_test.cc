// SavedModels TensorFlow wrote with lookup tables and asset files
// (tools/tf_reference/make_saved_model_tables_reference.py): vocabulary
// files read from the SavedModel's assets/ (TF2 and the TF1 builder), a
// Keras TextVectorization whose MutableHashTable comes back from the
// checkpoint, mutable tables of scalars and of vectors changed by a
// signature; each call's outputs against TensorFlow's. Then the tables'
// errors: an asset file gone, a static table written to, values of the
// wrong shape, a table of one kind asked for as another.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/npy.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/data_flow_ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/saved_model_loader.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

const char kDir[] = "tests/testdata/tf_saved_model_tables";

Tensor Npy(const std::string& name) {
  absl::StatusOr<Tensor> t = ReadNpyFile(absl::StrCat(kDir, "/", name));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

void ExpectSame(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    switch (want.dtype()) {
      case DT_FLOAT:
        EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i],
                    1e-5 + 1e-5 * std::abs(want.data<float>()[i]))
            << what << " element " << i;
        break;
      case DT_INT64:
        EXPECT_EQ(got.data<int64_t>()[i], want.data<int64_t>()[i])
            << what << " element " << i;
        break;
      case DT_STRING:
        EXPECT_EQ(got.data<std::string>()[i], want.data<std::string>()[i])
            << what << " element " << i;
        break;
      default:
        FAIL() << what << ": unexpected dtype " << DataTypeName(want.dtype());
    }
  }
}

// Calls `signature` of `model` with its recorded inputs and compares every
// recorded output.
void ExpectCallMatchesTensorFlow(SavedModelBundle& model,
                                 const std::string& name,
                                 const std::string& signature,
                                 const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs) {
  std::map<std::string, Tensor> feeds;
  for (const std::string& in : inputs) {
    feeds[in] = Npy(absl::StrCat(name, ".", signature, ".in.", in, ".npy"));
  }
  absl::StatusOr<std::map<std::string, Tensor>> got =
      model.RunSignature(signature, feeds, outputs);
  ASSERT_TRUE(got.ok()) << got.status();
  for (const std::string& out : outputs) {
    ExpectSame(got->at(out),
               Npy(absl::StrCat(name, ".", signature, ".out.", out, ".npy")),
               absl::StrCat(name, " ", signature, " ", out));
  }
}

// A 1-D tensor of `values`.
template <typename T>
Tensor Vec(std::vector<T> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return Tensor::FromVector<T>(std::move(values), TensorShape({n}));
}

absl::StatusOr<SavedModelBundle> Load(const std::string& name) {
  return LoadSavedModel(absl::StrCat(kDir, "/", name), {"serve"});
}

TEST(SavedModelTablesTest, Tf2VocabularyFileFromAssets) {
  absl::StatusOr<SavedModelBundle> model = Load("vocab_asset");
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectCallMatchesTensorFlow(*model, "vocab_asset", "serving_default",
                              {"words"}, {"ids"});
}

TEST(SavedModelTablesTest, Tf1BuilderVocabularyFileFromAssets) {
  absl::StatusOr<SavedModelBundle> model = Load("tf1_vocab_asset");
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectCallMatchesTensorFlow(*model, "tf1_vocab_asset", "serving_default",
                              {"word"}, {"ids"});
}

TEST(SavedModelTablesTest, KerasTextVectorizationRestoresItsMutableTable) {
  absl::StatusOr<SavedModelBundle> model = Load("text_vectorization");
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectCallMatchesTensorFlow(*model, "text_vectorization", "serving_default",
                              {"text"}, {"dense"});
}

TEST(SavedModelTablesTest, MutableTablesOfScalarsAndVectors) {
  absl::StatusOr<SavedModelBundle> model = Load("mutable_tables");
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectCallMatchesTensorFlow(*model, "mutable_tables", "lookup",
                              {"words", "keys"},
                              {"word_ids", "size", "vectors", "dense",
                               "dense_size"});
  ExpectCallMatchesTensorFlow(*model, "mutable_tables", "update",
                              {"words", "ids", "gone"},
                              {"found", "size", "keys", "values"});
}

// A copy of a SavedModel under the test's temporary directory.
std::string CopyModel(const std::string& name, const std::string& to) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dest =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", to);
  std::filesystem::remove_all(dest);
  std::filesystem::copy(absl::StrCat(kDir, "/", name), dest,
                        std::filesystem::copy_options::recursive);
  return dest;
}

TEST(SavedModelTablesTest, MissingAssetFileIsNamed) {
  const std::string dir = CopyModel("vocab_asset", "no_asset");
  std::filesystem::remove(dir + "/assets/vocab.txt");
  absl::StatusOr<SavedModelBundle> model = LoadSavedModel(dir, {"serve"});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound)
      << model.status();
  EXPECT_THAT(model.status().message(), HasSubstr("assets/vocab.txt"));
}

// The table ops on graphs built here: what TensorFlow reports for misuse.
class TableErrorsTest : public ::testing::Test {
 protected:
  absl::Status Run(const std::vector<std::string>& targets,
                   const std::vector<Output>& fetches = {},
                   std::vector<Tensor>* out = nullptr) {
    GraphDef def;
    if (absl::Status s = root_.ToGraphDef(&def); !s.ok()) return s;
    if (session_ == nullptr) {
      absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(def);
      if (!s.ok()) return s.status();
      session_ = *std::move(s);
    }
    std::vector<std::string> names;
    for (const Output& f : fetches) names.push_back(f.name());
    std::vector<Tensor> ignored;
    return session_->Run({}, names, targets, out != nullptr ? out : &ignored);
  }

  Scope root_ = Scope::NewRootScope();
  std::unique_ptr<Session> session_;
};

TEST_F(TableErrorsTest, StaticTableRefusesInsertAndRemove) {
  Output table = ops::HashTableV2(root_, DT_STRING, DT_INT64, "static");
  Output keys = ops::Const(root_, Vec<std::string>({"a"}));
  Output values = ops::Const(root_, Vec<int64_t>({1}));
  ops::LookupTableInsertV2(root_.WithOpName("insert"), table, keys, values);
  ops::LookupTableRemoveV2(root_.WithOpName("remove"), table, keys);
  absl::Status s = Run({"insert"});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(s.message(), HasSubstr("insert"));
  EXPECT_THAT(s.message(), HasSubstr("MutableHashTable"));
  s = Run({"remove"});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
}

TEST_F(TableErrorsTest, ValuesOfTheWrongShapeOrDtype) {
  Output table = ops::MutableHashTableOfTensorsV2(root_, DT_INT64, DT_FLOAT,
                                                  TensorShape({3}), "vec");
  Output keys = ops::Const(root_, Vec<int64_t>({1, 2}));
  // Two keys need [2, 3] values; [2, 2] is wrong.
  Output bad = ops::Const(root_, Tensor::FromVector<float>({1, 2, 3, 4},
                                                           TensorShape({2, 2})));
  ops::LookupTableInsertV2(root_.WithOpName("insert"), table, keys, bad);
  Output ints = ops::Const(root_, Vec<int32_t>({1, 2}));
  ops::LookupTableInsertV2(root_.WithOpName("insert_ints"), table, keys, ints);
  absl::Status s = Run({"insert"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("[2,3]"));
  EXPECT_THAT(s.message(), HasSubstr("insert"));
  s = Run({"insert_ints"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("Conflicting key/value dtypes"));
}

TEST_F(TableErrorsTest, DenseTableRefusesItsReservedKeys) {
  Output table = ops::MutableDenseHashTableV2(
      root_, ops::Const(root_, int64_t{-1}), ops::Const(root_, int64_t{-2}),
      DT_FLOAT);
  ops::LookupTableInsertV2(root_.WithOpName("insert_empty"), table,
                           ops::Const(root_, Vec<int64_t>({4, -1})),
                           ops::Const(root_, Vec<float>({1, 2})));
  Output find = ops::LookupTableFindV2(
      root_.WithOpName("find_deleted"), table,
      ops::Const(root_, Vec<int64_t>({-2})), ops::Const(root_, 0.0f));
  Output same = ops::MutableDenseHashTableV2(
      root_.WithOpName("same_keys"), ops::Const(root_, int64_t{7}),
      ops::Const(root_, int64_t{7}), DT_FLOAT);
  absl::Status s = Run({"insert_empty"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("Using the empty_key"));
  s = Run({}, {find});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("Using the deleted_key"));
  s = Run({"same_keys"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("Empty and deleted keys"));
}

TEST_F(TableErrorsTest, SharedNameOfAnotherKindOfTable) {
  ops::HashTableV2(root_.WithOpName("static"), DT_STRING, DT_INT64, "shared");
  ops::MutableHashTableV2(root_.WithOpName("mutable"), DT_STRING, DT_INT64,
                          "shared");
  ASSERT_TRUE(Run({"static"}).ok());
  absl::Status s = Run({"mutable"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("another shared_name"));
}

TEST_F(TableErrorsTest, MutableTableInsertRemoveFindExport) {
  Output table = ops::MutableHashTableV2(root_, DT_INT64, DT_STRING, "m");
  Output keys = ops::Const(root_, Vec<int64_t>({5, 6, 7}));
  Output values = ops::Const(root_, Vec<std::string>({"x", "y", "z"}));
  ops::LookupTableInsertV2(root_.WithOpName("insert"), table, keys, values);
  ops::LookupTableRemoveV2(root_.WithOpName("remove"), table,
                           ops::Const(root_, Vec<int64_t>({6, 99})));
  Output found = ops::LookupTableFindV2(
      root_, table, ops::Const(root_, Vec<int64_t>({7, 6, 5})),
      ops::Const(root_, std::string("?")));
  OutputList exported =
      ops::LookupTableExportV2(root_, table, DT_INT64, DT_STRING);
  Output size = ops::LookupTableSizeV2(root_, table);
  std::vector<Tensor> out;
  ASSERT_TRUE(Run({"insert"}).ok());
  ASSERT_TRUE(Run({"remove"}).ok());
  ASSERT_TRUE(Run({}, {found, exported[0], exported[1], size}, &out).ok());
  ExpectSame(out[0],
             Tensor::FromVector<std::string>({"z", "?", "x"}, TensorShape({3})),
             "found");
  // Export in insertion order, the removed key gone.
  ExpectSame(out[1], Tensor::FromVector<int64_t>({5, 7}, TensorShape({2})),
             "keys");
  ExpectSame(out[2],
             Tensor::FromVector<std::string>({"x", "z"}, TensorShape({2})),
             "values");
  EXPECT_EQ(*out[3].data<int64_t>(), 2);
}

}  // namespace
}  // namespace dflow
