#!/usr/bin/env python3
"""One-off import of ../shared/reference/models.json into data/models.json (run by a developer,
never by the build or tests). Keeps each row's source; gaps filled here are listed in `filled`."""
import json, re, sys

REF = sys.argv[1] if len(sys.argv) > 1 else "../shared/reference/models.json"
ref = json.load(open(REF))

MODEL_TYPE = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "MixtralForCausalLM": "mixtral",
    "Qwen2ForCausalLM": "qwen2", "Qwen3ForCausalLM": "qwen3", "Qwen3MoeForCausalLM": "qwen3_moe",
    "Gemma2ForCausalLM": "gemma2", "Phi3ForCausalLM": "phi3", "DeepseekV3ForCausalLM": "deepseek_v3",
    "FalconForCausalLM": "falcon", "CohereForCausalLM": "cohere",
}
IDS = {
    "Qwen2.5-1.5B-Instruct": "qwen2.5-1.5b", "Qwen2.5-72B-Instruct": "qwen2.5-72b",
    "Command-R (v01, 35B)": "command-r-v01", "Command-R (08-2024, 32B)": "command-r-08-2024",
}
# Size shorthands: the reference model a user means by "70b".
SHORTHAND = {
    "llama-2-13b": ["13b"], "llama-3.1-8b": ["8b"], "llama-3.1-70b": ["70b"],
    "llama-3.1-405b": ["405b"], "llama-3.2-1b": ["1b"], "llama-3.2-3b": ["3b"],
    "qwen2.5-0.5b": ["0.5b"], "qwen2.5-1.5b": ["1.5b"], "qwen2.5-7b": ["7b"],
    "qwen2.5-14b": ["14b"], "qwen2.5-32b": ["32b"], "qwen2.5-72b": ["72b"], "qwen3-4b": ["4b"],
    "mistral-nemo-12b": ["12b"], "mistral-small-24b": ["24b"], "mixtral-8x7b": ["8x7b", "47b"],
    "mixtral-8x22b": ["8x22b", "141b"], "gemma-2-2b": ["2b"], "gemma-2-9b": ["9b"],
    "gemma-2-27b": ["27b"], "qwen3-30b-a3b": ["30b"], "qwen3-235b-a22b": ["235b"],
    "deepseek-v3": ["671b"], "falcon-40b": ["40b"], "command-r-v01": ["35b"],
    "phi-3-mini-4k": ["3.8b"],
}
KEYS = ["num_hidden_layers", "hidden_size", "intermediate_size", "moe_intermediate_size",
        "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size",
        "max_position_embeddings", "tie_word_embeddings", "num_experts", "num_experts_per_tok",
        "n_shared_experts", "first_k_dense_replace", "sliding_window", "use_sliding_window",
        "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
        "torch_dtype"]

