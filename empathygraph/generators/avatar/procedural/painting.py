"""Painting the procedural head with OpenCV: a shaded head layer per expression, then each frame.

The head is painted with soft shading (a light from the upper left, eye sockets, the
nose's side and underside, cheeks, chin) so that it reads as a face, not as a flat
disc. Everything that stays put for a whole reply is painted once per expression into a
head layer: hair, ears, skin shading, brows and the creases an expression makes
(forehead lines for raised brows, a furrow for knit brows, nasolabial folds for a smile,
nose wrinkles for disgust, crow's feet for a cheek raise). Each frame then only draws
the moving parts onto a copy of that layer, eyes (gaze, lids, blinks) and mouth, and
warps it (nod, tilt, shake). The mouth's speech opening rides on the expression's own
mouth shape: a smile keeps its corners up and shows the teeth while talking, pressed
angry lips open only a little, a sad mouth keeps its corners down.

The look follows the profile (child: rounder face, larger eyes, smaller nose; elderly:
grey hair and lines; long hair for women, short for men): see ``geometry``. The head layer
is painted in steps: masks (hair, ears, face), the face's relief, the expression's
creases, the skin's light and colour, then everything composed with brows and fringe.
"""

from __future__ import annotations

import cv2
import numpy as np

from empathygraph.generators.avatar.motion import Expression, FaceTrack
from empathygraph.generators.avatar.procedural.expression import MouthShape, brow_points, eyelids, mouth_shape
from empathygraph.generators.avatar.procedural.geometry import face_outline, head_centre, look_for
from empathygraph.schemas import AvatarProfile

# The mouth's inside: a colour used nowhere else, so a frame's open-mouth area can be measured.
MOUTH_INSIDE = (72, 18, 30)
_EYE_WHITE = (242, 240, 236)
_TEETH = (246, 243, 236)
_LASH = (46, 34, 32)
_SHIFT = 4  # sub-pixel bits for OpenCV drawing
_ONE = 1 << _SHIFT
SHADING = 1.0  # strength of the skin's shading
CREASES = 2.0  # strength of creases, folds and the nose
BACKDROP = ((150, 166, 186), (100, 118, 146))  # top and bottom colour of the background


class _Canvas:
    """The head layer's region: drawing in head coordinates, and where each pixel lies on the face."""

    def __init__(self, head: ProceduralHead) -> None:
        x0, y0, x1, y1 = head.roi
        self.head, self.k, self.org = head, head.scale, (x0, y0)
        self.h, self.w = y1 - y0, x1 - x0
        fw, fh = head.look.face
        ys, xs = np.mgrid[0 : self.h, 0 : self.w].astype(np.float32)
        self.lx = ((xs + x0) / self.k - head.centre[0]) / fw  # -1..1 across the face
        self.ly = ((ys + y0) / self.k - head.centre[1]) / fh  # -1..1 down the face

    def blank(self) -> np.ndarray:
        return np.zeros((self.h, self.w), np.float32)

    def fill(self, img: np.ndarray, pts: np.ndarray, value) -> None:
        cv2.fillPoly(img, [self.head._fixed(pts, self.org)], value, cv2.LINE_AA, _SHIFT)

    def ellipse(self, img: np.ndarray, centre, axes, value, angle: float = 0.0) -> None:
        c = self.head._fixed(np.array([centre]), self.org)[0]
        ax = (int(axes[0] * self.k * _ONE), int(axes[1] * self.k * _ONE))
        cv2.ellipse(img, (int(c[0]), int(c[1])), ax, angle, 0, 360, value, -1, cv2.LINE_AA, _SHIFT)

    def line(self, img: np.ndarray, pts, value, width: float) -> None:
        cv2.polylines(img, [self.head._fixed(np.asarray(pts, np.float64), self.org)], False, value,
                      max(1, round(width * self.k)), cv2.LINE_AA, _SHIFT)  # fmt: skip


