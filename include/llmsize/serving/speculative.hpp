// Speculative decoding as the serving engines run it (#22, docs/formulas.md §15.6).
//
// Each step a draft proposes k tokens for every decoding sequence, one after another (k draft
// passes over the running batch); the target model verifies the k + 1 positions of every
// sequence in one forward pass and keeps the drafted tokens up to the first it rejects, plus one
// of its own. Three drafts:
//   mtp     the checkpoint's multi-token-prediction layers (DeepSeek-V3/R1, GLM-4.5+, Qwen3.5):
//           one decoder block and the shared output head per pass (vLLM method "mtp", SGLang
//           EAGLE over the next-n layer, TensorRT-LLM decoding_type MTP);
//   eagle3  a published EAGLE-3 head: one decoder layer over the target's hidden states, its own
//           output head over a reduced draft vocabulary;
//   draft   a small model of the same family, run whole k times.
// With chain drafting (vLLM's proposers, SGLang --speculative-eagle-topk 1, TensorRT-LLM's MTP)
// a sequence emits 1 + a + a^2 + ... + a^k tokens per step, a the rate at which a drafted token
// is accepted given the ones before it were. The rates are published measurements, cited row by
// row in src/serving/speculative.cpp; the step's cost (k + 1 rows per sequence through the target,
// k draft passes) is the step model's, so the gain shrinks as a large batch turns the step from
// bandwidth bound to compute bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llmsize {

enum class SpecMethod : uint8_t { none, mtp, eagle3, draft };
const char* spec_method_name(SpecMethod m);  // "none", "mtp", "eagle3", "draft"

// Tokens a sequence emits per verification step: 1 + a + ... + a^k (chain drafting; the target's
// own token always counts). a in [0, 1].
double tokens_per_step(double a, uint32_t k);
// The per-token rate a with tokens_per_step(a, k) == tau: the rate behind a published mean
// acceptance length tau measured at k draft tokens. REQUIRES: k >= 1, 1 <= tau <= k + 1.
double acceptance_rate(double tau, uint32_t k);

// One published acceptance measurement: the mean tokens per step (acceptance length, the
// target's token included) of a draft of `method` for a target model at k draft tokens.
struct SpecAcceptance {
  SpecMethod method = SpecMethod::none;
  std::string_view model;  // catalog id prefix of the target measured
  double acceptance_length = 1;
  uint32_t draft_tokens = 1;
  std::string_view task;    // the prompts measured ("MT-Bench", "mixed chat and code", ...)
  std::string_view engine;  // who measured it
  std::string_view source;  // where it is published (URL / paper and the quoted figure)
  double rate() const;      // acceptance_rate(acceptance_length, draft_tokens)
};
// Every row, for listings and tests.
const std::vector<SpecAcceptance>& spec_acceptances();

// The measurement for a target model (catalog id; the longest matching prefix of the method's
// rows, the one measured nearest k draft tokens), else the rows of the model the method falls
// back to (MTP: DeepSeek-R1's): own = false then, and the plan says whose rate it used. No row
// (an EAGLE-3 head or a draft model without a published rate): the user gives the rate.
struct SpecAcceptanceMatch {
  const SpecAcceptance* row = nullptr;
  bool own = false;
};
SpecAcceptanceMatch spec_acceptance(SpecMethod m, std::string_view model_id, uint32_t k);

// A published EAGLE-3 head for a target model, as its repository's config.json gives it: one
// decoder layer of the target's hidden size and attention heads, its FFN width and draft
// vocabulary (its own output head; token ids mapped back to the target's).
struct Eagle3Head {
  std::string_view model;  // catalog id prefix of the target
  // The head's Hugging Face repository in the format each engine loads (empty: none known):
  // vLLM's speculators format, SGLang's SpecForge format, TensorRT-LLM's (NVIDIA's heads).
  std::string_view vllm_repo, sglang_repo, trt_repo;
  uint32_t n_ff = 0;
  uint32_t n_vocab_draft = 0;
  std::string_view source;
};
const Eagle3Head* eagle3_head(std::string_view model_id);
const std::vector<Eagle3Head>& eagle3_heads();

// The draft tokens per step each engine's documented recipe runs when --spec-tokens is not given.
uint32_t default_draft_tokens(SpecMethod m);

}  // namespace llmsize