# Official parameter counts found by a search of public sources (Hugging Face safetensors totals
# as quoted in public files); None where no exact count is public or the count includes parts
# llama.cpp does not load (vision tower, MTP layers).
OFFICIAL_PARAMS = {
    'Llama-2-7B': (6738415616, 'HF API safetensors.total with revision in fs-id 71571056092 and github:debaditc/kvfit scripts/build_registry.py (6738417664); 6738415616 in fs-id 2567470270 (meta-llama/Llama-2-7b-chat-hf) and fs-id 48212167485; total_size 13476839424 in fs-id 5842727729 — learnable params; HF safetensors.total 6738417664 = params + 32 layers x 64 inv_freq; index total_size 13476839424 (fp16 + fp32 inv_freq)'),
    'Llama-2-13B': (13015864320, 'fs-id 2567470270 (meta-llama/Llama-2-13b-chat-hf: 13015864320); HF API total 13015866880 in fs-id 71571056092 and github:debaditc/kvfit scripts/build_registry.py — learnable params; HF total adds 40x64 inv_freq'),
    'Llama-2-70B': (68976648192, 'fs-id 4120541175 (togethercomputer/llama-2-70b: 68976648192); HF API total 68976653312 in fs-id 71571056092 — learnable params; HF total adds 80x64 inv_freq'),
    'Llama-3.1-8B': (8030261248, 'https://huggingface.co/meta-llama/Llama-3.1-8B ; HF API value with revision d04e592b in fs-id 71571056092; github:debaditc/kvfit scripts/build_registry.py — HF safetensors.total; total_size 16060522496 / 2 (bf16)'),
    'Llama-3.1-70B': (70553706496, 'https://huggingface.co/meta-llama/Llama-3.1-70B ; HF API value rev 349b2ddb in fs-id 71571056092; total_size quoted in fs-id 70904478004 / 65976726305 — HF safetensors.total; index total_size 141107412992 / 2 (bf16)'),
    'Llama-3.1-405B': (405853388800, 'https://huggingface.co/meta-llama/Llama-3.1-405B ; HF API value rev b906e4dc in fs-id 71571056092 — HF safetensors.total (bf16 repo); = total_size 811706777600 / 2'),
    'Llama-3.2-1B': (1235814400, 'fs-id 2567470270 (meta-llama/Llama-3.2-1B-Instruct: 1235814400) — HF safetensors count (tied embeddings, single model.safetensors)'),
    'Llama-3.2-3B': (3212749824, 'fs-id 2567470270; github:debaditc/kvfit scripts/build_registry.py (Llama-3.2-3B-Instruct) — HF safetensors.total (tied embeddings)'),
    'Llama-3.3-70B': (70553706496, 'github:debaditc/kvfit scripts/build_registry.py (unsloth mirror of meta-llama/Llama-3.3-70B-Instruct); github:AlexsJones/llmfit scrape script fallback 70_553_706_496 — HF safetensors.total (same architecture as 3.1-70B)'),
    'Mistral-7B-v0.3': (7248023552, "github:debaditc/kvfit scripts/build_registry.py; keras-team/keras-hub mistral presets (mistral_0.3_7b_en params 7248023552, fs-id 890457506); fs-id 71142266638 ('mistralai/Mistral-7B-v0.3': 7248023552) — HF safetensors {BF16: 7248023552}; total_size 14496047104 / 2"),
    'Mistral-Nemo-12B': (12247782400, 'github:debaditc/kvfit scripts/build_registry.py — HF safetensors.total of Mistral-Nemo-Instruct-2407'),
    'Mistral-Small-24B': (23572403200, "fs-id 66729435508 (Fireworks model catalog JSON, createdAt 2025-01-30); fs-id 37074310570 / 61967859708 (llama.cpp n_params 23572403200) — provider catalog paramCount for 'Mistral Small 24B Instruct 2501' (= HF total; same value quoted by llama.cpp n_params for Mistral-Small-3.x text models)"),
    'Mixtral-8x7B': (46702792704, 'fs-id 2567470270 (mistralai/Mixtral-8x7B-Instruct-v0.1: 46_702_792_704) — HF safetensors count; total_size 93405585408 / 2'),
    'Mixtral-8x22B': (140620634112, 'fs-id 69468411049 (mistral-community/Mixtral-8x22B-v0.1 mirror of official base); 281241268224 bytes in fs-id 56218868576 — HF safetensors.total; mapped tensor payload 281241268224 bytes over 59 shards / 2'),
    'Qwen2.5-0.5B': (494032768, 'github:floschne/gimmick (probable; fs-id 12439498600, computed via HfApi.get_safetensors_metadata); fs-id 69729802011 — HF safetensors metadata (tied embeddings)'),
    'Qwen2.5-1.5B-Instruct': (1543714304, "fs-id 12439498600; fs-id 55135082075 ('safetensors.total from the model_info API') — HF safetensors metadata"),
    'Qwen2.5-3B': (3085938688, 'fs-id 12439498600; keras-team/keras-hub qwen presets (fs-id 3421640062) — HF safetensors metadata'),
    'Qwen2.5-7B': (7615616512, 'fs-id 12439498600; github:debaditc/kvfit scripts/build_registry.py — HF safetensors metadata; total_size 15231233024 / 2'),
    'Qwen2.5-14B': (14770033664, "fs-id 66729435508 (Fireworks catalog); fs-id 38599826133 — catalog paramCount for 'Qwen 2.5 14B' and '14B Instruct'"),
    'Qwen2.5-32B': (32763876352, 'fs-id 12439498600; fs-id 66729435508 — HF safetensors metadata'),
    'Qwen2.5-72B-Instruct': (72706203648, 'fs-id 12439498600; github:debaditc/kvfit scripts/build_registry.py — HF safetensors metadata'),
    'Qwen3-4B': (4022468096, 'fs-id 61249037944 (HF listing Qwen/Qwen3-4B 4022468096); fs-id 54496033027. NOTE Fireworks lists 4411424256 = untied count (+151936*2560), not HF — HF safetensors.total (tied embeddings); llama.cpp n_params agrees'),
    'Qwen3-8B': (8190735360, 'github:debaditc/kvfit scripts/build_registry.py; fs-id 67469160833 (quoted HF API JSON); fs-id 66729435508 — HF safetensors {BF16: 8190735360}'),
    'Qwen3-14B': (14768307200, "fs-id 66729435508 (Fireworks catalog) — catalog paramCount 'Qwen 3 14B'"),
    'Qwen3-32B': (32762123264, 'github:debaditc/kvfit scripts/build_registry.py; fs-id 66729435508 — HF safetensors.total'),
    'Qwen3-30B-A3B': (30532122624, 'github:debaditc/kvfit scripts/build_registry.py; fs-id 66729435508 — HF safetensors.total (total, not active)'),
    'Qwen3-235B-A22B': (235093634560, 'github:debaditc/kvfit scripts/build_registry.py; fs-id 66729435508 — HF safetensors.total (total, not active)'),
    'Gemma-2-2B': (2614341888, "fs-id 2567470270 (google/gemma-2-2b-it); fs-id 60795781450 ('official safetensors') — HF safetensors (checkpoint is fp32: total_size 10457367552 / 4)"),
    'Gemma-2-9B': (9241705984, 'fs-id 2567470270; github:debaditc/kvfit scripts/build_registry.py — HF safetensors count'),
    'Gemma-2-27B': (27227128320, 'github:keras-team/keras-hub keras_hub/src/models/gemma/gemma_presets.py (gemma2_27b_en params 27227128320); github:debaditc/kvfit — official Keras preset params + HF count'),
    'Gemma-3-27B': (None, 'github:debaditc/kvfit scripts/build_registry.py; keras-hub medgemma_instruct_27b preset (fs-id 3173084990) — HF safetensors.total of google/gemma-3-27b-it; INCLUDES SigLIP vision tower + projector (text-only LM is ~27.0B, not found exactly)'),
    'Phi-3-mini-4k': (3821079552, "fs-id 71142266638 ('microsoft/Phi-3-mini-4k-instruct': 3821079552); fs-id 2720486030; github:debaditc/kvfit — HF safetensors {BF16}; total_size 7642159104 / 2"),
    'Phi-4': (14659507200, 'github:debaditc/kvfit scripts/build_registry.py; fs-id 366615949 (GGUF of microsoft/phi-4) — HF safetensors.total; GGUF general.parameter_count agrees'),
    'DeepSeek-V3': (None, 'fs-id 67469160833 and fs-id 58758039937 (quoted HF API JSON); MTP statement: https://huggingface.co/deepseek-ai/DeepSeek-V3-0324/discussions/32 and model card quote — HF safetensors.total = BF16 3918786560 + F8_E4M3 680571043840 + F32 41555600; INCLUDES the MTP module (layer 61) AND ~41.6M F32 tensors that are mostly FP8 weight_scale_inv block scales (not true weights); checkpoint is FP8 so total_size/2 does not apply'),
    'Falcon-40B': (None, 'https://huggingface.co/tiiuae/falcon-40b model card — model card says 40B; no exact public count found'),
    'Command-R (v01, 35B)': (None, "https://huggingface.co/CohereForAI/c4ai-command-r-v01 ; config in fs-id 55805448694 — model card '35 billion parameter'; no exact public count found"),
    'Command-R (08-2024, 32B)': (None, 'https://huggingface.co/CohereForAI/c4ai-command-r-08-2024 ; config in fs-id 55805448694 — no exact public count found'),
}

