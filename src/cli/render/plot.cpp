#include "cli/render/plot.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cli/render/report_data.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

// Tableau 10: distinguishable, and readable for the common colour-vision deficiencies.
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#e15759",
                                "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"};

std::string svg_open(int w, int h, const std::string& title) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      w, h, xml_escape(title));
}

// A step of 1, 2 or 5 x 10^k giving about `n` intervals over [0, span].
double nice_step(double span, int n) {
  const double raw = span / n;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

std::string tokens_label(uint32_t n) {
  if (n >= 1024 && n % 1024 == 0) return fmt::format("{}k", n / 1024);
  return fmt::format("{}", n);
}

std::string num_label(double v) {
  return v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v);
}

}  // namespace

void write_text_file(const std::string& flag, const std::string& path, const std::string& text) {
  const std::string what = flag + ": cannot write '" + sanitize(path, 256) + "': ";
  const auto refuse = [&](mode_t mode) {
    throw InputError(what + "not a regular file (" + io::file_kind(mode) + ")");
  };
  // Only a regular file is written: a FIFO, /dev/full or a directory is refused before a byte is
  // written. O_NONBLOCK: a FIFO that appears after the stat fails (ENXIO) instead of blocking.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) refuse(st.st_mode);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0) throw InputError(what + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int e = errno;
    ::close(fd);
    if (S_ISREG(st.st_mode)) throw InputError(what + std::strerror(e));
    refuse(st.st_mode);
  }
  bool ok = ::ftruncate(fd, 0) == 0;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  const int e = ok ? 0 : (errno ? errno : EIO);
  if (::close(fd) != 0 || !ok) throw InputError(what + std::strerror(e ? e : errno));
}

void write_memory_plot(const std::string& path, const Report& r) {
  write_text_file("--plot", path, memory_svg(r));
}

