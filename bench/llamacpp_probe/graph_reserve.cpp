// A benchmark tool, never built or run by the test suite (see README.md): asks llama.cpp for its
// compute buffer without allocating anything, and shows what is live at its peak.
//
//   graph_reserve GGUF N_CTX N_SEQ f16|q8_0 FA(0/1) [N_UBATCH] [TOP]   one setting, with the live
//       tensors at the peak of a replay of ggml-alloc's allocator (ggml/src/ggml-alloc.c at
//       de3ff815: inputs first, best-fit free blocks, in-place reuse) on the reserved graph
//   graph_reserve GGUF grid [N_UBATCH]   the grid of compute_grid in llamacpp_measured_2026.json
//
// The model is loaded with no_alloc (no weights read, no mmap), so a sparse GGUF of a 100 GB
// model costs nothing; llama_get_memory_breakdown() gives the compute buffer llama.cpp would
// allocate. Build against the libraries of node-llama-cpp and the llama.cpp source of the same
// commit (its gitRelease.bundle):
//   g++ -O1 -std=c++17 -I$SRC/include -I$SRC/src -I$SRC/ggml/include -I$SRC/ggml/src \
//     graph_reserve.cpp -o graph_reserve -L$BINS -l:libllama.v0.5.0.so -l:libggml.v0.5.0.so \
//     -l:libggml-base.so -Wl,-rpath,$BINS
// and run with LLAMA_BINS=$BINS (where the CPU backend libraries are).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ggml-backend.h"
#include "ggml-impl.h"
#include "ggml.h"
#include "llama-ext.h"
#include "llama.h"

struct Block {
  size_t off, size;
};
struct Alloc {
  size_t align = 32;
  std::vector<Block> fb{{0, SIZE_MAX / 2}};
  size_t max_size = 0;
  static size_t pad(size_t s, size_t a) { return (s + a - 1) / a * a; }
  size_t alloc(size_t size) {
    size = pad(size, align);
    int best = -1;
    size_t best_size = SIZE_MAX;
    for (int i = 0; i + 1 < (int)fb.size(); ++i)
      if (fb[i].size >= size && fb[i].size <= best_size) {
        best = i;
        best_size = fb[i].size;
      }
    if (best == -1) best = (int)fb.size() - 1;
    size_t off = fb[best].off;
    fb[best].off += size;
    fb[best].size -= size;
    if (fb[best].size == 0) fb.erase(fb.begin() + best);
    max_size = std::max(max_size, off + size);
    return off;
  }
  void free_bytes(size_t off, size_t size) {
    size = pad(size, align);
    for (size_t i = 0; i < fb.size(); ++i) {
      Block& b = fb[i];
      if (b.off + b.size == off) {
        b.size += size;
        if (i + 1 < fb.size() && b.off + b.size == fb[i + 1].off) {
          b.size += fb[i + 1].size;
          fb.erase(fb.begin() + i + 1);
        }
        return;
      }
      if (off + size == b.off) {
        b.off = off;
        b.size += size;
        if (i > 0 && fb[i - 1].off + fb[i - 1].size == b.off) {
          fb[i - 1].size += b.size;
          fb.erase(fb.begin() + i);
        }
        return;
      }
    }
    size_t pos = 0;
    while (pos < fb.size() && fb[pos].off < off) ++pos;
    fb.insert(fb.begin() + pos, Block{off, size});
  }
};

struct HN {
  int n_children = 0, n_views = 0;
  bool allocated = false;
  size_t off = 0;
  bool own = false;
};

static bool can_inplace(ggml_op op) {
  switch (op) {
    case GGML_OP_FILL:
    case GGML_OP_SCALE:
    case GGML_OP_DIAG_MASK_ZERO:
    case GGML_OP_DIAG_MASK_INF:
    case GGML_OP_ADD:
    case GGML_OP_ADD_ID:
    case GGML_OP_ADD1:
    case GGML_OP_SUB:
    case GGML_OP_MUL:
    case GGML_OP_DIV:
    case GGML_OP_SQR:
    case GGML_OP_SQRT:
    case GGML_OP_LOG:
    case GGML_OP_UNARY:
    case GGML_OP_ROPE:
    case GGML_OP_ROPE_BACK:
    case GGML_OP_SILU_BACK:
    case GGML_OP_RMS_NORM:
    case GGML_OP_RMS_NORM_BACK:
    case GGML_OP_CLAMP:
    case GGML_OP_SOFT_MAX:
    case GGML_OP_SOFT_MAX_BACK:
      return true;
    default:
      return false;
  }
}

