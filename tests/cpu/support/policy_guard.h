// Sets the dispatch policy for a scope. The forwarding tests check the vendor path: with a native
// solver for a problem (and a GPU), IDGPU_POLICY_AUTO could serve it natively instead.
#pragma once

#include "idgpu/idgpu.h"

namespace idgpu::test {

class PolicyGuard {
 public:
  explicit PolicyGuard(idgpuPolicy_t policy) {
    idgpuGetPolicy(&previous_);
    idgpuSetPolicy(policy);
  }
  ~PolicyGuard() { idgpuSetPolicy(previous_); }
  PolicyGuard(const PolicyGuard&) = delete;
  PolicyGuard& operator=(const PolicyGuard&) = delete;

 private:
  idgpuPolicy_t previous_ = IDGPU_POLICY_AUTO;
};

}  // namespace idgpu::test