std::string memory_svg(const Report& r) {
  const auto& e = r.estimate;
  const auto& c = r.config;
  const int W = 760, H = 300, x0 = 40, x1 = W - 40, bar_y = 90, bar_h = 56;
  struct Part {
    const char* name;
    uint64_t bytes;
    const char* color;
  };
  const Part parts[] = {{"weights", e.weights_bytes, kPalette[0]},
                        {"KV cache", e.kv_cache_bytes, kPalette[1]},
                        {"compute buffers", e.activations_bytes, kPalette[2]},
                        {"runtime overhead", e.overhead_bytes, kPalette[3]},
                        {"headroom", e.headroom_bytes, kPalette[9]}};
  const uint32_t n = r.gpu ? r.gpu->count : 0;
  const uint64_t each = r.gpu ? r.gpu->gpu.usable_bytes() : 0;
  const uint64_t capacity = r.gpu ? r.gpu->gpu.usable_bytes(n) : 0;
  const Axis ax =
      Axis::over(x0, x1, static_cast<double>(std::max(e.total_bytes(), capacity)), 1.08);
  const auto X = [&](uint64_t bytes) { return ax.at(static_cast<double>(bytes)); };

  const std::string model = r.model.spec.id.empty() ? r.model.spec.name : r.model.spec.id;
  const std::string title =
      fmt::format("{} {} · context {} × {} · {}", model, r.quant->id, c.kv.n_ctx, c.kv.n_seq,
                  r.gpu ? fmt::format("{} × {}", n, r.gpu->gpu.id) : std::string("no GPU"));
  std::string s = svg_open(W, H, "llmsize: " + title);
  s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", x0,
                   xml_escape(title));
  s += fmt::format(
      "<text x=\"{}\" y=\"50\" fill=\"#444444\">VRAM {:.2f} GiB in total across the "
      "GPUs{}</text>\n",
      x0, gib_of(e.total_bytes()),
      r.gpu ? fmt::format(" · capacity {:.2f} GiB ({} × {:.2f} GiB usable) · {}", gib_of(capacity),
                          n, gib_of(each), r.gpu->fits ? "fits" : "does NOT fit")
            : std::string());
  // Axis: GiB.
  const double step = nice_step(gib_of(static_cast<uint64_t>(ax.top)), 8);
  for (double v = 0; static_cast<double>(bytes_of_gib(v)) <= ax.top; v += step) {
    const double x = X(bytes_of_gib(v));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#dddddd\"/>\n",
                     x, bar_y - 12, x, bar_y + bar_h + 8);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555555\">{}</text>\n", x,
        bar_y + bar_h + 24, num_label(v));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555555\">GiB</text>\n", x1,
                   bar_y + bar_h + 40);
  // The stacked bar: each part's length in pixels after the one before.
  double px = ax.at(0);
  for (const auto& p : parts) {
    if (p.bytes == 0) continue;
    const double len = ax.length(static_cast<double>(p.bytes));
    s += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" stroke=\"#ffffff\" "
        "stroke-width=\"1\">"
        "<title>{}: {:.2f} GiB</title></rect>\n",
        px, bar_y, len, bar_h, p.color, p.name, gib_of(p.bytes));
    px += len;
  }
  // Capacity: one tick per GPU, the total as a thick line.
  if (n > 0) {
    for (uint32_t k = 1; k < n && n <= 64; ++k) {
      const double x = X(r.gpu->gpu.usable_bytes(k));
      s += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#c0392b\" "
          "stroke-dasharray=\"3,3\"/>\n",
          x, bar_y - 8, x, bar_y + bar_h + 8);
    }
    const double x = X(capacity);
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#c0392b\" "
        "stroke-width=\"3\"/>\n",
        x, bar_y - 16, x, bar_y + bar_h + 12);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"end\" fill=\"#c0392b\">{} × {:.1f} GiB</text>\n",
        x - 4, bar_y - 20, n, gib_of(each));
  }
  // Legend.
  int lx = x0, ly = H - 60;
  for (const auto& p : parts) {
    const std::string label = fmt::format("{} {:.2f} GiB", p.name, gib_of(p.bytes));
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n", lx,
                     ly - 11, p.color);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 20, ly, xml_escape(label));
    lx += 30 + static_cast<int>(label.size()) * 7;
    if (lx > W - 180) {
      lx = x0;
      ly += 24;
    }
  }
  s += "</svg>\n";
  return s;
}

