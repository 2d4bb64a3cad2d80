"""A one-page PDF holding one JPEG image over the whole page, written by hand.

PDF readers decode JPEG themselves (the DCTDecode filter), so the file is the JPEG's bytes
plus a few hundred bytes of objects: no PDF library is needed. The page is sized in
millimetres, so printing at 100% reproduces the image at its intended scale.
"""

from __future__ import annotations

POINTS_PER_MM = 72 / 25.4


def jpeg_page_pdf(jpeg: bytes, width_px: int, height_px: int, page_mm: tuple[float, float],
                  gray: bool = True) -> bytes:
    """The bytes of a PDF whose single page of page_mm shows the JPEG edge to edge."""
    width_pt, height_pt = (f"{side * POINTS_PER_MM:.3f}" for side in page_mm)
    content = f"q {width_pt} 0 0 {height_pt} 0 0 cm /Im0 Do Q".encode()
    colour = "/DeviceGray" if gray else "/DeviceRGB"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width_pt} {height_pt}] "
         "/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>").encode(),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        (f"<< /Type /XObject /Subtype /Image /Width {width_px} /Height {height_px} "
         f"/ColorSpace {colour} /BitsPerComponent 8 /Filter /DCTDecode "
         f"/Length {len(jpeg)} >>\nstream\n").encode() + jpeg + b"\nendstream",
    ]
    # A binary comment after the header tells transfer tools the file is not text.
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)
