#!/usr/bin/env python3
"""Writes a check plan file of N plans to stdout, for timing `llmsize check` by hand:

    python3 bench/make_plans.py 100000 > /tmp/plans.json
    /usr/bin/time -v build/llmsize check /tmp/plans.json > /dev/null

The plans cycle as bench/check_bench.cpp's do: 8 models x 5 GPUs x 6 contexts x 2 quantizations x
4 GPU counts (1,920 settings), a third with a decode-speed target; --distinct gives every plan its
own context (nothing repeats).
"""
import sys

MODELS = ["llama-3.1-8b", "llama-3.1-70b", "qwen2.5-32b", "mixtral-8x7b", "gemma-2-9b",
          "qwen3-30b-a3b", "deepseek-v3", "mistral-7b-v0.3"]
GPUS = ["rtx-4090", "h100-sxm", "a100-80gb-sxm", "rtx-3090", "l40s"]
CTXS = [2048, 4096, 8192, 16384, 32768, 65536]
QUANTS = ["q4_k_m", "q8_0"]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    distinct = "--distinct" in sys.argv
    n = int(args[0]) if args else 100000
    out = sys.stdout
    out.write('{"plans": [\n')
    for i in range(n):
        ctx = 1024 + i if distinct else CTXS[(i // 40) % 6]
        target = ', "target_tokens_per_s": %d' % (10 + i % 50) if i % 3 == 0 else ""
        out.write('%s{"name": "p%d", "model": "%s", "gpu": "%s", "gpus": %d, "context": %d, '
                  '"quant": "%s"%s}' % (",\n" if i else "", i, MODELS[i % 8], GPUS[(i // 8) % 5],
                                        1 + (i // 480) % 4, ctx, QUANTS[(i // 240) % 2], target))
    out.write("\n]}\n")


if __name__ == "__main__":
    main()