struct Sim {
  Alloc a;
  std::unordered_map<const ggml_tensor*, HN> h;
  std::map<size_t, const ggml_tensor*> live;  // offset -> tensor
  size_t peak = 0;
  std::vector<std::pair<size_t, const ggml_tensor*>> peak_live;
  std::vector<Block> peak_free;
  const char* peak_at = "";
  bool is_allocated(const ggml_tensor* t) {
    return t->data != nullptr || t->buffer != nullptr || h[t].allocated;
  }
  void alloc_node(ggml_tensor* node, const char* at) {
    HN& hn = h[node];
    if (!is_allocated(node) && node->view_src == nullptr) {
      hn.allocated = true;
      hn.own = true;
      if (can_inplace(node->op)) {
        for (int i = 0; i < GGML_MAX_SRC; ++i) {
          ggml_tensor* p = node->src[i];
          if (!p) continue;
          HN& ph = h[p];
          if (!ph.own) continue;
          if ((p->flags & GGML_TENSOR_FLAG_OUTPUT) ||
              (p->view_src && (p->view_src->flags & GGML_TENSOR_FLAG_OUTPUT)))
            continue;
          if (node->type != p->type) continue;
          bool same = true;
          for (int d = 0; d < GGML_MAX_DIMS; ++d)
            if (node->ne[d] != p->ne[d] || node->nb[d] != p->nb[d]) same = false;
          if (!same) continue;
          if (ph.n_children == 1 && ph.n_views == 0) {
            if (p->view_src) {
              ggml_tensor* vs = p->view_src;
              HN& vh = h[vs];
              if (vh.n_views == 1 && vh.n_children == 0 && vs->data == p->data && vh.own) {
                hn.off = vh.off;
                ph.allocated = false;
                vh.allocated = false;
                free_extra(node, vs, vh.off);
                live.erase(vh.off);
                live[hn.off] = node;
                return;
              }
            } else {
              hn.off = ph.off;
              ph.allocated = false;
              free_extra(node, p, ph.off);
              live.erase(ph.off);
              live[hn.off] = node;
              return;
            }
          }
        }
      }
      size_t before = a.max_size;
      hn.off = a.alloc(ggml_nbytes(node));
      live[hn.off] = node;
      if (a.max_size > before) {
        peak = a.max_size;
        peak_at = at;
        peak_live.assign(live.begin(), live.end());
        peak_free = a.fb;
      }
    }
  }
  void free_extra(ggml_tensor* node, ggml_tensor* parent, size_t off) {
    size_t ps = Alloc::pad(ggml_nbytes(parent), 32), ns = Alloc::pad(ggml_nbytes(node), 32);
    if (ps > ns) a.free_bytes(off + ns, ps - ns);
  }
  void free_node(ggml_tensor* n) {
    if (n->flags & GGML_TENSOR_FLAG_OUTPUT) return;
    HN& hn = h[n];
    a.free_bytes(hn.off, ggml_nbytes(n));
    live.erase(hn.off);
    hn.allocated = false;
  }
  void run(ggml_cgraph* g) {
    for (int i = 0; i < g->n_leafs; ++i) alloc_node(g->leafs[i], "leaf");
    for (int i = 0; i < g->n_nodes; ++i) {
      ggml_tensor* node = g->nodes[i];
      if (node->view_src && node->op != GGML_OP_NONE) h[node->view_src].n_views += 1;
      if (node->flags & GGML_TENSOR_FLAG_INPUT) alloc_node(node, "input");
      for (int j = 0; j < GGML_MAX_SRC; ++j) {
        ggml_tensor* s = node->src[j];
        if (!s) continue;
        h[s].n_children += 1;
        if (s->flags & GGML_TENSOR_FLAG_INPUT) alloc_node(s, "input");
      }
    }
    for (int i = 0; i < g->n_nodes; ++i) {
      ggml_tensor* node = g->nodes[i];
      for (int j = 0; j < GGML_MAX_SRC; ++j)
        if (node->src[j]) alloc_node(node->src[j], node->name);
      alloc_node(node, node->name);
      for (int j = 0; j < GGML_MAX_SRC; ++j) {
        ggml_tensor* p = node->src[j];
        if (!p) continue;
        HN& ph = h[p];
        ph.n_children -= 1;
        if (ph.n_children == 0 && ph.n_views == 0) {
          if (p->view_src) {
            ggml_tensor* vs = p->view_src;
            HN& vh = h[vs];
            vh.n_views -= 1;
            if (vh.n_views == 0 && vh.n_children == 0 && vh.allocated) free_node(vs);
          } else if (ph.allocated) {
            free_node(p);
          }
        }
      }
    }
  }
};

