"""Reads a .vti that nsbench wrote the way ParaView would: XML, inline binary arrays (a UInt32 byte
count, then little-endian Float32, base64), one value per cell of the whole extent. Checks the arrays
are complete and finite and, where the file has velocity and speed, that speed = |velocity|.

    scripts/py tests/check_vti.py FILE.vti [ARRAY ...]   (exit 0: readable and consistent)
"""
import base64
import math
import struct
import sys
import xml.etree.ElementTree as ET


def arrays(path):
    image = ET.parse(path).getroot().find("ImageData")
    x0, x1, y0, y1, z0, z1 = map(int, image.get("WholeExtent").split())
    cells = (x1 - x0) * (y1 - y0) * (z1 - z0)
    out = {}
    for a in image.iter("DataArray"):
        raw = base64.b64decode(a.text.strip())
        (nbytes,) = struct.unpack("<I", raw[:4])
        values = struct.unpack(f"<{nbytes // 4}f", raw[4:4 + nbytes])
        components = int(a.get("NumberOfComponents", "1"))
        assert len(values) == cells * components, f"{a.get('Name')}: {len(values)} values for {cells} cells"
        assert all(math.isfinite(v) for v in values), f"{a.get('Name')}: non-finite values"
        out[a.get("Name")] = (components, values)
    return out


def main():
    path, wanted = sys.argv[1], sys.argv[2:]
    found = arrays(path)
    missing = [w for w in wanted if w not in found]
    assert not missing, f"{path}: no array {missing}; it has {sorted(found)}"
    if "velocity" in found and "speed" in found:
        vel, speed = found["velocity"][1], found["speed"][1]
        for n, s in enumerate(speed):
            v = math.sqrt(sum(vel[3 * n + c] ** 2 for c in range(3)))
            assert abs(v - s) <= 1e-5 * max(1.0, s), f"cell {n}: speed {s} but |velocity| {v}"
    print(f"{path}: " + ", ".join(f"{k} ({c} x {len(v) // c})" for k, (c, v) in sorted(found.items())))


if __name__ == "__main__":
    main()
