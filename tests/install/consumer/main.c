/* Calls the vendor API and idgpu's own; with -lidgpu ahead of -lcufft, the cufft calls reach
 * idgpu (its dispatch statistics count them). */
#include <cufft.h>
#include <idgpu/idgpu.h>
#include <stdio.h>

int main(void) {
  cufftHandle plan = 0;
  const cufftResult created = cufftCreate(&plan);
  idgpuCallStats_t stats;
  if (idgpuGetCallStatsByName("cufftCreate", &stats) != IDGPU_STATUS_SUCCESS) return 2;
  printf("idgpu %s: cufftCreate -> %d, counted %llu\n", idgpuGetVersionString(), (int)created, stats.calls);
  if (created == CUFFT_SUCCESS) cufftDestroy(plan);
  return stats.calls == 1 ? 0 : 1;
}