static ggml_type parse_type(const char* s) {
  return std::strcmp(s, "q8_0") == 0   ? GGML_TYPE_Q8_0
         : std::strcmp(s, "q4_0") == 0 ? GGML_TYPE_Q4_0
                                       : GGML_TYPE_F16;
}

// The context of one setting: per-sequence KV (not unified), SWA cells as llama.cpp sizes them,
// one thread (the buffers do not depend on it).
static llama_context* new_context(llama_model* model, uint32_t n_ctx, uint32_t n_seq, ggml_type kt,
                                  bool fa, uint32_t ub) {
  auto cp = llama_context_default_params();
  cp.n_ctx = n_ctx;
  cp.n_batch = ub;
  cp.n_ubatch = ub;
  cp.n_seq_max = n_seq;
  cp.kv_unified = false;
  cp.swa_full = false;
  cp.type_k = kt;
  cp.type_v = kt;
  cp.flash_attn_type = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
  cp.n_threads = 1;
  cp.n_threads_batch = 1;
  return llama_init_from_model(model, cp);
}

static double ctx_compute(llama_model* model, uint32_t n_ctx, uint32_t n_seq, ggml_type kt, bool fa,
                          uint32_t ub, const char** peak_at) {
  llama_context* ctx = new_context(model, n_ctx, n_seq, kt, fa, ub);
  if (!ctx) return -1;
  auto mb = llama_get_memory_breakdown(ctx);
  double compute = 0;
  for (auto& [buft, d] : mb) compute += d.compute;
  static std::string at;
  ggml_cgraph* g = llama_graph_reserve(ctx, std::min(ub, n_ctx), n_seq, std::min(ub, n_ctx));
  if (!g) {  // the compute buffer could not be reserved (a CPU buffer of tens of GB)
    llama_free(ctx);
    return -1;
  }
  Sim s;
  s.run(g);
  size_t masks = 0, live = 0;
  std::vector<const ggml_tensor*> seen;
  for (int i = 0; i < g->n_nodes; ++i)
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
      auto* t = g->nodes[i]->src[j];
      if (t && (t->flags & GGML_TENSOR_FLAG_INPUT) && std::strstr(t->name, "kq_mask")) {
        if (std::find(seen.begin(), seen.end(), t) == seen.end()) {
          seen.push_back(t);
          masks += ggml_nbytes(t);
        }
      }
    }
  for (auto& x : s.peak_live) live += ggml_nbytes(x.second);
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s live=%.2f masks=%.2f", s.peak_at, live / 1048576.0,
                masks / 1048576.0);
  at = buf;
  *peak_at = at.c_str();
  llama_free(ctx);
  return compute / 1048576.0;
}

