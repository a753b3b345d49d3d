"""The analytic request/sector model (reports/access_model.py) against the counts of notes Sec. 6.5 and what
the traversals must give."""
import pytest

from study_helpers import REPORTS  # noqa: F401 (puts reports/ on the path)
import access_model as am


class Aligned(am.Layout):
    """Rows that start on a sector (the notes' idealisation): node (i, j) at (i - 1) + nx j."""

    def addr(self, i, j):
        return (i - 1) + self.nx * j


def per_warp(r, kind):
    req = 32 * r[f"{kind}_requests_per_node"]
    return req, req * r[f"{kind}_sectors_per_request"]


def test_notes_counts_on_aligned_rows():
    # notes Sec. 6.5, one 9-point field a warp: 2D 16-wide 9 requests and 3 x 4 + 6 x 6 = 48 sectors;
    # 1D 32-wide 9 requests and 3 x 4 + 6 x 5 = 42. The stream sweep adds six pointwise fields (4 sectors each).
    lay = Aligned(256, 64)
    assert per_warp(am.model("stream", "global_2d", "bx16_by16", 256, 64, layout=lay), "ld") == (15, 48 + 24)
    assert per_warp(am.model("stream", "global_1d", "b256", 256, 64, layout=lay), "ld") == (15, 42 + 24)
    assert per_warp(am.model("stream", "global_2d", "bx32_by8", 256, 64, layout=lay), "ld") == (15, 42 + 24)
    assert per_warp(am.model("stream", "global_2d", "bx16_by16", 256, 64, layout=lay), "st") == (1, 4)


def test_present_staging_needs_three_row_loads_and_its_ends():
    # 3 row loads + 6 pointwise a warp; per block of 256 (8 warps) 6 end loads; per row of 256 (8 warps) the two
    # row-end nodes' 3 + 3 reads across the end
    lay = Aligned(256, 64)
    req, sec = per_warp(am.model("stream", "shared_1d", "b256", 256, 64, layout=lay), "ld")
    assert req == pytest.approx(9 + 6 / 8 + 6 / 8)
    assert sec == pytest.approx(3 * 4 + 6 * 4 + 6 / 8 + 6 / 8)


def test_padded_rows_cost_sectors_not_requests():
    aligned = am.model("stream", "global_2d", "bx16_by16", 1024, 1024, layout=Aligned(1024, 1024))
    padded = am.model("stream", "global_2d", "bx16_by16", 1024, 1024)
    assert padded["ld_requests_per_node"] == aligned["ld_requests_per_node"]
    assert padded["ld_sectors_per_request"] > aligned["ld_sectors_per_request"]


@pytest.mark.parametrize("stage", ["stream", "vorticity", "sweep"])
def test_block_shape_changes_sectors_the_shared_halo_changes_requests(stage):
    # notes Sec. 6.5: requests are per warp instruction, so a global-only kernel's do not depend on the shape
    r16, r32 = (am.model(stage, "global_2d", t, 512, 512) for t in ("bx16_by16", "bx32_by8"))
    r1d, pres = am.model(stage, "global_1d", "b256", 512, 512), am.model(stage, "shared_1d", "b256", 512, 512)
    assert r16["ld_requests_per_node"] == r32["ld_requests_per_node"] == r1d["ld_requests_per_node"]
    assert r32["ld_sectors_per_request"] < r16["ld_sectors_per_request"]
    assert pres["ld_requests_per_node"] < 0.75 * r16["ld_requests_per_node"]


def test_vorticity_reads_psi_at_four_neighbours():
    r = am.model("vorticity", "global_1d", "b256", 256, 64, layout=Aligned(256, 64))
    assert 32 * r["ld_requests_per_node"] == 9 + 4 + 6


def test_variant_names_and_tunings():
    assert am.traversal_of("streamvort/stream/shared_1d_buffer") == "shared_1d"
    assert am.traversal_of("streamvort/stream/shared_tile_2d") is None
    assert am.traversal_of("ogrid/sweep/global_2d") == "global_2d"
    assert am.parse_tuning("bx32_by8") == (32, 8) and am.parse_tuning("b512_co0") == (512, 1)
    assert am.model("boundary", "global_1d", "b128", 64, 64) is None
    with pytest.raises(ValueError):
        am.parse_tuning("default")