std::string sweep_svg(const SweepPlotData& d) {
  const int W = 820, H = 500, L = 80, R = 190, T = 50, B = 60;
  const int pw = W - L - R, ph = H - T - B;
  uint32_t cmin = UINT32_MAX, cmax = 0;
  double ymax = 0;
  for (const auto& s : d.series) {
    for (uint32_t c : s.ctx) {
      cmin = std::min(cmin, c);
      cmax = std::max(cmax, c);
    }
    for (uint64_t b : s.total_bytes) ymax = std::max(ymax, gib_of(b));
  }
  for (const auto& c : d.capacity) ymax = std::max(ymax, gib_of(c.usable_bytes));
  if (cmin == UINT32_MAX) cmin = cmax = 1;
  double lx0 = std::log2(static_cast<double>(cmin)), lx1 = std::log2(static_cast<double>(cmax));
  if (lx1 - lx0 < 1e-9) {
    lx0 -= 1;
    lx1 += 1;
  }
  // x: log2 of the context from lx0; y: GiB, upwards from the bottom edge.
  const Axis ax{static_cast<double>(L), static_cast<double>(L + pw), lx1 - lx0};
  const Axis ay = Axis::over(T + ph, T, ymax, 1.1);
  ymax = ay.top;
  const auto X = [&](double ctx) { return ax.at(std::log2(ctx) - lx0); };
  const auto Y = [&](double g) { return ay.at(g); };

  std::string s = svg_open(W, H, "llmsize sweep: VRAM against context");
  s += fmt::format(
      "<text x=\"{}\" y=\"28\" font-size=\"15\" font-weight=\"bold\">VRAM against context ({} "
      "GPU{} per configuration)</text>\n",
      L, d.n_gpus, d.n_gpus == 1 ? "" : "s");
  // Grid and axes.
  const double ystep = nice_step(ymax, 8);
  for (double v = 0; v <= ymax; v += ystep) {
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e5e5e5\"/>\n",
                     L, Y(v), L + pw, Y(v));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"#555555\">{}</text>\n",
                     L - 6, Y(v) + 4, num_label(v));
  }
  for (int k = static_cast<int>(std::ceil(lx0 - 1e-9));
       k <= static_cast<int>(std::floor(lx1 + 1e-9)); ++k) {
    if (k < 0 || k > 31) continue;
    const double x = X(std::ldexp(1.0, k));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#e5e5e5\"/>\n",
                     x, T, x, T + ph);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555555\">{}</text>\n", x,
        T + ph + 18, tokens_label(1u << k));
  }
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888888\"/>\n", L,
      T, pw, ph);
  s += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333333\">context (tokens per "
      "sequence, log scale)</text>\n",
      L + pw / 2, H - 16);
  s += fmt::format(
      "<text x=\"18\" y=\"{}\" text-anchor=\"middle\" fill=\"#333333\" transform=\"rotate(-90 18 "
      "{})\">VRAM, GiB (all GPUs)</text>\n",
      T + ph / 2, T + ph / 2);
  // Capacity lines.
  for (size_t i = 0; i < d.capacity.size(); ++i) {
    const double y = Y(gib_of(d.capacity[i].usable_bytes));
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#c0392b\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>\n",
        L, y, L + pw, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" fill=\"#c0392b\">{} ({:.0f} GiB)</text>\n",
                     L + pw + 6, y + 4, xml_escape(d.capacity[i].label),
                     gib_of(d.capacity[i].usable_bytes));
  }
  // Series, with the legend on a light box so lines behind it stay readable.
  size_t longest = 0;
  for (const auto& ser : d.series) longest = std::max(longest, ser.label.size());
  const size_t shown = std::min<size_t>(d.series.size(), static_cast<size_t>((ph - 14) / 20));
  std::string legend;
  if (shown)
    legend = fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" fill-opacity=\"0.85\" "
        "stroke=\"#cccccc\"/>\n",
        L + 4, T + 2, 34 + 7 * longest, 20 * shown + 4);
  for (size_t i = 0; i < d.series.size(); ++i) {
    const auto& ser = d.series[i];
    const char* color = kPalette[i % 10];
    std::string pts;
    for (size_t k = 0; k < ser.ctx.size(); ++k)
      pts += fmt::format("{}{:.1f},{:.1f}", k ? " " : "", X(ser.ctx[k]),
                         Y(gib_of(ser.total_bytes[k])));
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"/>\n",
                     pts, color);
    for (size_t k = 0; k < ser.ctx.size(); ++k)
      s += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{} at {}: {:.2f} "
          "GiB</title></circle>\n",
          X(ser.ctx[k]), Y(gib_of(ser.total_bytes[k])), color, xml_escape(ser.label), ser.ctx[k],
          gib_of(ser.total_bytes[k]));
    const int ly = T + 14 + static_cast<int>(i) * 20;
    if (i < shown) {
      legend += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/>\n",
                            L + 10, ly - 5, color);
      legend +=
          fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", L + 30, ly, xml_escape(ser.label));
    }
  }
  s += legend + "</svg>\n";
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string r;
  for (char ch : s) {
    switch (ch) {
      case '&':
        r += "&amp;";
        break;
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '"':
        r += "&quot;";
        break;
      case '\'':
        r += "&apos;";
        break;
      default:
        r += ch;
    }
  }
  return r;
}

}  // namespace llmsize::cli
