// How a collective kernel finds its session's CollectiveExecutor today: one
// executor per VariableStore, created on first use. Every kernel reaches
// the session's store (OpKernelContext::variables()), so this needs no
// change to the kernel interface; the store's address stands for the
// session.
//
// A stopgap, documented as such. The clean way is one pointer in
// OpKernelContext::Params (`CollectiveExecutor* collectives`) that the
// session fills from an executor it owns, as it fills `variables`; then this
// file goes away. Until then:
// - an executor lives until ReleaseCollectiveExecutorForStore (the session's
//   destructor should call it) or the process ends; one idle executor is a
//   few hundred bytes;
// - a store address reused by a later session finds the earlier session's
//   executor, which is harmless: an instance is removed before its members
//   are called back, and the members' callbacks keep their step (and so the
//   store) alive, so by the time an address can be reused nothing of the old
//   session is left in the executor but its aborted-step marks, which only
//   AbortStep sets.
#ifndef DFLOW_RUNTIME_COLLECTIVE_REGISTRY_H_
#define DFLOW_RUNTIME_COLLECTIVE_REGISTRY_H_

#include <memory>

#include "runtime/collective_executor.h"
#include "runtime/thread_pool.h"
#include "runtime/variables.h"

namespace dflow {

// The executor of the session whose variables are `store` (created with
// `pool` on first use); null for a null store.
std::shared_ptr<CollectiveExecutor> CollectiveExecutorForStore(
    const VariableStore* store, ThreadPool* pool);

// Forgets `store`'s executor; members still waiting in it fail with
// Cancelled once the last reference is gone.
void ReleaseCollectiveExecutorForStore(const VariableStore* store);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_COLLECTIVE_REGISTRY_H_
