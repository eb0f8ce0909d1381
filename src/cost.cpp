#include "llmsize/cost.hpp"

#include "llmsize/host.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

double host_base_usd(int platform) {
  // desktop (AM5 board + Ryzen 9 + case + PSU), workstation (TRX50/WRX90 + Threadripper PRO),
  // server (4U 8-GPU chassis + EPYC + redundant PSUs).
  static const double kBase[] = {1500, 6000, 15000};
  return platform >= 0 && platform < 3 ? kBase[platform] : 0;
}

double host_cost_usd(const HostPlan& h) {
  return host_base_usd(static_cast<int>(h.platform)) +
         kRamUsdPerGib * static_cast<double>(h.ram.installed_bytes) / kGiB +
         kNvmeUsdPerTb *
             (static_cast<double>(h.storage.drive_bytes) * h.storage.data_drives +
              static_cast<double>(h.storage.os_drive_bytes)) /
             1e12;
}

CostPlan plan_cost(const CostInput& in) {
  CostPlan c;
  c.energy_usd_per_year = in.kwh_per_year * in.kwh_price_usd;
  c.tokens_per_year = in.aggregate_tokens_per_s * in.utilization * 3600 * 8760;
  c.priced = in.gpu_price_usd > 0 || (in.gpus_included && in.host_usd > 0);
  c.complete = in.complete;
  if (!c.priced) return c;
  c.gpus_usd = in.gpu_price_usd * in.n_gpus;
  c.capex_usd = c.gpus_usd + in.host_usd;
  if (c.tokens_per_year > 0)
    c.usd_per_mtok = (c.capex_usd / in.years + c.energy_usd_per_year) / c.tokens_per_year * 1e6;
  if (in.cloud_price_per_mtok > 0 && c.tokens_per_year > 0) {
    const double cloud_per_month = in.cloud_price_per_mtok * c.tokens_per_year / 1e6 / 12;
    const double saving = cloud_per_month - c.energy_usd_per_year / 12;
    if (saving > 0) c.breakeven_months = c.capex_usd / saving;
  }
  return c;
}

}  // namespace llmsize
