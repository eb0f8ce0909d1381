// A model's architecture in llama.cpp's terms (n_layer, n_embd, n_head_kv, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmsize {

// Architectures whose tensor layout llmsize knows; names are llama.cpp's LLM_ARCH names.
enum class Arch {
  llama,
  qwen2,
  qwen2moe,
  qwen3,
  qwen3moe,
  gemma2,
  gemma3,
  phi3,
  deepseek2,
  command_r,
  falcon,
  starcoder,  // GPTBigCode (StarCoder, OctoCoder): learned positions, MQA, GELU MLP
  // 2025-2026 families (llama.cpp src/llama-arch.cpp LLM_ARCH_NAMES at commit 00395eb2).
  gpt_oss,         // "gpt-oss": MoE, SWA on every other layer, attention sinks, biases
  qwen3next,       // 3 gated delta-net layers : 1 gated full-attention layer, MoE + shared expert
  qwen35,          // Qwen3.5/3.6 dense: the same hybrid pattern, fused attn_qkv delta-net
  qwen35moe,       // Qwen3.5/3.6 MoE
  qwen3vl,         // Qwen3-VL text model (qwen3 layers)
  gemma4,          // SWA 5:1, global layers with their own head size and K = V
  llama4,          // chunked attention 3:1 with NoPE global layers, interleaved MoE
  deepseek32,      // DeepSeek-V3.2: MLA + DSA lightning indexer
  glm_dsa,         // GLM-5: MLA + DSA indexer, MTP layer
  glm4moe,         // GLM-4.5/4.6/4.7: GQA MoE, leading dense layers, MTP layer
  minimax_m2,      // MiniMax-M2: GQA MoE with per-layer q/k norms
  nemotron_h,      // Nemotron-H: Mamba2 / attention / MLP layers
  nemotron_h_moe,  // Nemotron 3 Nano: Mamba2 / attention / MoE layers
  granitehybrid,   // Granite-4.0-H: Mamba2 + attention layers, MoE or dense FFN
  lfm2,            // LFM2: short-convolution + attention layers
  lfm2moe,         // LFM2-MoE
  falcon_h1,       // Falcon-H1: attention and Mamba2 in parallel in every layer
  cohere2,         // Command R7B / Command A: SWA 3:1
  olmo2,           // OLMo 2 / OLMo 3: post-norms, q/k norms
  smollm3,         // SmolLM3: llama with NoPE every 4th layer
  seed_oss,        // Seed-OSS: llama with q/k/v biases
  ernie4_5_moe,    // ERNIE-4.5-MoE: leading dense layer, shared experts
  hunyuan_moe,     // Hunyuan-A13B: q/k norms, one shared expert
  mistral3,        // Ministral 3 / Mistral Large 3 text model (llama layers)
  deepseek4,  // DeepSeek-V4: shared-KV MQA, sliding window + compressed caches, hyper-connections
  // Encoders (llama.cpp LLM_ARCH_BERT, src/models/bert.cpp): BERT and XLM-RoBERTa (BGE-M3,
  // bge-reranker-v2-m3): learned positions, token types, post-LayerNorms with biases, GELU MLP.
  bert,
  // Gemma 3n (llama.cpp src/models/gemma3n.cpp): Gemma 3 layers with AltUp (n_altup parallel
  // streams), LAuReL low-rank residuals, per-layer embeddings, KV of the first 20 layers reused.
  gemma3n,
};

// What the model is run for. Embedding and rerank models encode a batch of documents in one
// forward pass and generate nothing (llama.cpp --embedding / --reranking, pooling_type).
enum class Task : uint8_t {
  generation,  // a language model: prefill then token-by-token decode
  embedding,   // one vector per document (pooling mean / cls / last)
  rerank,      // one relevance score per (query, document) pair (pooling rank, cls head)
};
const char* task_name(Task t);
std::optional<Task> task_from_name(std::string_view name);

const char* arch_name(Arch a);
std::optional<Arch> arch_from_name(std::string_view name);

