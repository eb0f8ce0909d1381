#include "llmsize/machine/cost.hpp"

#include "llmsize/units.hpp"

namespace llmsize {

CostPlan plan_cost(const CostInput& in) {
  CostPlan c;
  c.energy_usd_per_year = in.kwh_per_year * in.kwh_price_usd;
  c.colo_usd_per_month = in.colo_usd_per_kw_month * in.max_wall_kw;
  c.rent_usd_per_month = in.rent_usd_per_gpu_hour * in.rent_gpus * kHoursPerYear / 12;
  c.tokens_per_year = in.aggregate_tokens_per_s * in.utilization * 3600 * kHoursPerYear;
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
  if (c.rent_usd_per_month > 0) {
    const double saving = c.rent_usd_per_month - c.energy_usd_per_year / 12 - c.colo_usd_per_month;
    if (saving > 0) c.rent_breakeven_months = c.capex_usd / saving;
  }
  return c;
}

}  // namespace llmsize