out = []
for m in ref["models"]:
    name = m["name"]
    mid = IDS.get(name, name.lower())
    arch = m["architecture"]
    mt = "gemma3_text" if arch.startswith("Gemma3") else MODEL_TYPE[arch]
    cfg = {"model_type": mt}
    filled = []
    for k in KEYS:
        if m.get(k) is not None:
            cfg[k] = m[k]
    if mt in ("gemma2", "gemma3_text"):
        cfg["sliding_window_pattern"] = 2 if mt == "gemma2" else 6
        if "tie_word_embeddings" not in cfg:
            cfg["tie_word_embeddings"] = True
            filled.append("tie_word_embeddings: Gemma2Config/Gemma3TextConfig default True")
    if mt == "cohere" and "tie_word_embeddings" not in cfg:
        cfg["tie_word_embeddings"] = True
        filled.append("tie_word_embeddings: CohereConfig default True")
    if mt == "falcon":
        cfg["num_kv_heads"] = cfg.pop("num_key_value_heads")
        cfg["new_decoder_architecture"] = True
        cfg["tie_word_embeddings"] = True
        cfg["max_position_embeddings"] = 2048
        filled.append("ffn_hidden_size absent: FalconConfig default 4 x hidden_size; "
                      "tie_word_embeddings: PretrainedConfig default True (FalconForCausalLM ties lm_head); "
                      "context 2048 from the model card")
    if name == "Llama-3.3-70B":
        cfg["vocab_size"] = 128256
        cfg["tie_word_embeddings"] = False
        filled.append("vocab_size 128256 and untied embeddings: the Llama 3 tokenizer and layout shared with Llama-3.1-70B")
    if name == "Llama-2-13B":
        cfg["max_position_embeddings"] = 4096
        filled.append("max_position_embeddings 4096 as for Llama-2-7B/70B (mlc copy shows an edited 2048)")
    if name == "Llama-3.1-405B" and "tie_word_embeddings" not in cfg:
        cfg["tie_word_embeddings"] = False
        filled.append("tie_word_embeddings: LlamaConfig default False")
    if mt == "phi3":
        # llama.cpp does not apply Phi-3's 2047 sliding window in its KV cache sizing we model.
        pass
    aliases = set()
    aliases.add(mid + "-instruct")
    aliases.add(m["hf_repo"].lower())
    aliases.add(re.sub(r"-(\d)", r"\1", mid, count=1))  # llama-3.1-8b -> llama3.1-8b
    aliases.discard(mid)
    entry = {
        "id": mid, "name": name, "aliases": sorted(aliases), "shorthand": SHORTHAND.get(mid, []),
        "hf_repo": m["hf_repo"], "config": cfg,
        "params_official": OFFICIAL_PARAMS.get(name, (None, None))[0],
        "params_source": OFFICIAL_PARAMS[name][1] if OFFICIAL_PARAMS.get(name, (None,))[0] else None,
        "source": m["source"], "source_kind": m.get("source_kind"),
        "filled": filled or None, "notes": m.get("notes"),
    }
    out.append(entry)

seen = {}
for e in out:
    for a in [e["id"]] + e["aliases"] + e["shorthand"]:
        assert a not in seen, (a, e["id"], seen.get(a))
        seen[a] = e["id"]

doc = {
    "schema_version": 1,
    "note": "Model architectures as Hugging Face config.json fields (the same reader serves user "
            "config.json files). Imported from the public reference models.json with each row's "
            "source; values filled where the source was silent are listed in 'filled'. "
            "params_official: published total parameter count, with its source.",
    "models": out,
}
json.dump(doc, open("data/models.json", "w"), indent=1)
print(len(out), "models")