// What a layer's attention caches (llama.cpp llama_hparams swa_layers / swa_type, is_mla()).
enum class AttnKind : uint8_t {
  full,     // every cell of the context
  swa,      // sliding window of n_swa tokens (LLAMA_SWA_TYPE_STANDARD)
  chunked,  // chunks of n_swa tokens (LLAMA_SWA_TYPE_CHUNKED, Llama 4)
  mla,      // multi-head latent attention: kv_lora_rank + n_rot per token, one "head"
  none,     // no attention in this layer (a recurrent or FFN-only layer)
};
const char* attn_kind_name(AttnKind k);

// The recurrent state a layer keeps instead of (or beside) a KV cache: llama.cpp
// llama_memory_recurrent's r (conv) and s (ssm) tensors, F32, one cell per sequence.
enum class StateKind : uint8_t {
  none,
  gated_delta_net,  // Qwen3-Next, Qwen3.5/3.6
  mamba2,           // Nemotron-H, Granite-4.0-H, Falcon-H1
  short_conv,       // LFM2
};
const char* state_kind_name(StateKind k);

enum class FfnKind : uint8_t { none, dense, moe };

// One kind of layer, the way llama.cpp's llama_hparams keeps per-layer arrays (n_head_arr,
// n_head_kv_arr, n_ff_arr, swa_layers, recurrent_layer_arr). Layers of one kind share every
// size, so sizes are computed once per kind and multiplied by its layer count.
struct LayerKind {
  AttnKind attn = AttnKind::full;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  uint32_t n_embd_head_k = 0;
  uint32_t n_embd_head_v = 0;
  uint32_t n_swa = 0;           // window or chunk size (swa, chunked)
  uint32_t n_indexer_k = 0;     // DSA indexer key width cached per token (0: no indexer)
  bool k_eq_v = false;          // no attn_v tensor: V is K (Gemma 4 global layers)
  bool sinks = false;           // attn_sinks, one per head (gpt-oss)
  bool nope = false;            // no rotary embedding (Llama 4 global layers, SmolLM3)
  bool kv_shared = false;       // reads the KV of an earlier layer: no cache of its own
  bool gated_q = false;         // Q projection doubled for an output gate (Qwen3-Next/3.5)
  bool kv_single = false;       // one cached vector per token serves as K and V (DeepSeek-V4)
  uint32_t compress_ratio = 0;  // DeepSeek-V4: a compressed cache, 1 entry per ratio tokens
  StateKind state = StateKind::none;
  FfnKind ffn = FfnKind::dense;
  uint32_t n_ff = 0;  // dense width; for MoE, the model's expert sizes apply

  bool has_kv() const { return attn != AttnKind::none && !kv_shared; }
  bool operator==(const LayerKind& o) const;
  bool operator!=(const LayerKind& o) const { return !(*this == o); }
};

// `count` consecutive layers of kind `kind` (an index into ModelSpec::layer_kinds).
struct LayerRun {
  uint32_t kind = 0;
  uint32_t count = 0;
};
// A period of runs repeated `repeat` times: Qwen3.5-35B-A3B is {[3 x delta-net, 1 x full], 10}.
struct LayerSegment {
  std::vector<LayerRun> runs;
  uint32_t repeat = 1;
};

// Recurrent-state sizes as llama.cpp names them (llama_hparams ssm_*, n_shortconv_l_cache).
struct SsmSpec {
  uint32_t d_conv = 0;   // conv kernel (linear_conv_kernel_dim, conv_kernel)
  uint32_t d_inner = 0;  // mamba: n_heads x head_dim; delta-net: value heads x value head dim
  uint32_t d_state = 0;  // mamba: ssm_state_size; delta-net: key (= value) head dim
  uint32_t n_group = 0;  // mamba: n_groups; delta-net: key heads
  uint32_t dt_rank = 0;  // mamba: heads; delta-net: value heads
  uint32_t l_cache = 0;  // LFM2 short-conv cache length (conv_L_cache)
};

