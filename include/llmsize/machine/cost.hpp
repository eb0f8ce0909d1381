// Capital cost, energy, cost per million tokens and break-even against a cloud API.
#pragma once

#include <cstdint>
#include <string>

namespace llmsize {

struct CostInput {
  double gpu_price_usd = 0;  // per GPU; 0 = unknown
  uint32_t n_gpus = 1;
  double host_usd = 0;  // the rest of the server (platform, RAM, drives, PSU, chassis)
  double kwh_per_year = 0;
  double kwh_price_usd = 0.15;  // --kwh-price
  double years = 3;             // --years: amortisation
  double utilization = 0.5;     // share of the year spent generating at the aggregate rate
  double aggregate_tokens_per_s = 0;
  double cloud_price_per_mtok = 0;  // --cloud-price, USD per 1M tokens; 0 = no comparison
  // The GPUs are part of host_usd (a unified computer, a system priced whole): priced then
  // with gpu_price_usd 0.
  bool gpus_included = false;
  bool complete = true;  // every line of the bill has a price (else capex is a floor)
  // Buy against rent (#27): the same GPUs rented around the clock at a published on-demand price
  // per GPU-hour (0: no price), and the site's colocation price per kW of the machines' maximum
  // draw per month (--colo-usd-per-kw-month; 0: none, the buyer's own building).
  double rent_usd_per_gpu_hour = 0;
  bool rent_price_given = false;  // --rent-price, not the catalog's median
  uint32_t rent_gpus = 0;
  double colo_usd_per_kw_month = 0;
  double max_wall_kw = 0;
};

struct CostPlan {
  double capex_usd = 0;  // 0 when the GPU price is unknown
  double gpus_usd = 0;   // GPU price x count: the GPUs' part of capex
  double energy_usd_per_year = 0;
  double tokens_per_year = 0;
  double usd_per_mtok = 0;      // (capex / years + energy) / tokens per year x 1e6
  double breakeven_months = 0;  // 0 = never or no comparison
  bool priced = false;
  bool complete = true;  // CostInput::complete: false when capex is a floor
  // Owning runs energy (and colocation) a month; renting rent_gpus around the clock
  // (kHoursPerYear / 12 hours a month) costs rent_usd_per_month. The capex is repaid by the
  // difference after rent_breakeven_months (0: never, or no rental price).
  double colo_usd_per_month = 0;
  double rent_usd_per_month = 0;
  double rent_breakeven_months = 0;
};

// Street prices the BOM prices RAM and drives at where the machine's catalog row ships none.
// Desktop DDR5 (and DDR4, which costs as much in the 2026 shortage), June 2026: PCPartPicker's
// 64 GB kits at $679.99, its cheapest 32 GB kit at $374.97, as Tom's Hardware reported on
// 2026-06-03
// (https://www.techtimes.com/articles/317789/20260604/ddr5-ram-hits-375-floor-pc-builders-hbm-takes-three-times-more-wafers.htm);
// $679.99 / 64 GB, a DIMM's marketed GB counted as its GiB as the RDIMM price below.
constexpr double kRamUsdPerGib = 679.99 / 64;
constexpr double kNvmeUsdPerTb = 80.0;  // client NVMe average, 2025 (assumed)
// Server DDR5 RDIMM, Q4 2025: a 64 GB RDIMM rose from $255 (Q3 2025) to $450 (Counterpoint
// Research, as reported at https://www.esim.report/news/memory-price-surge-tipped-to-continue);
// $450 / 64 GiB.
constexpr double kDdr5RdimmUsdPerGib = 450.0 / 64;
// Enterprise TLC NVMe, Q1 2026: a 30 TB drive at $9,000-11,000, up from about $3,062 in Q2 2025
// (https://www.oscoo.com/kr/news/enterprise-ssd-buying-guide-2026); $10,000 / 30.72 TB.
constexpr double kEnterpriseNvmeUsdPerTb = 10000.0 / 30.72;

CostPlan plan_cost(const CostInput& in);

}  // namespace llmsize
