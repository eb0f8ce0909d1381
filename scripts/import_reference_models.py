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
        "params_official": m.get("total_params"),
        "params_source": m["source"] if m.get("total_params") else None,
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