// A vision encoder and its projector into the language model, as transformers defines the
// tensors (counted by vision_tower_params). Sizes are vision_config's.
enum class VisionKind : uint8_t {
  none,
  qwen3_vl,  // Qwen3-VL, Qwen3.5/3.6: Conv3d patches, learned positions, LayerNorm ViT, mergers
  siglip,    // Gemma 3: SigLIP ViT + multi_modal_projector (RMSNorm + projection)
  gemma4,    // Gemma 4: linear patches, 2-D position table, RMSNorm ViT with q/k norms, gated MLP
  pixtral,   // Mistral 3 (Mistral-Small-3.x, Ministral 3): Pixtral ViT + patch merger projector
};
struct VisionTower {
  VisionKind kind = VisionKind::none;
  uint32_t depth = 0;           // encoder layers (depth / num_hidden_layers)
  uint32_t hidden = 0;          // hidden_size
  uint32_t n_ff = 0;            // intermediate_size
  uint32_t n_head = 0;          // num_heads / num_attention_heads
  uint32_t head_dim = 0;        // gemma4 head_dim
  uint32_t patch = 0;           // patch_size
  uint32_t temporal_patch = 1;  // temporal_patch_size (Conv3d depth)
  uint32_t in_channels = 3;
  uint32_t n_pos = 0;  // position embeddings: num_position_embeddings / (image/patch)^2 / table
  uint32_t merge = 1;  // spatial_merge_size
  uint32_t out_hidden = 0;   // width the projector maps to (out_hidden_size, the text hidden size)
  uint32_t n_deepstack = 0;  // Qwen3-VL deepstack mergers (deepstack_visual_indexes)
};
// Parameters of the tower, 0 for kind none.
uint64_t vision_tower_params(const VisionTower& v);

struct ModelSpec {
  std::string id;    // catalog id, or empty for a file
  std::string name;  // display name
  Arch arch = Arch::llama;

  uint32_t n_layer = 0;
  uint32_t n_embd = 0;
  uint32_t n_ff = 0;  // dense FFN width (the leading dense layers of an MoE)
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  // KV heads layer by layer when they vary (a GGUF's per-layer attention.head_count_kv, llama.cpp
  // hparams.n_head_kv(il)); empty when every layer has n_head_kv, which is then the largest.
  std::vector<uint32_t> n_head_kv_per_layer;
  uint32_t n_embd_head_k = 0;  // per-head K width (head_dim); MLA: qk_nope + qk_rope
  uint32_t n_embd_head_v = 0;  // per-head V width; MLA: v_head_dim
  uint32_t n_vocab = 0;
  uint32_t n_ctx_train = 0;
  bool tied_embeddings = false;  // output projection shares token_embd
  bool qkv_bias = false;         // attn_q/k/v carry biases (qwen2)

  // Mixture of experts. n_expert == 0 for a dense model.
  uint32_t n_expert = 0;
  uint32_t n_expert_used = 0;
  uint32_t n_expert_shared = 0;  // shared experts per MoE layer
  uint32_t n_ff_exp = 0;         // FFN width of one routed expert
  uint32_t n_ff_shexp = 0;       // FFN width of the shared expert block (all shared experts)
  uint32_t n_layer_dense_lead =
      0;  // leading layers with a dense FFN (deepseek first_k_dense_replace)

  // Sliding-window attention. n_swa == 0: none. swa_pattern p: layer il uses the window when
  // il % p < p - 1 (llama.cpp hparams.set_swa_pattern); p == 1 means every layer.
  uint32_t n_swa = 0;
  uint32_t swa_pattern = 0;

  // Multi-head latent attention (DeepSeek-V2/V3). kv_lora_rank == 0: not MLA.
  uint32_t q_lora_rank = 0;
  uint32_t kv_lora_rank = 0;
  uint32_t n_rot = 0;  // qk_rope_head_dim for MLA

