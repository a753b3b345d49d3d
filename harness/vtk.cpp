#include "vtk.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace nsb {
namespace {

std::string base64(const unsigned char* data, std::size_t n) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (std::size_t i = 0; i < n; i += 3) {
    const unsigned b0 = data[i], b1 = i + 1 < n ? data[i + 1] : 0, b2 = i + 2 < n ? data[i + 2] : 0;
    out += digits[b0 >> 2];
    out += digits[((b0 & 3) << 4) | (b1 >> 4)];
    out += i + 1 < n ? digits[((b1 & 15) << 2) | (b2 >> 6)] : '=';
    out += i + 2 < n ? digits[b2 & 63] : '=';
  }
  return out;
}

// One array as VTK's inline binary: a UInt32 byte count, then the bytes, base64-encoded together.
std::string encoded(const std::vector<float>& v) {
  const std::uint32_t bytes = std::uint32_t(v.size() * sizeof(float));
  std::vector<unsigned char> buf(sizeof bytes + bytes);
  std::memcpy(buf.data(), &bytes, sizeof bytes);
  std::memcpy(buf.data() + sizeof bytes, v.data(), bytes);
  return base64(buf.data(), buf.size());
}

}  // namespace

void write_vti(const std::string& path, const Grid& g, const std::vector<CellArray>& cells) {
  for (const CellArray& c : cells) {
    if (c.values.size() != g.interior_points() * std::size_t(c.components))
      throw std::logic_error("write_vti: array " + c.name + " does not match the grid");
    if (c.values.size() * sizeof(float) >= (std::size_t(1) << 32))
      throw std::runtime_error("write_vti: array " + c.name + " is 4 GiB or more; VTK's 32-bit header cannot say so");
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  const std::string extent = "0 " + std::to_string(g.nx) + " 0 " + std::to_string(g.ny) + " 0 " + std::to_string(g.nz);
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt32\">\n"
      << "  <ImageData WholeExtent=\"" << extent << "\" Origin=\"0 0 0\" Spacing=\"" << g.dx() << " " << g.dy() << " "
      << g.dz() << "\">\n"
      << "    <Piece Extent=\"" << extent << "\">\n      <CellData>\n";
  for (const CellArray& c : cells)
    out << "        <DataArray type=\"Float32\" Name=\"" << c.name << "\" NumberOfComponents=\"" << c.components
        << "\" format=\"binary\">" << encoded(c.values) << "</DataArray>\n";
  out << "      </CellData>\n    </Piece>\n  </ImageData>\n</VTKFile>\n";
  if (!out) throw std::runtime_error("writing " + path + " failed");
}

}  // namespace nsb
