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
};

// Street prices the BOM prices RAM and drives at where the machine's catalog row ships none.
constexpr double kRamUsdPerGib = 4.0;   // DDR5 street price, 2025
constexpr double kNvmeUsdPerTb = 80.0;  // client/enterprise NVMe average, 2025

CostPlan plan_cost(const CostInput& in);

}  // namespace llmsize
