"""What the browser tests measure of the debugger's colours, as JavaScript for
``page.evaluate``: each text's contrast (``CONTRASTS``) and the slider knob's
(``KNOB``), by WCAG's formula. Shared by the widgets' browser tests (Voila, the exported
page) and the site's (tests/test_docs_layout.py)."""

from __future__ import annotations

_COLOUR = """
  const rgba = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/);
    // (a color-mix() is computed as color(srgb r g b / a), each channel 0 to 1)
    const s = c.match(/color\\(srgb ([^)]+)\\)/);
    if (s) { const p = s[1].split(/[ \\/]+/).filter(Boolean).map(Number);
      return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3]))
    .concat([1]);
  const luminance = (c) => { const f = (v) => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const [light, dark] = [luminance(a), luminance(b)]
    .sort((x, y) => y - x); return Math.round((light + 0.05) / (dark + 0.05) * 100) / 100; };
  const behind = (el) => { const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    return layers.reverse().reduce((under, c) => over(c, under), [255, 255, 255, 1]); };
"""

# Each text under ``root`` (its own text nodes, a select's, a text input's, a button's) with
# its colour's contrast against the background it is painted on: the backgrounds up the
# tree, blended down to the first opaque one, the text's colour blended over that, and that
# background's luminance (0 black, 1 white). A disabled control is left out (WCAG asks no
# contrast of one), and so is a range input (no text).
CONTRASTS = (
    "(root) => {"
    + _COLOUR
    + """
  const texts = [];
  for (const el of document.querySelectorAll(`${root}, ${root} *`)) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.data.trim());
    if (!(own || ['SELECT', 'INPUT'].includes(el.tagName)) || el.closest('svg, script, style'))
      continue;
    if (el.type === 'range' || el.closest(':disabled') || !el.getClientRects().length) continue;
    const bg = behind(el), fg = over(rgba(getComputedStyle(el).color), bg);
    texts.push({text: (el.value || el.textContent).trim().slice(0, 40), tag: el.tagName,
                cls: String(el.className), ratio: ratio(fg, bg),
                behind: Math.round(luminance(bg) * 100) / 100});
  }
  return texts;
}"""
)

# The debugger's slider knob (noUiSlider's handle) under ``root``: its colour, and its
# contrast against the track it sits on and against the page round the slider; the same
# of its rim (its border), which alone can set a white knob off a white page.
KNOB = (
    "(root) => {"
    + _COLOUR
    + """
  const knob = document.querySelector(`${root} .noUi-handle`);
  const track = knob.closest('.noUi-target').querySelector('.noUi-connects');
  const page = behind(knob.closest('.noUi-target').parentElement);
  const colour = over(rgba(getComputedStyle(knob).backgroundColor), behind(track));
  const trackColour = behind(track);
  const style = getComputedStyle(knob), rim = over(rgba(style.borderTopColor), page);
  return {knob: style.backgroundColor, track: trackColour.slice(0, 3),
          page: page.slice(0, 3), onTrack: ratio(colour, trackColour),
          onPage: ratio(colour, page), knobLuminance: luminance(colour),
          rim: style.borderTopColor, rimWidth: parseFloat(style.borderTopWidth),
          rimOnPage: ratio(rim, page), rimOnTrack: ratio(rim, trackColour)};
}"""
)