// The model of `path` by its shapes alone (no_alloc: no weights read), on the CPU backends of
// $LLAMA_BINS; llama.cpp's log is printed from errors up, or all of it with GS_LOG set.
llama_model* load_shapes(const char* path) {
  llama_log_set(
      [](ggml_log_level l, const char* t, void*) {
        if (getenv("GS_LOG") || l >= GGML_LOG_LEVEL_ERROR) fputs(t, stderr);
      },
      nullptr);
  llama_backend_init();
  ggml_backend_load_all_from_path(getenv("LLAMA_BINS") ? getenv("LLAMA_BINS") : ".");
  auto mp = llama_model_default_params();
  mp.no_alloc = true;
  mp.load_mode = LLAMA_LOAD_MODE_NONE;
  mp.lazy_mode = LLAMA_LAZY_MODE_OFF;
  mp.n_gpu_layers = 0;
  llama_model* model = llama_model_load_from_file(path, mp);
  if (!model) std::fprintf(stderr, "load failed\n");
  return model;
}

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[2], "grid") == 0) {
    llama_model* model = load_shapes(argv[1]);
    if (!model) return 1;
    const uint32_t ub = argc > 3 ? std::atoi(argv[3]) : 512;
    for (uint32_t n_ctx : {4096u, 8192u, 16384u, 32768u, 65536u, 131072u})
      for (uint32_t n_seq : {1u, 4u})
        for (const char* kv : {"f16", "q8_0"})
          for (int fa : {1, 0}) {
            if (fa == 0 && std::strcmp(kv, "q8_0") == 0) continue;
            const char* at = "";
            double c = ctx_compute(model, n_ctx, n_seq, parse_type(kv), fa, ub, &at);
            if (c < 0) continue;  // a setting llama.cpp cannot create: left out of the grid
            std::printf("%u %u %s %s %u %.2f %s\n", n_ctx, n_seq, kv, fa ? "on" : "off", ub, c, at);
            fflush(stdout);
          }
    return 0;
  }
  if (argc < 6) {
    std::fprintf(stderr, "usage: graphsim GGUF n_ctx n_seq kvtype fa(0/1) [n_ubatch] [top]\n");
    return 2;
  }
  const char* path = argv[1];
  const uint32_t n_ctx = std::atoi(argv[2]), n_seq = std::atoi(argv[3]);
  const ggml_type kt = parse_type(argv[4]);
  const bool fa = std::atoi(argv[5]) != 0;
  const uint32_t ub = argc > 6 ? std::atoi(argv[6]) : 512;
  const int top = argc > 7 ? std::atoi(argv[7]) : 25;
  llama_model* model = load_shapes(path);
  if (!model) return 1;
  llama_context* ctx = new_context(model, n_ctx, n_seq, kt, fa, ub);
  if (!ctx) {
    std::fprintf(stderr, "ctx failed\n");
    return 1;
  }
  auto mb = llama_get_memory_breakdown(ctx);
  double compute = 0;
  for (auto& [buft, d] : mb) compute += d.compute;
  std::printf("llama.cpp compute (no_alloc) = %.2f MiB\n", compute / 1048576.0);
  const uint32_t n_out = getenv("GS_NOUT") ? std::atoi(getenv("GS_NOUT")) : std::min(ub, n_ctx);
  ggml_cgraph* g = llama_graph_reserve(ctx, std::min(ub, n_ctx), n_seq, n_out);
  Sim s;
  s.run(g);
  std::printf("simulated pp peak = %.2f MiB (nodes %d leafs %d) at %s\n", s.peak / 1048576.0,
              g->n_nodes, g->n_leafs, s.peak_at);
  auto lv = s.peak_live;
  std::sort(lv.begin(), lv.end(),
            [](auto& x, auto& y) { return ggml_nbytes(x.second) > ggml_nbytes(y.second); });
  for (int i = 0; i < (int)lv.size() && i < top; ++i)
    std::printf("  %10.2f MiB @%10.2f  %-40s %-14s [%lld %lld %lld %lld] %s\n",
                ggml_nbytes(lv[i].second) / 1048576.0, lv[i].first / 1048576.0, lv[i].second->name,
                ggml_op_desc(lv[i].second), (long long)lv[i].second->ne[0],
                (long long)lv[i].second->ne[1], (long long)lv[i].second->ne[2],
                (long long)lv[i].second->ne[3], ggml_type_name(lv[i].second->type));
  size_t live_sum = 0;
  for (auto& x : lv) live_sum += ggml_nbytes(x.second);
  std::printf("  live sum %.2f MiB in %zu tensors; free blocks:", live_sum / 1048576.0, lv.size());
  for (auto& b : s.peak_free)
    if (b.size < SIZE_MAX / 4) std::printf(" [%.2f +%.2f]", b.off / 1048576.0, b.size / 1048576.0);
  std::printf("\n");
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