class ProceduralHead:
    """Draw one profile's talking head, frame by frame."""

    def __init__(self, profile: AvatarProfile, size: int = 512) -> None:
        self.size = size
        self.scale = size / 512.0
        self.look = look_for(profile)
        self.centre = head_centre(profile)
        self.background = self._draw_background()
        fw, fh = self.look.face
        pad = 40  # room for the head's motion
        if self.look.long_hair:
            half, top, bottom = fw + 31, -fh - 29, 181.0
        else:
            half, top, bottom = fw + 13, -fh - 37, fh + 1
        x0, y0 = self._px(np.array([-half - pad, top - pad]))
        x1, y1 = self._px(np.array([half + pad, bottom + pad]))
        self.roi = (max(0, int(x0)), max(0, int(y0)), min(size, int(x1)), min(size, int(y1)))
        self._layers: dict[Expression, tuple[np.ndarray, np.ndarray]] = {}

    # --- coordinates -----------------------------------------------------------------------
    def _px(self, points: np.ndarray) -> np.ndarray:
        """Local head coordinates (512 scale, origin at the head centre) -> frame pixels."""
        return (points + self.centre) * self.scale

    def _fixed(self, points: np.ndarray, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
        """Local coordinates -> OpenCV fixed-point pixel coordinates (``_SHIFT`` bits), relative to ``origin``."""
        pts = self._px(np.asarray(points, np.float64)) - np.asarray(origin, np.float64)
        return np.round(pts * _ONE).astype(np.int32)

    # --- static layers ---------------------------------------------------------------------
    def _draw_background(self) -> np.ndarray:
        s, look = self.size, self.look
        ramp = np.linspace(0, 1, s, dtype=np.float32)[:, None, None]
        top, bottom = np.array(BACKDROP[0], np.float32), np.array(BACKDROP[1], np.float32)
        frame = np.ascontiguousarray(np.broadcast_to(top + (bottom - top) * ramp, (s, s, 3)).astype(np.uint8))
        neck_shade = tuple(int(c * 0.84) for c in look.skin)
        neck = self._fixed(np.array([[-40, 100], [40, 100], [46, 230], [-46, 230]]))
        cv2.fillPoly(frame, [neck], neck_shade, cv2.LINE_AA, _SHIFT)
        # The chin's shadow on the neck.
        shadow = np.zeros((s, s), np.float32)
        chin = tuple(int(v) for v in self._px(np.array([0.0, look.face[1] - 6])))
        cv2.ellipse(shadow, chin, (int(60 * self.scale), int(26 * self.scale)), 0, 0, 360, 1.0, -1, cv2.LINE_AA)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 10 * self.scale)
        frame[:] = (frame * (1 - 0.35 * shadow[..., None])).astype(np.uint8)
        shoulders = self._px(np.array([0.0, 330.0]))
        cv2.ellipse(
            frame, tuple(int(v) for v in shoulders), (int(210 * self.scale), int(130 * self.scale)),
            0, 180, 360, look.shirt, -1, cv2.LINE_AA,
        )  # fmt: skip
        collar = self._fixed(np.array([[-46, 212], [0, 250], [46, 212]]))
        cv2.polylines(frame, [collar], False, tuple(int(c * 0.75) for c in look.shirt), max(2, int(4 * self.scale)), cv2.LINE_AA, _SHIFT)
        return frame

    def layer(self, e: Expression) -> tuple[np.ndarray, np.ndarray]:
        """The head layer (RGB, alpha) for an expression, painted once and cached."""
        if e not in self._layers:
            if len(self._layers) > 8:
                self._layers.clear()
            self._layers[e] = self._paint_head(e)
        return self._layers[e]

    def _paint_head(self, e: Expression) -> tuple[np.ndarray, np.ndarray]:
        """Paint hair, ears, shaded skin, brows and the expression's creases (the ROI only)."""
        canvas = _Canvas(self)
        hair_mask, ears, face = self._masks(canvas)
        broad, mid, fine = self._relief(canvas, e)
        self._creases(canvas, e, mid, fine)
        skin_rgb = self._skin(canvas, e, face, broad, mid, fine)
        return self._compose(canvas, e, hair_mask, ears, face, skin_rgb)

    def _masks(self, canvas: _Canvas) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where the hair behind the head, the ears and the face are (each 0..1)."""
        look = self.look
        fw, fh = look.face
        hair_mask = canvas.blank()
        if look.long_hair:
            canvas.ellipse(hair_mask, (0, 6), (fw + 30, fh + 34), 1.0)
            canvas.fill(hair_mask, np.array([[-fw - 30, 10], [fw + 30, 10], [fw + 26, 180], [-fw - 26, 180]]), 1.0)
        else:
            canvas.ellipse(hair_mask, (0, -26), (fw + 9, fh - 10), 1.0)
        ears = canvas.blank()
        for side in (-1, 1) if not look.long_hair else ():  # long hair covers the ears
            canvas.ellipse(ears, (side * (fw - 4), look.eye_y + 18), (15, 27), 1.0, angle=side * 8)
        face = canvas.blank()
        canvas.fill(face, face_outline(look), 1.0)
        return hair_mask, ears, face

    def _relief(self, canvas: _Canvas, e: Expression) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The face's own shading, darkening (positive) or highlight (negative): sockets, cheekbones, nose, chin.

        Three layers, blurred apart later: broad (soft, wide shapes), mid (creases and the
        nose) and fine (nostrils, sharp lines).
        """
        look = self.look
        fw, fh = look.face
        broad, mid, fine = canvas.blank(), canvas.blank(), canvas.blank()
        ex, ey = look.eye_gap, look.eye_y
        ew, eh = look.eye_size
        for side in (-1, 1):
            # Eye sockets: under the brow ridge and beside the nose.
            canvas.ellipse(broad, (side * (ex - 4), ey - 4), (ew * 1.25, eh * 1.9), 0.16 + 0.12 * max(0.0, -e.brow_raise))
            canvas.ellipse(broad, (side * (ex - ew + 2), ey + 2), (8, 9), 0.10)
            # Cheekbones catch the light; the cheek hollows below them do not.
            canvas.ellipse(broad, (side * (ex + 6), ey + 40 - 6 * e.cheek_raise), (26, 16), -0.07 - 0.06 * e.cheek_raise)
            canvas.ellipse(broad, (side * (fw - 18), look.mouth_y - 14), (16, 34), 0.05)
        # Forehead under the hair: the fringe casts a shadow.
        canvas.ellipse(broad, (0, -fh * 0.55 + 6), (fw * 0.95, 16), 0.10)
        # Nose: side in shadow, tip and bridge in light, a shadow underneath, nostrils.
        ny, nw = look.nose_y, look.nose_width
        wrinkle = max(0.0, e.nose_wrinkle)
        nostril_y = ny - 3 * wrinkle
        canvas.line(mid, [[7, ey + 6], [9, ny - 18], [nw * 0.75, ny - 6]], 0.10, 7)
        canvas.line(mid, [[-6, ey + 6], [-7, ny - 18]], -0.04, 6)
        canvas.ellipse(broad, (-2, ny - 9), (9, 8), -0.06)
        canvas.ellipse(mid, (0, nostril_y + 7), (nw * 0.8, 4.5), 0.14)
        for side in (-1, 1):
            canvas.line(mid, [[side * nw * 0.55, nostril_y - 10], [side * nw * 1.02, nostril_y - 3],
                              [side * nw * 0.85, nostril_y + 3], [side * nw * 0.45, nostril_y + 4]], 0.18, 3)  # fmt: skip
            canvas.ellipse(fine, (side * nw * 0.42, nostril_y + 1.5), (4.5 + wrinkle, 2.4), 0.42, angle=side * 15)
        # Philtrum and the hollow under the lower lip, the chin's roundness.
        my, mh = look.mouth_y, look.mouth_half
        for side in (-1, 1):
            canvas.line(mid, [[side * 4, nostril_y + 8], [side * 6, my - look.lips[0] - 3]], 0.06, 3)
        canvas.ellipse(broad, (0, my + look.lips[1] + 10 - 3 * e.chin_raise), (mh * 0.55, 5 + 2 * e.chin_raise), 0.12 + 0.1 * max(0.0, e.chin_raise))
        canvas.ellipse(broad, (0, fh - 26), (30, 14), -0.06 - 0.04 * max(0.0, e.chin_raise))
        # Mouth corners (commissures) sit in small hollows.
        shape = mouth_shape(look, e, 0.0)
        for side in (-1, 1):
            canvas.ellipse(mid, (side * (shape.half_width + 2), my - shape.corner_lift), (4, 4), 0.14)
        return broad, mid, fine

    def _creases(self, canvas: _Canvas, e: Expression, mid: np.ndarray, fine: np.ndarray) -> None:
        """Add the expression's creases (and age's lines) to the mid and fine shading layers."""
        look = self.look
        fh = look.face[1]
        ex, ey = look.eye_gap, look.eye_y
        ew, eh = look.eye_size
        ny, nw = look.nose_y, look.nose_width
        wrinkle = max(0.0, e.nose_wrinkle)
        my = look.mouth_y
        shape = mouth_shape(look, e, 0.0)
        raise_ = max(0.0, e.brow_raise)
        knit = max(0.0, -e.brow_inner) + max(0.0, e.brow_knit)
        inner_up = max(0.0, e.brow_inner)
        lines = look.wrinkles
        # Forehead lines (AU1+2), stronger over the inner brow for AU1 alone (sadness).
        forehead_top = -fh * 0.55 + 14
        brow_y = ey - look.brow_gap
        for n, dy in enumerate((11, 19, 27)):
            y = brow_y - dy - 4 * raise_
            if y < forehead_top:
                break
            depth = 0.08 * raise_ + 0.06 * lines + 0.07 * inner_up * (n < 2)
            span = 44 - 6 * n if raise_ > inner_up else 26
            xs_ = np.linspace(-span, span, 9)
            canvas.line(mid, np.stack([xs_, y + 0.004 * xs_**2 - 3 * inner_up * np.cos(xs_ / span * np.pi / 2)], 1), depth, 2.5)
        # Glabella: vertical furrows for knit brows (AU4), a short horizontal one for disgust's AU9.
        for side in (-1, 1):
            canvas.line(mid, [[side * 6, brow_y - 6 + 6 * knit], [side * 8, brow_y + 14]], 0.22 * knit + 0.05 * lines, 3.5)
        if wrinkle > 0:  # AU9: short creases across the bridge, the nose's sides pulled up and darker
            for dy in (0, 7, 14):
                canvas.line(fine, [[-9 + dy / 4, ey + 4 + dy], [0, ey + 6 + dy], [9 - dy / 4, ey + 4 + dy]], 0.22 * wrinkle, 2)
            for side in (-1, 1):
                canvas.line(mid, [[side * 10, ey + 10], [side * (nw + 2), ny - 12]], 0.12 * wrinkle, 6)
        # Nasolabial folds: deep in a smile (AU12) and a sneer (AU9/10), faint otherwise.
        fold = 0.04 + 0.12 * max(0.0, e.smile) + 0.14 * max(0.0, e.lip_raise) + 0.03 * lines + 0.05 * max(0.0, e.mouth_width)
        bulge = 6 * max(0.0, e.cheek_raise) + 4 * max(0.0, e.smile)
        for side in (-1, 1):
            start = [side * (nw + 6), ny - 6]
            middle = [side * (nw + 16 + bulge), ny + 20]
            end = [side * (shape.half_width + 8 + bulge * 0.6), my + 10 - 0.5 * shape.corner_lift]
            canvas.line(mid, [start, middle, end], fold, 4)
            # Crow's feet (AU6) and lower-lid bags.
            cr = 0.10 * max(0.0, e.cheek_raise) + 0.03 * lines
            for a in (-0.35, 0.0, 0.35):
                p0 = np.array([side * (ex + ew + 4), ey + 1])
                p1 = p0 + np.array([side * 12 * np.cos(a), 12 * np.sin(a)])
                canvas.line(mid, [p0, p1], cr, 2.5)
            canvas.line(mid, [[side * (ex - ew * 0.7), ey + eh + 6], [side * ex, ey + eh + 10 - 3 * e.cheek_raise],
                              [side * (ex + ew * 0.8), ey + eh + 6]], 0.05 + 0.05 * max(0.0, e.cheek_raise) + 0.06 * lines, 3)  # fmt: skip
            # Chin raise (AU17) dimples the chin; elderly: marionette lines.
            if lines > 0:
                canvas.line(mid, [[side * (shape.half_width + 4), my + 8], [side * (shape.half_width + 8), my + 36]], 0.08 * lines, 3)

    def _skin(self, canvas: _Canvas, e: Expression, face: np.ndarray, broad: np.ndarray, mid: np.ndarray,
              fine: np.ndarray) -> np.ndarray:
        """The skin's colour: the light on the face (rim, side, lower face), its relief and creases, a blush."""
        look, k = self.look, canvas.k
        # Rim: the face turns away from the light at its edges; the light comes from the upper left.
        inside = cv2.distanceTransform((face > 0.5).astype(np.uint8), cv2.DIST_L2, 5) / k
        rim = np.exp(-inside / 22.0) * face
        shade = 0.22 * rim + 0.06 * canvas.lx + 0.05 * np.clip(canvas.ly, 0, 1) ** 2
        ex, my = look.eye_gap, look.mouth_y
        d = cv2.GaussianBlur(broad, (0, 0), 9 * k) + CREASES * (cv2.GaussianBlur(mid, (0, 0), 2.2 * k) + cv2.GaussianBlur(fine, (0, 0), 1.0 * k))
        d = SHADING * (shade + d)
        skin = np.array(look.skin, np.float32)
        tint = np.array([0.82, 1.0, 1.05], np.float32)  # shadows are warmer than the light
        skin_rgb = skin * (1 - np.clip(d, -0.3, 0.62)[..., None] * tint)  # the deepest shade stays skin, not mouth
        # Blush on the cheeks: friendlier, and stronger in a smile.
        blush = canvas.blank()
        for side in (-1, 1):
            canvas.ellipse(blush, (side * (ex + 8), my - 22 - 4 * e.cheek_raise), (22, 14), 1.0)
        blush = cv2.GaussianBlur(blush, (0, 0), 8 * k)[..., None] * (0.12 + 0.10 * max(0.0, e.cheek_raise))
        skin_rgb = skin_rgb * (1 - blush) + np.array([232, 140, 140], np.float32) * blush
        return skin_rgb

    def _compose(self, canvas: _Canvas, e: Expression, hair_mask: np.ndarray, ears: np.ndarray, face: np.ndarray,
                 skin_rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lay hair, ears, skin, brows, the fringe and strands of hair into the layer (RGB, alpha)."""
        look, k = self.look, canvas.k
        fw, fh = look.face
        y0 = canvas.org[1]
        hair = np.array(look.hair, np.float32)
        skin = np.array(look.skin, np.float32)
        ly = canvas.ly
        rgb = np.zeros((canvas.h, canvas.w, 3), np.float32)
        alpha = canvas.blank()
        skin_mask = np.maximum(face, ears)
        hair_shade = hair * (0.78 + 0.22 * np.clip(1 - ly, 0, 1.6)[..., None] / 1.6)
        rgb[:] = hair_shade * hair_mask[..., None]
        alpha[:] = np.maximum(hair_mask, skin_mask)
        ears_rgb = skin * 0.9 * np.array([0.92, 1.0, 1.0], np.float32)
        rgb = rgb * (1 - ears[..., None]) + ears_rgb * ears[..., None]
        rgb = rgb * (1 - face[..., None]) + skin_rgb * face[..., None]
        for side in (-1, 1) if not look.long_hair else ():  # the ear's inner fold
            ellipse_mask = canvas.blank()
            canvas.ellipse(ellipse_mask, (side * (fw + 2), look.eye_y + 18), (6, 16), 1.0, angle=side * 8)
            rgb = rgb * (1 - 0.18 * ellipse_mask[..., None])
        self._paint_brows(rgb, e, canvas.org)
        # Fringe: the hair's front edge over the top of the face, with a soft lower edge.
        cut = int((self.centre[1] - fh * 0.55 - 4) * k) - y0
        top = canvas.blank()
        canvas.ellipse(top, (0, -fh * 0.55 - 4), (fw + 6, fh * 0.5), 1.0)
        top[cut:] = 0
        fringe = cv2.GaussianBlur(top, (0, 0), 1.2 * k)
        rgb = rgb * (1 - fringe[..., None]) + hair_shade * fringe[..., None]
        # A few strands of hair: darker lines in the hair mass.
        strands = canvas.blank()
        for n in range(-3, 4):
            xs_ = np.array([n * 18.0, n * 22.0, n * 27.0])
            canvas.line(strands, np.stack([xs_, [-fh - 6, -fh * 0.85, -fh * 0.62]], 1), 1.0, 2)
        strands = cv2.GaussianBlur(strands, (0, 0), 1.5 * k) * np.maximum(hair_mask, fringe)
        rgb = rgb * (1 - 0.18 * strands[..., None])
        return np.clip(rgb, 0, 255).astype(np.uint8), np.clip(alpha * 255, 0, 255).astype(np.uint8)

    def _paint_brows(self, rgb: np.ndarray, e: Expression, org: tuple[int, int]) -> None:
        h, w = rgb.shape[:2]
        mask = np.zeros((h, w), np.float32)
        for side in (-1, 1):
            upper, lower = brow_points(self.look, e, side)
            pts = np.concatenate([upper, lower[::-1]])
            cv2.fillPoly(mask, [self._fixed(pts, org)], 1.0, cv2.LINE_AA, _SHIFT)
        mask = cv2.GaussianBlur(mask, (0, 0), 1.3 * self.scale)[..., None]
        colour = np.array(_brow_colour(self.look.hair), np.float32)
        rgb[:] = rgb * (1 - 0.92 * mask) + colour * 0.92 * mask

    # --- per frame -------------------------------------------------------------------------
    def frame(self, track: FaceTrack, i: int) -> np.ndarray:
        """Render frame ``i`` of ``track`` as an RGB uint8 array."""
        s = self.size
        head_rgb, head_alpha = self.layer(track.expression)
        head = head_rgb.copy()
        x0, y0, x1, y1 = self.roi
        e = track.expression
        self._draw_eyes(head, e, float(track.blink[i]), float(track.gaze_x[i]), float(track.gaze_y[i]))
        self._draw_mouth(head, mouth_shape(self.look, e, float(track.mouth_open[i])))
        pivot = (float(self.centre[0] * self.scale), float((self.centre[1] + 120) * self.scale))
        matrix = cv2.getRotationMatrix2D(pivot, float(track.head_angle[i]), 1.0)
        matrix[0, 2] += track.head_x[i] * s
        matrix[1, 2] += track.head_y[i] * s
        # The layer lives in ROI coordinates: conjugate the motion by the ROI offset.
        offset = np.array([x0, y0], np.float64)
        shifted = matrix.copy()
        shifted[:, 2] = matrix[:, :2] @ offset + matrix[:, 2] - offset
        frame = self.background.copy()
        size = (x1 - x0, y1 - y0)
        head = cv2.warpAffine(head, shifted, size, flags=cv2.INTER_LINEAR)
        weight = cv2.warpAffine(head_alpha, shifted, size, flags=cv2.INTER_LINEAR).astype(np.float32) * (1.0 / 255.0)
        region = frame[y0:y1, x0:x1]
        frame[y0:y1, x0:x1] = cv2.blendLinear(head, region, weight, 1.0 - weight)
        return frame

    def _patch(self, head: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
        """A view of ``head`` (ROI image) covering local box lo..hi, and its origin in frame pixels."""
        x0, y0 = self.roi[:2]
        a = self._px(lo).astype(int) - (x0, y0)
        b = self._px(hi).astype(int) - (x0, y0) + 1
        a = np.maximum(a, 0)
        b = np.minimum(b, (head.shape[1], head.shape[0]))
        return head[a[1] : b[1], a[0] : b[0]], (int(a[0] + x0), int(a[1] + y0))

    def _draw_eyes(self, head: np.ndarray, e: Expression, blink: float, gx: float, gy: float) -> None:
        look, k = self.look, self.scale
        ew, eh = look.eye_size
        lids = eyelids(e, blink)
        opening, lower, slant = lids.opening, lids.lower, lids.slant
        for side in (-1, 1):
            cx, cy = side * look.eye_gap, look.eye_y
            lo, hi = np.array([cx - ew - 14, cy - eh * 2.4 - 8]), np.array([cx + ew + 14, cy + eh * 1.6 + 10])
            patch, org = self._patch(head, lo, hi)
            if patch.size == 0:
                continue
            u = np.linspace(-1, 1, 21)  # -1: outer corner on the left eye, +1: inner...
            inward = -side * u  # +1 at the inner corner (towards the nose)
            xs = cx + u * ew
            corner_y = cy - 1.5 * (-inward)  # outer corner a touch higher
            bump = (1 - u**2) ** 0.55
            peak = 1 + 0.12 * inward  # the upper lid's highest point sits towards the nose
            upper_y = corner_y - eh * opening * bump * peak * (1 + slant * inward * 0.6)
            lower_y = corner_y + eh * lower * (1 - u**2) ** 0.8
            upper = np.stack([xs, upper_y], 1)
            lower_pts = np.stack([xs[::-1], lower_y[::-1]], 1)
            # The eye: sclera, iris (clipped by the lids), shadow under the upper lid.
            h, w = patch.shape[:2]
            mask = np.zeros((h, w), np.uint8)
            outline = self._fixed(np.concatenate([upper, lower_pts]), org)
            cv2.fillPoly(mask, [outline], 255, cv2.LINE_AA, _SHIFT)
            eye = np.empty_like(patch)
            eye[:] = _EYE_WHITE
            iris_c = self._fixed(np.array([[cx + gx * ew * 0.4, cy + 0.8 + gy * eh * 0.35]]), org)[0]
            radius = int(ew * 0.42 * k * _ONE)
            centre = (int(iris_c[0]), int(iris_c[1]))
            cv2.circle(eye, centre, radius, tuple(int(c * 0.7) for c in look.iris), -1, cv2.LINE_AA, _SHIFT)
            cv2.circle(eye, centre, int(radius * 0.8), look.iris, -1, cv2.LINE_AA, _SHIFT)
            cv2.circle(eye, centre, int(radius * 0.45), (18, 16, 20), -1, cv2.LINE_AA, _SHIFT)
            glint = (centre[0] - int(radius * 0.3), centre[1] - int(radius * 0.35))
            cv2.circle(eye, glint, int(radius * 0.16), (250, 250, 250), -1, cv2.LINE_AA, _SHIFT)
            cv2.polylines(eye, [self._fixed(upper, org)], False, (150, 130, 126), max(2, int(5 * k)), cv2.LINE_AA, _SHIFT)
            blend = (mask.astype(np.float32) / 255.0)[..., None]
            patch[:] = (patch * (1 - blend) + eye * blend).astype(np.uint8)
            # Lids: a crease above the upper lid, lashes along it, a soft lower lid.
            lid = tuple(int(c * 0.78) for c in look.skin)
            crease = np.stack([xs * 0.96 + cx * 0.04, corner_y - (eh * max(opening, 0.6) + 5 + 2 * e.eye_open) * bump * peak], 1)
            cv2.polylines(patch, [self._fixed(crease[3:-3], org)], False, lid, max(1, int(2.5 * k)), cv2.LINE_AA, _SHIFT)
            cv2.polylines(patch, [self._fixed(lower_pts[2:-2], org)], False, tuple(int(c * 0.72) for c in look.skin),
                          max(1, int(2.5 * k)), cv2.LINE_AA, _SHIFT)  # fmt: skip
            lash_w = max(2, int((4.5 if look.lashes else 3.5) * k))
            cv2.polylines(patch, [self._fixed(upper, org)], False, _LASH, lash_w, cv2.LINE_AA, _SHIFT)
            if look.lashes:  # a flick at the outer corner
                tip = upper[0] if side < 0 else upper[-1]
                flick = np.array([tip, tip + [side * 6, -4]])
                cv2.polylines(patch, [self._fixed(flick, org)], False, _LASH, lash_w, cv2.LINE_AA, _SHIFT)
            cv2.GaussianBlur(patch, (3, 3), 0, dst=patch)

    def _draw_mouth(self, head: np.ndarray, m: MouthShape) -> None:
        look, k = self.look, self.scale
        my = look.mouth_y
        lo = np.array([-m.half_width - 10, my - m.corner_lift - m.gap_up - m.upper_lip - 12])
        hi = np.array([m.half_width + 10, my + m.gap_down + m.lower_lip + 10 + max(0.0, m.corner_lift)])
        lo[1] = min(lo[1], my - m.gap_up - m.upper_lip - 12)
        patch, org = self._patch(head, lo, hi)
        if patch.size == 0:
            return
        u = np.linspace(-1, 1, 25)
        xs = u * m.half_width
        base = my - m.corner_lift * u**2  # the lip line: corners lifted in a smile, dropped in sadness
        open_shape = (1 - u**2) ** m.roundness
        snarl = m.snarl * (1 - u**2) ** 0.25
        inner_up = base - m.gap_up * open_shape - snarl
        inner_down = base + m.gap_down * open_shape
        bow = 1 - 0.22 * np.exp(-((u / 0.12) ** 2)) + 0.1 * np.exp(-(((np.abs(u) - 0.3) / 0.15) ** 2))  # Cupid's bow
        outer_up = inner_up - m.upper_lip * (1 - u**2) ** 0.45 * bow
        outer_down = inner_down + m.lower_lip * (1 - u**2) ** 0.6
        lip_dark = tuple(int(c * 0.8) for c in look.lip)
        upper = np.concatenate([np.stack([xs, outer_up], 1), np.stack([xs[::-1], inner_up[::-1]], 1)])
        lower = np.concatenate([np.stack([xs, inner_down], 1), np.stack([xs[::-1], outer_down[::-1]], 1)])
        cv2.fillPoly(patch, [self._fixed(lower, org)], look.lip, cv2.LINE_AA, _SHIFT)
        cv2.fillPoly(patch, [self._fixed(upper, org)], lip_dark, cv2.LINE_AA, _SHIFT)
        # A highlight on the lower lip.
        shine = np.stack([xs[8:17], (inner_down[8:17] + outer_down[8:17]) / 2 + 0.5], 1)
        cv2.polylines(patch, [self._fixed(shine, org)], False, tuple(min(255, int(c * 1.12)) for c in look.lip),
                      max(1, int(2.5 * k)), cv2.LINE_AA, _SHIFT)  # fmt: skip
        gap = m.gap_up + m.gap_down + m.snarl
        if gap > 1.0:
            inside = np.concatenate([np.stack([xs, inner_up], 1), np.stack([xs[::-1], inner_down[::-1]], 1)])
            h, w = patch.shape[:2]
            mouth = np.empty_like(patch)
            mouth[:] = MOUTH_INSIDE
            # Teeth: a band under the upper lip (and over the lower lip when it is pulled down),
            # leaving the dark corners of the mouth free.
            t = np.linspace(-0.8, 0.8, 17)
            tx = t * m.half_width
            shape_t = (1 - t**2) ** m.roundness
            base_t = my - m.corner_lift * t**2
            top_t = base_t - m.gap_up * shape_t - m.snarl * (1 - t**2) ** 0.25
            edge = np.clip(1 - np.abs(t / 0.8) ** 4, 0, 1) ** 0.5
            teeth_up = np.concatenate([np.stack([tx, top_t - 3], 1), np.stack([tx[::-1], (top_t + m.upper_teeth * edge)[::-1]], 1)])
            cv2.fillPoly(mouth, [self._fixed(teeth_up, org)], _TEETH, cv2.LINE_AA, _SHIFT)
            if m.lower_teeth > 0.3:
                bottom_t = base_t + m.gap_down * shape_t
                teeth_down = np.concatenate([np.stack([tx, bottom_t - m.lower_teeth * edge], 1), np.stack([tx[::-1], bottom_t[::-1] + 3], 1)])
                cv2.fillPoly(mouth, [self._fixed(teeth_down, org)], (228, 224, 216), cv2.LINE_AA, _SHIFT)
            mask = np.zeros((h, w), np.uint8)
            cv2.fillPoly(mask, [self._fixed(inside, org)], 255, cv2.LINE_AA, _SHIFT)
            blend = (mask.astype(np.float32) / 255.0)[..., None]
            patch[:] = (patch * (1 - blend) + mouth * blend).astype(np.uint8)
        else:  # closed lips meet in a dark line
            seam = np.stack([xs, base], 1)
            cv2.polylines(patch, [self._fixed(seam, org)], False, tuple(int(c * 0.62) for c in look.lip),
                          max(1, int(2.5 * k)), cv2.LINE_AA, _SHIFT)  # fmt: skip
        cv2.GaussianBlur(patch, (3, 3), 0, dst=patch)



def _brow_colour(hair: tuple[int, int, int]) -> tuple[int, int, int]:
    """Brows are darker than the hair; grey hair keeps darker grey-brown brows."""
    if min(hair) > 150:
        return (112, 104, 100)
    return tuple(int(c * 0.55) for c in hair)  # type: ignore[return-value]


def mouth_area(frame: np.ndarray, tolerance: int = 40) -> int:
    """Count a frame's pixels of the mouth's inside colour: how open the drawn mouth is.

    A pixel counts when it is near ``MOUTH_INSIDE`` and as red as it (red well above green),
    so dark brown hair, brows and lashes, which are near it in plain distance, do not.
    """
    pixels = frame.astype(np.int16)
    distance = np.abs(pixels - np.array(MOUTH_INSIDE, np.int16)).max(axis=2)
    red = pixels[..., 0] - pixels[..., 1] >= (MOUTH_INSIDE[0] - MOUTH_INSIDE[1]) * 2 // 3
    return int(((distance <= tolerance) & red).sum())