  // Per-layer description. Empty layer_kinds: every layer follows the scalars above (n_swa and
  // swa_pattern, n_layer_dense_lead, n_head_kv_per_layer), as for the architectures of 2024.
  // Otherwise layer_segments lists the layers in order, as runs of kinds, and covers n_layer.
  std::vector<LayerKind> layer_kinds;
  std::vector<LayerSegment> layer_segments;
  SsmSpec ssm;
  uint32_t n_layer_nextn = 0;  // MTP / next-n layers the file carries beyond n_layer
  // The checkpoint's MTP layers are left out of a GGUF by llama.cpp's convert_hf_to_gguf.py
  // (DeepseekV2Model.skip_mtp = True for DeepseekV2/V3ForCausalLM and Kimi-K2.5;
  // DeepseekV4Model.filter_tensors drops "mtp.*"), while DeepseekV32Model, Glm4MoeLiteModel,
  // GLM-4.x and Qwen3.5 keep them. Counted in the parameters, not in a GGUF preset's bytes.
  bool gguf_drops_nextn = false;
  // The MTP layers store their own embed_tokens and shared_head.head (llama.cpp
  // LLM_TENSOR_NEXTN_EMBED_TOKENS / NEXTN_SHARED_HEAD_HEAD, loaded TENSOR_NOT_REQUIRED): the
  // GLM-4.5 family's checkpoints, whose HF totals are 2 x n_vocab x n_embd above the layers.
  bool nextn_embeddings = false;
  uint32_t n_embd_per_layer = 0;  // per-layer embedding width (Gemma 3n/4), 0: none
  uint32_t n_altup = 0;           // Gemma 3n AltUp streams (llama.cpp hparams.n_altup), 0: none
  uint32_t laurel_rank = 0;       // Gemma 3n LAuReL rank (hparams.laurel_rank)
  uint32_t n_indexer_head = 0;    // DSA indexer heads (DeepSeek-V3.2, GLM-5)
  uint32_t n_indexer_head_dim = 0;
  // DeepSeek-V4 attention and hyper-connections (llama.cpp deepseek4 dsv4_*).
  uint32_t o_lora_rank = 0;
  uint32_t o_groups = 0;
  uint32_t hc_mult = 0;
  uint32_t n_hash_layers = 0;
  // The vision tower / multimodal projector the checkpoint carries (its config's vision_config);
  // kind none: none or unknown. llama.cpp keeps it in a separate mmproj GGUF.
  VisionTower vision;
  bool qk_norm = false;  // attn_q_norm / attn_k_norm where the architecture makes them optional
  Task task = Task::generation;
  uint32_t n_token_types = 0;  // BERT token_types rows (type_vocab_size)
  uint32_t n_cls_out = 0;      // classifier outputs of a rerank head (cls + cls.output), 0: none
  // The quant preset of the checkpoint as its config's quantization_config stores it ("fp8",
  // "int4-g32", "mxfp4-experts", "nvfp4"); empty for an unquantized or unknown checkpoint.
  std::string stored_quant;
  // A quantization_config llmsize does not size ("GPTQ 4-bit, group 32", "bitsandbytes 4-bit
  // (nf4)"): what it is, for the answer to say; empty when read or absent.
  std::string stored_quant_unread;

  uint64_t params_official = 0;  // published parameter count, 0 = unknown
  std::string params_source;

  bool is_moe() const { return n_expert > 1; }
  // An encoder attends over its own batch without a cache (llama.cpp creates no memory for
  // LLM_ARCH_BERT: llama_model::create_memory returns nullptr).
  bool is_encoder() const { return arch == Arch::bert; }
  bool is_mla() const { return kv_lora_rank > 0; }
  uint32_t n_gqa() const { return n_head_kv ? n_head / n_head_kv : 0; }
  bool is_swa_layer(uint32_t il) const {
    return n_swa > 0 && swa_pattern > 0 && (swa_pattern == 1 || il % swa_pattern < swa_pattern - 1);
  }
  bool is_moe_layer(uint32_t il) const { return is_moe() && il >= n_layer_dense_lead; }
  // K and V elements cached per token per layer (llama.cpp n_embd_k_gqa / n_embd_v_gqa).
  // MLA caches the compressed latent plus the rope part in K, and no separate V.
  uint64_t n_embd_k_gqa() const;
  uint64_t n_embd_v_gqa() const;
};

// Problems with a spec, each naming the field ("n_head (32) is not divisible by n_head_kv (5)").
std::vector<std::string> validate(const ModelSpec& m);

// Runs m as task t (catalog "task", --task). A Qwen3 decoder run as a reranker (Qwen3-Reranker)
// gets llama.cpp's rerank head: convert_hf_to_gguf.py (conversion/qwen.py Qwen3Model at
// de3ff815) keeps lm_head's "yes" / "no" rows as cls.output {n_embd, 2} (n_cls_out 2) and writes
// no output.weight, so the file holds that head in place of the vocabulary projection, and
// llama.cpp reuses token_embd as the output (tied).
void set_task(ModelSpec& m, Task t);

}  // namespace llmsize
